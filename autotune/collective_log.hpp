#pragma once
// Collective benchmark logs read into the rows that /collectives stores: nccl-tests tables
// (current and 2019-2020 formats) and OSU Micro-Benchmarks osu_bw tables.

#include <string>
#include <vector>

#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// One measured row of a collective benchmark log: what /collectives stores
/// (results::CollectiveResult). The parsers below fill it as follows. op: "all_reduce",
/// "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce", "sendrecv", ... as the
/// nccl-tests binary names it, "osu_bw" for OSU, "unknown" when the log does not name it.
/// dtype: as printed ("float", "double", "half", ...); OSU "byte". bytes: the size column.
/// ranks: the run's rank count (nccl-tests: the "# Rank" lines; OSU bandwidth: 2), 0 when
/// unknown. time_us: the out-of-place time (OSU: bytes / bandwidth). algbw_gbps: recomputed as
/// results::algbw_gbps(bytes, time_us). busbw_gbps: algbw_gbps x results::bus_factor(op,
/// ranks), or the printed busbw where op or ranks is unknown. wrong: the out-of-place "#wrong"
/// count, -1 when the log has none; old "error" column: 0 when the error is 0, else -1; OSU
/// validation "Pass" 0, otherwise -1. source: "nccl-tests:path:line" or "osu:path:line".
using CollectiveRow = results::CollectiveResult;

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

}  // namespace scaletune::autotune
