#include "autotune/detail/osu_columns.hpp"

#include <array>
#include <utility>

namespace scaletune::autotune::detail {

namespace {

using Words = std::vector<std::string_view>;
using K = OsuColumnKind;

/// A column name OSU prints, and its kind.
struct Label {
  std::string_view name;
  OsuColumnKind kind;
};

constexpr std::array kLatencyLabels = {
    Label{"Avg Latency(us)", K::measure}, Label{"Latency (us)", K::measure},
    Label{"Min Latency(us)", K::number},  Label{"Max Latency(us)", K::number},
    Label{"Iterations", K::count},        Label{"Validation", K::validation},
};
constexpr std::array kBandwidthLabels = {
    Label{"Bandwidth (MB/s)", K::measure},
    Label{"Validation", K::validation},
};

constexpr std::string_view kLatencyLayout =
    "# Size Avg Latency(us) [Min Latency(us) Max Latency(us) Iterations] [Validation] "
    "[P<n> Tail Lat(us)...]";
constexpr std::string_view kBandwidthLayout =
    "# Size Bandwidth (MB/s) [Validation] [P<n> Tail BW(MB/s)...]";

/// The number of words from `at` that spell `name`; 0 when they do not.
std::size_t words_matching(const Words& words, std::size_t at, std::string_view name) {
  const Words name_words = split_words(name);
  if (words.size() - at < name_words.size()) return 0;
  for (std::size_t i = 0; i < name_words.size(); ++i)
    if (words[at + i] != name_words[i]) return 0;
  return name_words.size();
}

/// "P<n> Tail Lat(us)" (latency) or "P<n> Tail BW(MB/s)" (bandwidth) at `at`: 3 words, else 0.
std::size_t tail_words(const Words& words, std::size_t at, OsuMeasure measure) {
  const std::string_view unit = measure == OsuMeasure::latency_us ? "Lat(us)" : "BW(MB/s)";
  const bool tail = words.size() - at >= 3 && words[at].size() > 1 && words[at][0] == 'P' &&
                    is_unsigned_integer(words[at].substr(1)) && words[at + 1] == "Tail" &&
                    words[at + 2] == unit;
  return tail ? 3 : 0;
}

/// The column whose name starts at word `at`, and its word count; a count of 0 when OSU prints
/// no such column for `measure`.
std::pair<OsuColumn, std::size_t> column_at(const Words& words, std::size_t at,
                                            OsuMeasure measure) {
  if (const std::size_t n = tail_words(words, at, measure); n > 0)
    return {{std::string(words[at]) + " Tail " + std::string(words[at + 2]), K::number}, n};
  const auto check = [&](const auto& labels) -> std::pair<OsuColumn, std::size_t> {
    for (const Label& label : labels)
      if (const std::size_t n = words_matching(words, at, label.name); n > 0)
        return {{std::string(label.name), label.kind}, n};
    return {{}, 0};
  };
  return measure == OsuMeasure::latency_us ? check(kLatencyLabels) : check(kBandwidthLabels);
}

[[noreturn]] void fail_header(std::string_view what, OsuMeasure measure, const LogPlace& place) {
  place.fail("unsupported OSU table header: " + std::string(what) + "; expected '" +
             std::string(measure == OsuMeasure::latency_us ? kLatencyLayout : kBandwidthLayout) +
             "'");
}

std::string joined_from(const Words& words, std::size_t at) {
  std::string out;
  for (std::size_t i = at; i < words.size(); ++i)
    out += (out.empty() ? "" : " ") + std::string(words[i]);
  return out;
}

/// Validation column: "Pass" 0 wrong elements, "Fail" 1 (OSU does not count them).
std::int64_t read_validation(std::string_view word, const LogPlace& place) {
  if (word == "Pass") return 0;
  if (word == "Fail") return 1;
  place.fail("column 'Validation': expected Pass or Fail, found '" + std::string(word) + "'");
}

std::string layout_of(const OsuColumns& columns) {
  std::string out = "Size";
  for (const OsuColumn& column : columns.columns) out += " " + column.name;
  return out;
}

}  // namespace

bool is_osu_header(const Words& words) {
  return words.size() >= 2 && words[0] == "#" && words[1] == "Size";
}

OsuColumns osu_columns_from_header(const Words& words, OsuMeasure measure, const LogPlace& place) {
  OsuColumns columns{.measure = measure, .columns = {}};
  for (std::size_t at = 2; at < words.size();) {
    const auto [column, n] = column_at(words, at, measure);
    if (n == 0) fail_header("unknown column '" + joined_from(words, at) + "'", measure, place);
    if ((column.kind == K::measure) != columns.columns.empty())
      fail_header("the test's " +
                      std::string(measure == OsuMeasure::latency_us ? "latency" : "bandwidth") +
                      " column comes first after Size, and once",
                  measure, place);
    columns.columns.push_back(column);
    at += n;
  }
  if (columns.columns.empty()) fail_header("no column after Size", measure, place);
  return columns;
}

OsuValues read_osu_row(const Words& words, const OsuColumns& columns, const LogPlace& place) {
  if (words.size() != columns.columns.size() + 1)
    place.fail("expected " + std::to_string(columns.columns.size() + 1) + " columns (" +
               layout_of(columns) + "), found " + std::to_string(words.size()));
  OsuValues values;
  values.size = read_integer(words[0], "Size", place);
  for (std::size_t i = 0; i < columns.columns.size(); ++i) {
    const OsuColumn& column = columns.columns[i];
    const std::string_view word = words[i + 1];
    switch (column.kind) {
      case K::measure:
        values.measure = read_number(word, column.name, place);
        break;
      case K::number:
        read_number(word, column.name, place);
        break;
      case K::count:
        read_integer(word, column.name, place);
        break;
      case K::validation:
        values.wrong = read_validation(word, place);
        break;
    }
  }
  if (values.measure <= 0.0)
    place.fail("column '" + columns.columns.front().name + "': expected a value > 0");
  if (values.size == 0 && columns.measure == OsuMeasure::bandwidth_mbps)
    place.fail("column 'Size': expected a message size > 0 bytes");
  return values;
}

}  // namespace scaletune::autotune::detail
