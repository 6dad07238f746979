// Embedding-bag forward against a STREAM-style triad (a[i] = b[i] + s * c[i]) on the same
// machine in the same iteration: both are timed with steady_clock inside each iteration, so
// drifting load hits both alike. Tables are far larger than the caches; bags draw rows
// uniformly (DLRM's memory-bound case), 4096 bags of 32 lookups each.
// Arguments: rows, dim, and whether the table asks for transparent huge pages
// (madvise(MADV_HUGEPAGE); Debian's default THP mode is "madvise"), which spares a TLB miss
// per random row. Counters: emb_GBps (table rows read + pooled rows written, bytes / s; index reads
// not counted), triad_GBps (3 arrays of 2^24 floats per pass, STREAM's count), emb/triad (their
// ratio; issue 4 target >= 0.5). Run: build/bench/bench_embedding_bag --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <sys/mman.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "kernels/host/embedding_bag.hpp"
#include "kernels/host/lookup_inputs.hpp"

namespace {

using scaletune::kernels::IndexVector;
using scaletune::kernels::Tensor2;
using Clock = std::chrono::steady_clock;

constexpr std::int64_t kBags = 4096;
constexpr double kPooling = 32;
constexpr std::size_t kTriadFloats = std::size_t{1} << 24;  // 64 MiB per array

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One pass of the triad over the three arrays.
void triad(std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c) {
  const float s = 3.0f;
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = b[i] + s * c[i];
  benchmark::ClobberMemory();
}

void BM_EmbeddingBagVsTriad(benchmark::State& state) {
  const std::int64_t rows = state.range(0);
  const auto dim = static_cast<std::size_t>(state.range(1));
  const std::size_t table_bytes = static_cast<std::size_t>(rows) * dim * sizeof(float);
  void* raw = std::aligned_alloc(std::size_t{1} << 21, table_bytes);  // a multiple of 2 MiB
  if (raw == nullptr) {
    state.SkipWithError("cannot allocate the table");
    return;
  }
  if (state.range(2) != 0) madvise(raw, table_bytes, MADV_HUGEPAGE);
  const Tensor2 table(static_cast<float*>(raw), static_cast<std::size_t>(rows), dim);
  Kokkos::deep_copy(table, 0.5f);
  scaletune::kernels::LookupBatchSpec spec;
  spec.batch = kBags;
  spec.pooling = kPooling;
  spec.bag_law = scaletune::kernels::BagSizeLaw::fixed;
  spec.rows = rows;
  spec.seed = 7;
  scaletune::kernels::LookupBatch batch = scaletune::kernels::generate_lookup_batch(spec);
  const IndexVector indices(batch.indices.data(), batch.indices.size());
  const IndexVector offsets(batch.offsets.data(), batch.offsets.size());
  const Tensor2 out("out", kBags, dim);
  std::vector<float> a(kTriadFloats), b(kTriadFloats, 1.0f), c(kTriadFloats, 2.0f);
  double emb_s = 0, triad_s = 0;
  for (auto _ : state) {
    const auto start = Clock::now();
    scaletune::kernels::embedding_bag_forward(table, indices, offsets,
                                              scaletune::kernels::Pooling::kSum, out);
    Kokkos::fence();
    emb_s += seconds_since(start);
    const auto mid = Clock::now();
    triad(a, b, c);
    triad_s += seconds_since(mid);
  }
  const double n = static_cast<double>(state.iterations());
  const double emb_bytes = static_cast<double>((batch.indices.size() + kBags) * dim * 4);
  const double triad_bytes = 3.0 * kTriadFloats * 4;
  state.counters["emb_GBps"] = emb_bytes * n / emb_s / 1e9;
  state.counters["triad_GBps"] = triad_bytes * n / triad_s / 1e9;
  state.counters["emb/triad"] = (emb_bytes / emb_s) / (triad_bytes / triad_s);
  std::free(raw);
}

// 2^22 rows x 64 and 2^21 rows x 128 floats: 1 GiB tables, with 4 KiB and with huge pages.
BENCHMARK(BM_EmbeddingBagVsTriad)
    ->Args({std::int64_t{1} << 22, 64, 0})
    ->Args({std::int64_t{1} << 22, 64, 1})
    ->Args({std::int64_t{1} << 21, 128, 0})
    ->Args({std::int64_t{1} << 21, 128, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
