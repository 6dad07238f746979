#pragma once
// The title line an OSU Micro-Benchmarks program prints first ("# OSU MPI-CUDA Bandwidth Test
// v7.5", "# OSU NCCL-CUDA Allreduce Latency Test v7.5"), which names the test whose table
// follows: tests with different meanings print the same table header.

#include <optional>
#include <string>
#include <string_view>

namespace scaletune::autotune::detail {

/// What an OSU title names. OSU prints "# OSU <library><accelerator> <test> Test v<version>"
/// (each benchmark's BENCHMARK string, e.g. "OSU MPI%s Allreduce Latency Test", with "-CUDA",
/// "-ROCM", "-OPENACC" or "" for %s; the osu_xccl_* programs print "OSU NCCL%s ..." or
/// "OSU RCCL%s ...").
struct OsuTitle {
  std::string library;  ///< "MPI", "MPI-CUDA", "NCCL-CUDA", "MPI_Put", "OpenSHMEM", ...
  std::string test;     ///< "Bandwidth", "Latency", "Allreduce Latency", ...
};

/// The title `line` holds ("# OSU <library> <test words> Test ..."); nullopt for any other line.
std::optional<OsuTitle> osu_title(std::string_view line);

}  // namespace scaletune::autotune::detail
