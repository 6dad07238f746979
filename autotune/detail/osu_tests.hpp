#pragma once
// The OSU Micro-Benchmarks tests `scaletune import osu` reads, found by their title, and what the
// Size and the first value column of their tables mean. From the OMB sources (5.6 to 7.5):
// c/mpi/pt2pt/standard/osu_bw.c and osu_latency.c, c/mpi/collective/blocking/osu_allreduce.c,
// osu_allgather.c, osu_alltoall.c, osu_reduce_scatter.c, osu_bcast.c, their c/xccl/ forms
// (osu_xccl_*: NCCL or RCCL), and c/util/osu_util_mpi.c (print_only_header, print_stats).

#include <string>
#include <string_view>

#include "autotune/detail/osu_title.hpp"

namespace scaletune::autotune::detail {

/// What the column after Size measures.
enum class OsuMeasure {
  bandwidth_mbps,  ///< "Bandwidth (MB/s)", MB = 1e6 bytes (osu_bw)
  latency_us,      ///< "Avg Latency(us)" (older osu_latency: "Latency (us)"): the mean over
                   ///< ranks of each rank's mean time of one operation; osu_latency prints half
                   ///< the round trip of a ping-pong, the one-way latency
};

/// One OSU test that is imported.
struct OsuTest {
  std::string_view program;  ///< "osu_allgather" (the osu_xccl_* forms print the same table)
  std::string_view title;    ///< title words between the library and "Test"
  std::string_view op;       ///< /collectives op: "all_gather", ...; "osu_bw", "osu_latency"
  OsuMeasure measure;
  /// Runs on exactly 2 ranks (osu_bw, osu_latency); else on the job's rank count, which OSU
  /// does not print.
  bool point_to_point = false;
  /// Size is each rank's block (MPI_Allgather's send count, MPI_Alltoall's count per
  /// destination) rather than the whole buffer nccl-tests' size counts: bytes = Size x ranks.
  bool size_per_rank = false;
  /// Element type when no "# Datatype:" line names one (OMB before 7.1, osu_xccl_*): the
  /// reductions sum floats, the others move chars.
  std::string_view dtype;
};

/// The imported test `title` names: library "MPI", "MPI-<accelerator>", "NCCL[-<accelerator>]"
/// or "RCCL[-<accelerator>]" and a test of the table in osu_tests.cpp; nullptr for any other
/// (osu_bibw, osu_put_latency, osu_iallreduce, osu_reduce, ...).
const OsuTest* imported_osu_test(const OsuTitle& title);

/// The imported tests' programs for messages: "osu_bw, osu_latency, osu_allreduce, ...".
std::string imported_osu_programs();

}  // namespace scaletune::autotune::detail
