#include "autotune/collective_log.hpp"

#include <stdexcept>
#include <string_view>
#include <utility>

#include "autotune/detail/log_table.hpp"
#include "autotune/detail/log_text.hpp"
#include "autotune/detail/nccl_tests_context.hpp"
#include "autotune/detail/osu_title.hpp"
#include "harness/results/bus_bandwidth.hpp"

namespace scaletune::autotune {

namespace {

using detail::LogLine;
using detail::LogPlace;
using Words = std::vector<std::string_view>;

/// The tool named at the start of each row's source.
constexpr std::string_view kNcclTestsTool = "nccl-tests";
constexpr std::string_view kOsuTool = "osu";

/// Sets busbw to algbw x the bus factor where the rank count and the op give one.
void apply_bus_factor(CollectiveRow& row) {
  if (row.ranks > 0 && results::has_bus_factor(row.op))
    row.busbw_gbps = row.algbw_gbps * results::bus_factor(row.op, row.ranks);
}

/// A row with algbw recomputed from bytes and time, and busbw from the bus factor where op and
/// ranks give one, else `printed_busbw_gbps`; its source is "<tool>:path:line".
CollectiveRow make_row(std::string_view tool, std::string op, std::string dtype, std::int64_t bytes,
                       int ranks, double time_us, double printed_busbw_gbps, std::int64_t wrong,
                       const LogPlace& place) {
  CollectiveRow row{.op = std::move(op),
                    .dtype = std::move(dtype),
                    .bytes = bytes,
                    .ranks = ranks,
                    .time_us = time_us,
                    .algbw_gbps = results::algbw_gbps(bytes, time_us),
                    .busbw_gbps = printed_busbw_gbps,
                    .wrong = wrong,
                    .source = std::string(tool) + ":" + place.str()};
  apply_bus_factor(row);
  return row;
}

/// True when `words` are a table row: the first is an unsigned integer.
bool is_row(const Words& words) {
  return !words.empty() && detail::is_unsigned_integer(words[0]);
}

[[noreturn]] void fail_no_rows(const std::vector<LogLine>& lines, std::string_view path,
                               std::string_view what) {
  LogPlace{path, lines.empty() ? 1 : lines.back().number}.fail("no " + std::string(what) +
                                                               " table row found");
}

/// osu_bw table header "Size Bandwidth (MB/s) [Validation]": true for one, false for a line
/// that is no "# Size" header; throws at `place` for a "# Size" header with other columns.
bool is_osu_bw_header(const Words& words, const LogPlace& place) {
  if (words.size() < 2 || words[0] != "#" || words[1] != "Size") return false;
  const bool bandwidth = words.size() >= 4 && words[2] == "Bandwidth" && words[3] == "(MB/s)";
  if (!bandwidth || words.size() > 5 || (words.size() == 5 && words[4] != "Validation"))
    place.fail("unsupported OSU table header: expected '# Size Bandwidth (MB/s) [Validation]'");
  return true;
}

/// Throws at `place` unless `title` names osu_bw, the one OSU test imported.
void expect_osu_bw(const detail::OsuTitle& title, const LogPlace& place) {
  if (title.is_osu_bw()) return;
  place.fail("OSU test '" + title.library + " " + title.test +
             "' is not imported: only osu_bw (one-way bandwidth, title '# OSU MPI[-CUDA|-ROCm] "
             "Bandwidth Test') is");
}

/// OSU validation column: "Pass" 0 wrong elements, "Fail" 1 (OSU does not count them).
std::int64_t read_osu_validation(std::string_view word, const LogPlace& place) {
  if (word == "Pass") return 0;
  if (word == "Fail") return 1;
  place.fail("column 'Validation': expected Pass or Fail, found '" + std::string(word) + "'");
}

/// One osu_bw row ("size MB/s [Pass|Fail]") with `columns` words.
CollectiveRow read_osu_bw_row(const Words& words, std::size_t columns, const LogPlace& place) {
  if (words.size() != columns)
    place.fail("expected " + std::to_string(columns) + " columns (Size Bandwidth" +
               (columns == 3 ? " Validation" : "") + "), found " + std::to_string(words.size()));
  const std::int64_t bytes = detail::read_integer(words[0], "Size", place);
  if (bytes == 0) place.fail("column 'Size': expected a message size > 0 bytes");
  const double mbps = detail::read_number(words[1], "Bandwidth", place);
  if (mbps <= 0.0) place.fail("column 'Bandwidth': expected a bandwidth > 0 MB/s");
  const std::int64_t wrong = columns == 3 ? read_osu_validation(words[2], place) : -1;
  // MB/s = 1e6 bytes/s = bytes/us, so bytes / (MB/s) is microseconds.
  return make_row(kOsuTool, "osu_bw", "byte", bytes, 2, static_cast<double>(bytes) / mbps,
                  mbps * 1e-3, wrong, place);
}

/// The state of an OSU log between lines: whether an osu_bw title came, the current table.
struct OsuTable {
  bool titled = false;      ///< an osu_bw title line was read
  std::size_t columns = 0;  ///< words per row of the current table; 0 before the first header
  detail::TableSpan span;

