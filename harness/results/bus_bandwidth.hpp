#pragma once
// Algorithm and bus bandwidth of a collective, as nccl-tests defines them
// (NVIDIA/nccl-tests doc/PERFORMANCE.md): algbw = bytes / time; busbw = algbw x a factor of the
// op and the rank count, so that busbw compares with the links' peak whatever the rank count.
// GB = 1e9 bytes. No MPI, no NCCL: the harness's collective benchmark and the log import share it.

#include <cstdint>
#include <string_view>

namespace scaletune::results {

/// True when bus_factor() knows `op`: all_reduce; all_gather, all_gatherv, reduce_scatter,
/// alltoall, alltoallv; broadcast, reduce, sendrecv, p2p, osu_bw. Names match as
/// check_results.py matches them: case-insensitive, ignoring '_' and '-' ("allreduce",
/// "All-Reduce" and "all_reduce" are one op; so are "alltoall" and "all_to_all").
bool has_bus_factor(std::string_view op);

/// nccl-tests bus bandwidth factor of `op` (see has_bus_factor) on `n` ranks
/// (doc/PERFORMANCE.md): all_reduce 2(n-1)/n; all_gather(v), reduce_scatter, alltoall(v)
/// (n-1)/n; broadcast, reduce, sendrecv, p2p, osu_bw 1. Throws std::invalid_argument naming
/// the op for one has_bus_factor() does not know, and naming n when n < 1.
double bus_factor(std::string_view op, int n);

/// Algorithm bandwidth of `bytes` moved in `time_us` microseconds, GB/s:
/// bytes / (time_us x 1e-6 s) / 1e9 = bytes / time_us / 1e3. Throws std::invalid_argument when
/// bytes < 0 or time_us is not a positive finite number.
double algbw_gbps(std::int64_t bytes, double time_us);

}  // namespace scaletune::results
