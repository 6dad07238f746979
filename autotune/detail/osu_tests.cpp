#include "autotune/detail/osu_tests.hpp"

#include <array>

namespace scaletune::autotune::detail {

namespace {

using enum OsuMeasure;

/// The titles' test words (BENCHMARK strings of the OMB sources) and what their tables mean.
/// osu_reduce_scatter's Size is the whole send buffer, split among the ranks (recvcounts =
/// Size / ranks each), as nccl-tests' size; osu_bcast's is the broadcast buffer.
constexpr std::array kTests = {
    OsuTest{"osu_bw", "Bandwidth", "osu_bw", bandwidth_mbps, true, false, "byte"},
    OsuTest{"osu_latency", "Latency", "osu_latency", latency_us, true, false, "byte"},
    OsuTest{"osu_allreduce", "Allreduce Latency", "all_reduce", latency_us, false, false, "float"},
    OsuTest{"osu_allgather", "Allgather Latency", "all_gather", latency_us, false, true, "byte"},
    OsuTest{"osu_alltoall", "All-to-All Personalized Exchange Latency", "alltoall", latency_us,
            false, true, "byte"},
    OsuTest{"osu_reduce_scatter", "Reduce_scatter Latency", "reduce_scatter", latency_us, false,
            false, "float"},
    OsuTest{"osu_bcast", "Broadcast Latency", "broadcast", latency_us, false, false, "byte"},
};

/// "MPI", "NCCL", "RCCL", alone or with "-<accelerator>" ("MPI-CUDA", "NCCL-CUDA", "MPI-ROCM").
bool is_imported_library(std::string_view library) {
  for (const std::string_view base : {"MPI", "NCCL", "RCCL"})
    if (library == base || (library.starts_with(base) && library[base.size()] == '-')) return true;
  return false;
}

}  // namespace

const OsuTest* imported_osu_test(const OsuTitle& title) {
  if (!is_imported_library(title.library)) return nullptr;
  for (const OsuTest& test : kTests)
    if (title.test == test.title) return &test;
  return nullptr;
}

std::string imported_osu_programs() {
  std::string out;
  for (const OsuTest& test : kTests) out += (out.empty() ? "" : ", ") + std::string(test.program);
  return out;
}

}  // namespace scaletune::autotune::detail