  /// Reads a line that is not a table row: a title (osu_bw only), a "# Size" header (after an
  /// osu_bw title), or other text.
  void read(const Words& words, std::string_view line, const LogPlace& place) {
    if (const auto title = detail::osu_title(line)) {
      expect_osu_bw(*title, place);
      titled = true;
      span.end();
    } else if (is_osu_bw_header(words, place)) {
      if (!titled)
        place.fail(
            "OSU table header without an '# OSU MPI Bandwidth Test' title line before it: the "
            "title tells osu_bw from osu_bibw and osu_put_bw, which print the same header");
      columns = words.size() - 2;
      span.header();
    } else {
      span.other(words);
    }
  }
};

}  // namespace

std::vector<CollectiveRow> parse_nccl_tests_log(const std::string& text, const std::string& path) {
  const std::vector<LogLine> lines = detail::log_lines(text);
  detail::NcclTestsContext context;
  std::vector<CollectiveRow> rows;
  for (const LogLine& line : lines) {
    const LogPlace place{path, line.number};
    const Words words = detail::split_words(line.text);
    if (!is_row(words)) {
      detail::expect_no_unreadable_row(words, context.in_table(), context.columns().names.size(),
                                       "size", place);
      context.read(line.text, place);
      continue;
    }
    const detail::NcclTestsValues v = detail::read_nccl_tests_row(words, context.columns(), place);
    context.read_row();
    rows.push_back(make_row(kNcclTestsTool, context.op(), v.dtype, v.bytes, context.ranks(),
                            v.time_us, v.busbw_gbps, v.wrong, place));
  }
  if (rows.empty()) fail_no_rows(lines, path, "nccl-tests");
  return rows;
}

std::vector<CollectiveRow> parse_osu_log(const std::string& text, const std::string& path) {
  const std::vector<LogLine> lines = detail::log_lines(text);
  OsuTable table;
  std::vector<CollectiveRow> rows;
  for (const LogLine& line : lines) {
    const LogPlace place{path, line.number};
    const Words words = detail::split_words(line.text);
    if (!is_row(words)) {
      detail::expect_no_unreadable_row(words, table.span.inside(), table.columns, "Size", place);
      table.read(words, line.text, place);
      continue;
    }
    if (table.columns == 0) place.fail("table row before any '# Size Bandwidth (MB/s)' header");
    rows.push_back(read_osu_bw_row(words, table.columns, place));
    table.span.row();
  }
  if (rows.empty()) fail_no_rows(lines, path, "OSU osu_bw");
  return rows;
}

std::vector<CollectiveRow> with_rank_count(std::vector<CollectiveRow> rows, int ranks) {
  if (ranks < 1)
    throw std::invalid_argument("rank count " + std::to_string(ranks) + ": expected >= 1");
  for (CollectiveRow& row : rows) {
    row.ranks = ranks;
    apply_bus_factor(row);
  }
  return rows;
}

}  // namespace scaletune::autotune
