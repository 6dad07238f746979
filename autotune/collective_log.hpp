#pragma once
// Collective benchmark logs read into the rows that /collectives stores: nccl-tests tables
// (current and 2019-2020 formats) and OSU Micro-Benchmarks osu_bw tables.

#include <cstdint>
#include <string>
#include <vector>

namespace scaletune::autotune {

/// One measured row of a collective benchmark log: what /collectives stores.
struct CollectiveRow {
  /// "all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce",
  /// "sendrecv", "osu_bw", ...; "unknown" when the log does not name it.
  std::string op;
  /// Element type as printed ("float", "double", "half", ...); OSU: "byte".
  std::string dtype;
  /// Message size as printed in the size column, bytes.
  std::int64_t bytes = 0;
  /// Rank count of the run (nccl-tests: the "# Rank" lines; OSU bandwidth: 2); 0 when unknown.
  int ranks = 0;
  /// Out-of-place time, microseconds (OSU: bytes / bandwidth).
  double time_us = 0.0;
  /// bytes / time, GB/s (GB = 1e9 bytes), recomputed from bytes and time_us.
  double algbw_gbps = 0.0;
  /// algbw_gbps x bus_factor(op, ranks); the printed busbw where op or ranks is unknown.
  double busbw_gbps = 0.0;
  /// Out-of-place "#wrong" count; -1 when the log has none. Old "error" column: 0 when the
  /// error is 0, else -1. OSU validation: "Pass" 0, otherwise -1.
  std::int64_t wrong = -1;
  /// "path:line" of the row in the log.
  std::string source;
};

/// Rows of an nccl-tests log, in file order. `text` is the whole log, `path` names it in
/// `source` and in messages. The op comes from the "<op>_perf" binary named in a command line
/// or a "# Collective test starting:" line, or from a "# op: <op>" comment; the column layout
/// from each table's "#  size  count  type ..." header (the current 13-column layout until one
/// is seen); the rank count from the "#  Rank N" lines of the test. `ranks_override` > 0
/// replaces that count. Lines that are not table rows (a row starts with an unsigned integer)
/// are skipped; `srun -l` ("0: ") and `mpirun --tag-output` ("[1,0]<stdout>:") prefixes are
/// stripped first. Throws std::invalid_argument "path:line: what" for a row it cannot read
/// (wrong column count, non-numbers, time <= 0) and "path:last line: ..." when the log holds no
/// table row.
std::vector<CollectiveRow> parse_nccl_tests_log(const std::string& text, const std::string& path,
                                                int ranks_override = 0);

/// Rows of an OSU osu_bw log (one or more "# Size  Bandwidth (MB/s)  [Validation]" tables),
/// in file order: op "osu_bw", dtype "byte", ranks 2, time_us = bytes / bandwidth
/// (MB = 1e6 bytes, as osu_bw computes it). Prefixes are stripped as for nccl-tests. Throws
/// std::invalid_argument "path:line: what" for a row it cannot read, a row before any header, a
/// "# Size" header with other columns, a bandwidth <= 0, and when the log holds no table row.
std::vector<CollectiveRow> parse_osu_log(const std::string& text, const std::string& path);

/// nccl-tests bus bandwidth factor for `op` on `n` ranks (NVIDIA/nccl-tests doc/PERFORMANCE.md):
/// all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall (n-1)/n; broadcast, reduce,
/// sendrecv, p2p, osu_bw 1. Throws std::invalid_argument for another op or n < 1.
double bus_factor(const std::string& op, int n);

}  // namespace scaletune::autotune
