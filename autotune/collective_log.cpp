#include "autotune/collective_log.hpp"

#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "autotune/detail/log_text.hpp"
#include "autotune/detail/nccl_tests_context.hpp"

namespace scaletune::autotune {

namespace {

using detail::LogLine;
using detail::LogPlace;

/// Factor by which busbw exceeds algbw (NVIDIA/nccl-tests doc/PERFORMANCE.md); nullopt for an
/// op without one. Each rank of an all-reduce sends and receives 2(n-1)/n of the buffer
/// (reduce-scatter then all-gather); all-gather, reduce-scatter and all-to-all move (n-1)/n;
/// broadcast, reduce and point-to-point move the buffer once.
std::optional<double> known_bus_factor(std::string_view op, int n) {
  const double ranks = n;
  if (op == "all_reduce") return 2.0 * (ranks - 1.0) / ranks;
  if (op == "all_gather" || op == "reduce_scatter" || op == "alltoall")
    return (ranks - 1.0) / ranks;
  if (op == "broadcast" || op == "reduce" || op == "sendrecv" || op == "p2p" || op == "osu_bw")
    return 1.0;
  return std::nullopt;
}

/// GB/s (1e9 bytes/s) of `bytes` moved in `time_us` microseconds.
double gbps(std::int64_t bytes, double time_us) {
  return static_cast<double>(bytes) / time_us * 1e-3;
}

/// A row with algbw recomputed from bytes and time, and busbw from the bus factor where op and
/// ranks give one, else `printed_busbw_gbps`.
CollectiveRow make_row(std::string op, std::string dtype, std::int64_t bytes, int ranks,
                       double time_us, double printed_busbw_gbps, std::int64_t wrong,
                       const LogPlace& place) {
  CollectiveRow row{std::move(op),        std::move(dtype),   bytes, ranks,      time_us,
                    gbps(bytes, time_us), printed_busbw_gbps, wrong, place.str()};
  if (ranks > 0)
    if (const auto factor = known_bus_factor(row.op, ranks))
      row.busbw_gbps = row.algbw_gbps * *factor;
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
  const double mbps = detail::read_number(words[1], "Bandwidth", place);
  if (mbps <= 0.0) place.fail("column 'Bandwidth': expected a bandwidth > 0 MB/s");
  const std::int64_t wrong = columns == 3 && words[2] == "Pass" ? 0 : -1;
  // MB/s = 1e6 bytes/s = bytes/us, so bytes / (MB/s) is microseconds.
  return make_row("osu_bw", "byte", bytes, 2, static_cast<double>(bytes) / mbps, mbps * 1e-3, wrong,
                  place);
}

}  // namespace

double bus_factor(const std::string& op, int n) {
  if (n < 1)
    throw std::invalid_argument("bus_factor: rank count must be >= 1, got " + std::to_string(n));
  const auto factor = known_bus_factor(op, n);
  if (!factor) throw std::invalid_argument("bus_factor: no bus factor for op '" + op + "'");
  return *factor;
}

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
    rows.push_back(
        make_row(context.op(), v.dtype, v.bytes, ranks, v.time_us, v.busbw_gbps, v.wrong, place));
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
