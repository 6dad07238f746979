#include "autotune/collective_log.hpp"

#include <optional>
#include <string_view>
#include <utility>

#include "autotune/detail/log_text.hpp"
#include "autotune/detail/nccl_tests_context.hpp"
#include "harness/results/bus_bandwidth.hpp"

namespace scaletune::autotune {

namespace {

using detail::LogLine;
using detail::LogPlace;

/// The tool named at the start of each row's source.
constexpr std::string_view kNcclTestsTool = "nccl-tests";
constexpr std::string_view kOsuTool = "osu";

/// A row with algbw recomputed from bytes and time, and busbw from the bus factor where op and
/// ranks give one, else `printed_busbw_gbps`; its source is "<tool>:path:line".
CollectiveRow make_row(std::string_view tool, std::string op, std::string dtype, std::int64_t bytes,
                       int ranks, double time_us, double printed_busbw_gbps, std::int64_t wrong,
                       const LogPlace& place) {
  const double algbw = results::algbw_gbps(bytes, time_us);
  CollectiveRow row{.op = std::move(op),
                    .dtype = std::move(dtype),
                    .bytes = bytes,
                    .ranks = ranks,
                    .time_us = time_us,
                    .algbw_gbps = algbw,
                    .busbw_gbps = printed_busbw_gbps,
                    .wrong = wrong,
                    .source = std::string(tool) + ":" + place.str()};
  if (ranks > 0 && results::has_bus_factor(row.op))
    row.busbw_gbps = algbw * results::bus_factor(row.op, ranks);
  return row;
}

/// The words of `line` when it is a table row (its first word is an unsigned integer).
std::optional<std::vector<std::string_view>> row_words(const LogLine& line) {
  std::vector<std::string_view> words = detail::split_words(line.text);
  if (words.empty() || !detail::is_unsigned_integer(words[0])) return std::nullopt;
  return words;
}

[[noreturn]] void fail_no_rows(const std::vector<LogLine>& lines, std::string_view path,
                               std::string_view what) {
  LogPlace{path, lines.empty() ? 1 : lines.back().number}.fail("no " + std::string(what) +
                                                               " table row found");
}

/// osu_bw table header "Size Bandwidth (MB/s) [Validation]": true for one, false for a line
/// that is no "# Size" header; throws at `place` for a "# Size" header with other columns.
bool is_osu_bw_header(const std::vector<std::string_view>& words, const LogPlace& place) {
  if (words.size() < 2 || words[0] != "#" || words[1] != "Size") return false;
  const bool bandwidth = words.size() >= 4 && words[2] == "Bandwidth" && words[3] == "(MB/s)";
  if (!bandwidth || words.size() > 5 || (words.size() == 5 && words[4] != "Validation"))
    place.fail("unsupported OSU table header: expected '# Size Bandwidth (MB/s) [Validation]'");
  return true;
}

/// One osu_bw row ("size MB/s [Pass|Fail]") with `columns` words.
CollectiveRow read_osu_bw_row(const std::vector<std::string_view>& words, std::size_t columns,
                              const LogPlace& place) {
  if (words.size() != columns)
    place.fail("expected " + std::to_string(columns) + " columns (Size Bandwidth" +
               (columns == 3 ? " Validation" : "") + "), found " + std::to_string(words.size()));
  const std::int64_t bytes = detail::read_integer(words[0], "Size", place);
  if (bytes == 0) place.fail("column 'Size': expected a message size > 0 bytes");
  const double mbps = detail::read_number(words[1], "Bandwidth", place);
  if (mbps <= 0.0) place.fail("column 'Bandwidth': expected a bandwidth > 0 MB/s");
  const std::int64_t wrong = columns == 3 && words[2] == "Pass" ? 0 : -1;
  // MB/s = 1e6 bytes/s = bytes/us, so bytes / (MB/s) is microseconds.
  return make_row(kOsuTool, "osu_bw", "byte", bytes, 2, static_cast<double>(bytes) / mbps,
                  mbps * 1e-3, wrong, place);
}

}  // namespace

std::vector<CollectiveRow> parse_nccl_tests_log(const std::string& text, const std::string& path,
                                                int ranks_override) {
  const std::vector<LogLine> lines = detail::log_lines(text);
  detail::NcclTestsContext context;
  std::vector<CollectiveRow> rows;
  for (const LogLine& line : lines) {
    const LogPlace place{path, line.number};
    const auto words = row_words(line);
    if (!words) {
      context.read(line.text, place);
      continue;
    }
    const detail::NcclTestsValues v = detail::read_nccl_tests_row(*words, context.columns(), place);
    const int ranks = ranks_override > 0 ? ranks_override : context.ranks();
    rows.push_back(make_row(kNcclTestsTool, context.op(), v.dtype, v.bytes, ranks, v.time_us,
                            v.busbw_gbps, v.wrong, place));
  }
  if (rows.empty()) fail_no_rows(lines, path, "nccl-tests");
  return rows;
}

std::vector<CollectiveRow> parse_osu_log(const std::string& text, const std::string& path) {
  const std::vector<LogLine> lines = detail::log_lines(text);
  std::size_t columns = 0;  // of the current table; 0 before the first header
  std::vector<CollectiveRow> rows;
  for (const LogLine& line : lines) {
    const LogPlace place{path, line.number};
    const auto words = row_words(line);
    if (!words) {
      const std::vector<std::string_view> header = detail::split_words(line.text);
      if (is_osu_bw_header(header, place)) columns = header.size() - 2;
      continue;
    }
    if (columns == 0) place.fail("table row before any '# Size Bandwidth (MB/s)' header");
    rows.push_back(read_osu_bw_row(*words, columns, place));
  }
  if (rows.empty()) fail_no_rows(lines, path, "OSU osu_bw");
  return rows;
}

}  // namespace scaletune::autotune
