#pragma once
// The title line an OSU Micro-Benchmarks program prints first ("# OSU MPI-CUDA Bandwidth Test
// v7.5"), which tells osu_bw from the tests that print the same table header (osu_bibw,
// osu_put_bw, ...).

#include <optional>
#include <string>
#include <string_view>

namespace scaletune::autotune::detail {

/// What an OSU title names. OSU prints "# OSU <library><accelerator> <test> Test v<version>"
/// (each benchmark's BENCHMARK string, e.g. "OSU MPI%s Bi-Directional Bandwidth Test", with
/// "-CUDA", "-ROCm", "-OpenACC" or "" for %s).
struct OsuTitle {
  std::string library;  ///< "MPI", "MPI-CUDA", "MPI_Put", "OpenSHMEM", ...
  std::string test;     ///< "Bandwidth", "Bi-Directional Bandwidth", "Latency", ...

  /// True for osu_bw, the one-way bandwidth test: library "MPI" or "MPI-<accelerator>", test
  /// "Bandwidth".
  bool is_osu_bw() const;
};

/// The title `line` holds ("# OSU <library> <test words> Test ..."); nullopt for any other line.
std::optional<OsuTitle> osu_title(std::string_view line);

}  // namespace scaletune::autotune::detail
