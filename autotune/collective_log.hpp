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
/// validation "Pass" 0, "Fail" 1 (at least one wrong element: OSU does not count them), -1
/// without a validation column. in_place: false. source: "nccl-tests:path:line" or
/// "osu:path:line".
using CollectiveRow = results::CollectiveResult;

/// Rows of an nccl-tests log, in file order. `text` is the whole log, `path` names it in
/// `source` and in messages. The op comes from the "<op>_perf" binary named in a command line
/// or a "# Collective test starting:" line, or from a "# op: <op>" comment; the column layout
/// from each table's "#  size  count  type ..." header (the current 13-column layout until one
/// is seen); the rank count from the "#  Rank N" lines of the test. A table row starts with an
/// unsigned integer. `srun -l` ("0: ") and `mpirun --tag-output` ("[1,0]<stdout>:") prefixes
/// are stripped first; other lines are skipped (shell prompts, NCCL INFO lines, "..."
/// elisions, blank lines, text outside tables), except lines that can only be broken rows:
/// inside a table (from its header or first row to a blank or comment line or a new test), a
/// first field that is number-like but no unsigned integer ("-16", "+16", "16.5", "1e3",
/// "16k"), or as many fields as a row with a first field that is none. Throws
/// std::invalid_argument "path:line: what" for a row it cannot read (such a line, wrong column
/// count, non-numbers, time <= 0) and "path:last line: ..." when the log holds no table row.
std::vector<CollectiveRow> parse_nccl_tests_log(const std::string& text, const std::string& path);

/// Rows of an OSU osu_bw log (one or more "# OSU MPI[-CUDA|-ROCm...] Bandwidth Test" titles,
/// each followed by a "# Size  Bandwidth (MB/s)  [Validation]" table), in file order: op
/// "osu_bw", dtype "byte", ranks 2, time_us = bytes / bandwidth (MB = 1e6 bytes, as osu_bw
/// computes it). Prefixes are stripped and lines skipped as for nccl-tests, with the same rule
/// for lines that can only be broken rows. Throws std::invalid_argument "path:line: what" for
/// the title of another OSU test (osu_bibw, osu_latency, osu_put_bw, ...: only the one-way
/// bandwidth of osu_bw is imported), a header before any osu_bw title (osu_bibw prints the
/// same header), a row it cannot read, a row before any header, a "# Size" header with other
/// columns, a bandwidth <= 0, a validation other than Pass or Fail, and when the log holds no
/// table row.
std::vector<CollectiveRow> parse_osu_log(const std::string& text, const std::string& path);

/// `rows` with every rank count set to `ranks` (`scaletune import --ranks`) and busbw
/// recomputed as algbw x results::bus_factor(op, ranks) where the op has one (else busbw
/// stays as it was). Throws std::invalid_argument when ranks < 1.
std::vector<CollectiveRow> with_rank_count(std::vector<CollectiveRow> rows, int ranks);

}  // namespace scaletune::autotune
