#include "autotune/collective_log.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "autotune/detail/log_table.hpp"
#include "autotune/detail/log_text.hpp"
#include "autotune/detail/nccl_tests_context.hpp"
#include "autotune/detail/osu_context.hpp"
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

/// results::algbw_gbps of `bytes` in `time_us`; throws at `place` when the time is not finite
/// and > 0 or the bandwidth overflows (a huge size in a tiny time, a bandwidth near 0), also
/// once multiplied by a bus factor.
double checked_algbw_gbps(std::int64_t bytes, double time_us, const LogPlace& place) {
  if (!std::isfinite(time_us) || time_us <= 0.0)
    place.fail("size " + std::to_string(bytes) + " B gives a time of " + std::to_string(time_us) +
               " us; expected a finite time > 0");
  const double algbw = results::algbw_gbps(bytes, time_us);
  if (!(algbw <= std::numeric_limits<double>::max() / 2))  // x 2, the largest bus factor
    place.fail("size " + std::to_string(bytes) + " B in " + std::to_string(time_us) +
               " us is no finite bandwidth; expected a size and time a benchmark can measure");
  return algbw;
}

/// A row with algbw recomputed from bytes and time, and busbw from the bus factor where op and
/// ranks give one, else `printed_busbw_gbps`; its source is "<tool>:path:line". Throws at
/// `place` when time and bytes give no finite bandwidth (checked_algbw_gbps).
CollectiveRow make_row(std::string_view tool, std::string op, std::string dtype, std::int64_t bytes,
                       int ranks, double time_us, double printed_busbw_gbps, std::int64_t wrong,
                       const LogPlace& place) {
  CollectiveRow row{.op = std::move(op),
                    .dtype = std::move(dtype),
                    .bytes = bytes,
                    .ranks = ranks,
                    .time_us = time_us,
                    .algbw_gbps = checked_algbw_gbps(bytes, time_us, place),
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

/// /collectives bytes of an OSU row of `size` on `ranks` ranks: Size x ranks where OSU prints
/// each rank's block (osu_allgather, osu_alltoall), else Size. Throws at `place` when that needs
/// the rank count and `ranks` is 0, or when Size x ranks does not fit in 64 bits.
std::int64_t osu_message_bytes(const detail::OsuTest& test, std::int64_t size, int ranks,
                               const LogPlace& place) {
  if (!test.size_per_rank) return size;
  if (ranks == 0)
    place.fail(std::string(test.program) +
               " prints the size of each rank's block; /collectives stores the whole buffer "
               "(nccl-tests' size: Size x ranks), and OSU does not print the rank count: give "
               "it (scaletune import osu --ranks N)");
  if (size > std::numeric_limits<std::int64_t>::max() / ranks)
    place.fail("Size " + std::to_string(size) + " x " + std::to_string(ranks) +
               " ranks does not fit in 64 bits; expected a size a benchmark can allocate");
  return size * ranks;
}

/// One OSU table row read with the current table of `context`. ranks: 2 for osu_bw and
/// osu_latency, else `collective_ranks`. time_us: bytes / bandwidth (MB/s = bytes/us) or the
/// printed latency. busbw where no bus factor applies: algbw for the point-to-point tests (one
/// message over one link), 0 (unknown) for collectives of unknown rank count.
CollectiveRow read_osu_row(const Words& words, const detail::OsuContext& context,
                           int collective_ranks, const LogPlace& place) {
  const detail::OsuTest* test = context.test();
  if (test == nullptr) place.fail("table row before any OSU '# Size ...' header");
  const detail::OsuValues v = detail::read_osu_row(words, context.columns(), place);
  const int ranks = test->point_to_point ? 2 : collective_ranks;
  const std::int64_t bytes = osu_message_bytes(*test, v.size, ranks, place);
  const bool bandwidth = test->measure == detail::OsuMeasure::bandwidth_mbps;
  const double time_us = bandwidth ? static_cast<double>(bytes) / v.measure : v.measure;
  const double busbw_gbps = test->point_to_point ? checked_algbw_gbps(bytes, time_us, place) : 0.0;
  return make_row(kOsuTool, std::string(test->op), context.dtype(), bytes, ranks, time_us,
                  busbw_gbps, v.wrong, place);
}

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
    rows.back().nodes = context.nodes();
  }
  if (rows.empty()) fail_no_rows(lines, path, "nccl-tests");
  return rows;
}

std::vector<CollectiveRow> parse_osu_log(const std::string& text, const std::string& path,
                                         int collective_ranks) {
  if (collective_ranks < 0)
    throw std::invalid_argument("rank count " + std::to_string(collective_ranks) +
                                ": expected >= 1, or 0 for unknown");
  const std::vector<LogLine> lines = detail::log_lines(text);
  detail::OsuContext context;
  std::vector<CollectiveRow> rows;
  bool collective = false;
  for (const LogLine& line : lines) {
    const LogPlace place{path, line.number};
    const Words words = detail::split_words(line.text);
    if (!is_row(words)) {
      detail::expect_no_unreadable_row(words, context.in_table(), context.row_width(), "Size",
                                       place);
      context.read(words, line.text, place);
      continue;
    }
    rows.push_back(read_osu_row(words, context, collective_ranks, place));
    collective = collective || !context.test()->point_to_point;
    context.read_row();
  }
  if (rows.empty()) fail_no_rows(lines, path, "OSU");
  if (collective_ranks > 0 && !collective)
    LogPlace{path, lines.back().number}.fail(
        "a rank count is given (--ranks " + std::to_string(collective_ranks) +
        ") but the log holds only osu_bw and osu_latency tables, which run on 2 ranks; the rank "
        "count is for OSU collective tables");
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
