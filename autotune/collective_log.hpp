#pragma once
// Collective benchmark logs read into the rows that /collectives stores: nccl-tests tables
// (current and 2019-2020 formats) and OSU Micro-Benchmarks tables (osu_bw, osu_latency and the
// blocking collective latency tests).

#include <string>
#include <vector>

#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// One measured row of a collective benchmark log: what /collectives stores
/// (results::CollectiveResult). The parsers below fill it as follows. op: "all_reduce",
/// "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce", "sendrecv", ... as the
/// nccl-tests binary names it (OSU collectives: the same names), "osu_bw" and "osu_latency" for
/// the OSU point-to-point tests, "unknown" when the log does not name it. dtype: as printed
/// ("float", "double", "half", ...); OSU: "byte", "int32" or "float" (parse_osu_log). bytes:
/// the size column (OSU osu_allgather, osu_alltoall: Size x ranks). ranks: the run's rank count
/// (nccl-tests: the "# Rank" lines; OSU: 2 for osu_bw and osu_latency, else as given), 0 when
/// unknown. time_us: the out-of-place time (OSU: bytes / bandwidth, or the average latency).
/// algbw_gbps: recomputed as results::algbw_gbps(bytes, time_us). busbw_gbps: algbw_gbps x
/// results::bus_factor(op, ranks), or where op or ranks is unknown the printed busbw
/// (nccl-tests), algbw (osu_latency: one message over one link), 0 (OSU collectives of unknown
/// rank count: OSU prints no bandwidth). wrong: the out-of-place "#wrong" count, -1 when the
/// log has none; old "error" column: 0 when the error is 0, else -1; OSU validation "Pass" 0,
/// "Fail" 1 (at least one wrong element: OSU does not count them), -1 without a validation
/// column. in_place: false. nodes: the distinct hosts of nccl-tests' "# Rank N ... on HOST"
/// lines (0 without them); OSU: 0 (its logs do not name hosts). source: "nccl-tests:path:line"
/// or "osu:path:line".
using CollectiveRow = results::CollectiveResult;

/// Nodes a row ran on, as the models place it: 0 (unknown) is taken as 1.
inline int nodes_of(const CollectiveRow& row) {
  return row.nodes > 1 ? row.nodes : 1;
}

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

/// Rows of an OSU Micro-Benchmarks log, in file order: one or more tables, each after the title
/// line of its test ("# OSU MPI[-CUDA|-ROCM...] <test> Test v<version>"; osu_xccl_*: "# OSU
/// NCCL-CUDA ...", "# OSU RCCL-ROCM ...") and its "# Size ..." header. Imported: osu_bw
/// ("Bandwidth"; op "osu_bw", time_us = bytes / bandwidth, MB = 1e6 bytes as osu_bw computes
/// it), osu_latency ("Latency"; op "osu_latency", time_us = the printed latency, half the
/// ping-pong round trip), and the collectives osu_allreduce ("Allreduce Latency"; all_reduce),
/// osu_allgather ("Allgather Latency"; all_gather), osu_alltoall ("All-to-All Personalized
/// Exchange Latency"; alltoall), osu_reduce_scatter ("Reduce_scatter Latency"; reduce_scatter)
/// and osu_bcast ("Broadcast Latency"; broadcast), time_us = "Avg Latency(us)" (the mean over
/// ranks of each rank's mean time). Headers: "# Size" then the measure ("Bandwidth (MB/s)",
/// "Avg Latency(us)" or the older "Latency (us)"), then any of -f's "Min Latency(us) Max
/// Latency(us) Iterations", -c's "Validation" and --tail-lat's "P<n> Tail Lat(us)" ("P<n> Tail
/// BW(MB/s)") columns. dtype: from a "# Datatype: MPI_CHAR|MPI_INT|MPI_FLOAT." line after the
/// title ("byte", "int32", "float"), else what the test used before OMB 7.1 printed the line:
/// "float" for osu_allreduce and osu_reduce_scatter (and their osu_xccl_* forms), "byte" for
/// the others. bytes: OSU's Size, which for osu_allgather and osu_alltoall is each rank's block
/// (MPI_Allgather's send count, MPI_Alltoall's count per destination), so those rows store
/// Size x ranks, the whole buffer nccl-tests' size counts (osu_reduce_scatter's Size is already
/// the whole send buffer; osu_allreduce's and osu_bcast's the buffer). ranks: 2 for osu_bw and
/// osu_latency; `collective_ranks` for the collectives (OSU does not print the rank count:
/// scaletune import --ranks), 0 for unknown. Prefixes are stripped and lines skipped as for
/// nccl-tests, with the same rule for lines that can only be broken rows. Throws
/// std::invalid_argument "path:line: what" for the title of another OSU test (osu_bibw,
/// osu_put_latency, osu_iallreduce, osu_reduce, ...), a header before any title, a header with
/// columns OSU does not print for the test, an unknown datatype, a row before any header, a row
/// it cannot read (wrong column count, non-numbers, a measure <= 0, a bandwidth row of Size 0, a
/// validation other than Pass or Fail), an osu_allgather or osu_alltoall row when
/// `collective_ranks` is 0, a log without a table row, and a `collective_ranks` > 0 for a log
/// without a collective table; std::invalid_argument when collective_ranks < 0.
std::vector<CollectiveRow> parse_osu_log(const std::string& text, const std::string& path,
                                         int collective_ranks = 0);

/// `rows` with every rank count set to `ranks` (`scaletune import nccl-tests --ranks`; OSU logs
/// take theirs in parse_osu_log) and busbw
/// recomputed as algbw x results::bus_factor(op, ranks) where the op has one (else busbw
/// stays as it was). Throws std::invalid_argument when ranks < 1.
std::vector<CollectiveRow> with_rank_count(std::vector<CollectiveRow> rows, int ranks);

}  // namespace scaletune::autotune
