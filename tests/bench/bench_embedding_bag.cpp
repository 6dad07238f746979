// Embedding-bag forward against a STREAM-style triad (a[i] = b[i] + s * c[i]) on the same
// machine in the same iteration: both are timed with steady_clock inside each iteration, so
// drifting load hits both alike. Tables (HugePageBuffer, 2 GiB) are far larger than the caches;
// bags of `pooling` lookups draw rows uniformly (DLRM's memory-bound case), 4096 bags a batch.
// Arguments: rows, dim, pooling, and huge (1: the buffer's MADV_HUGEPAGE advice, sparing a TLB
// miss per random row; 0: MADV_NOHUGEPAGE, 4 KiB pages). BM_Bf16EmbeddingBagVsTriad and
// BM_Fp16EmbeddingBagVsTriad run the same forward over the same rows stored in 16 bits;
// BM_HalfVsFp32Forward runs all three, on every fp32 shape, in every iteration and reports
// fp32_ns, bf16_ns and fp16_ns per lookup and the ratios bf16/fp32 and fp16/fp32 (wall time;
// cpu_... the same in thread CPU time), the figures of merit of 16-bit tables.
// Counters: ns_per_lookup (wall time of the forward alone per index, ns), cpu_ns_per_lookup (the
// same in this thread's CPU time, which a busy shared machine's preemptions do not inflate),
// emb_GBps (table bytes actually read, 4 per fp32 value and 2 per fp16 or bf16 value,
// + fp32 pooled rows written, bytes / s; index reads not counted), triad_GBps (3 arrays of 2^24
// floats per pass, STREAM's count), emb/triad (their ratio; issue 4 target >= 0.5), huge_frac
// (share of the table the kernel backs with huge pages, from /proc/self/smaps); the label names
// the instruction-set variant the ops picked (best_host_isa()).
// Two probes of what the core can do at all: BM_RandomRowReadVsTriad reads the same kind of
// random rows with one load per cache line and nothing else (the random-read ceiling, bytes as
// emb_GBps), BM_RandomRowLatency follows a chain of dependent random rows (ns per row). Their
// product / 64 B is the number of cache lines the core keeps in flight. BM_SparseSgdStep (and
// its Bf16 and Fp16 forms) times sparse_sgd_step on the rows one batch touches: ns_per_row and
// cpu_ns_per_row per touched row, where a 16-bit table pays two conversions per value.
// Run: build/bench/bench_embedding_bag --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <sys/mman.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "kernels/host/embedding_bag.hpp"
#include "kernels/host/host_isa.hpp"
#include "kernels/host/huge_page_buffer.hpp"
#include "kernels/host/lookup_inputs.hpp"
#include "kernels/host/sparse_optimizer.hpp"

namespace {

using scaletune::kernels::HugePageBuffer;
using scaletune::kernels::IndexVector;
using scaletune::kernels::Tensor2;
using Clock = std::chrono::steady_clock;

constexpr std::int64_t kBags = 4096;
constexpr std::size_t kTriadFloats = std::size_t{1} << 24;  // 64 MiB per array
constexpr std::size_t kLineBytes = 64;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// CPU time this thread has used, seconds (CLOCK_THREAD_CPUTIME_ID).
double thread_cpu_s() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

/// Labels a run with the instruction-set variant the ops picked ("avx512", "avx2", "baseline").
void label_with_isa(benchmark::State& state) {
  state.SetLabel(std::string(scaletune::kernels::to_string(scaletune::kernels::best_host_isa())));
}

/// STREAM's triad over three arrays of kTriadFloats floats; run() times one pass.
class Triad {
 public:
  Triad() : m_a(kTriadFloats), m_b(kTriadFloats, 1.0f), m_c(kTriadFloats, 2.0f) {}
  /// Seconds of one pass.
  double run() {
    const auto start = Clock::now();
    const float s = 3.0f;
    for (std::size_t i = 0; i < m_a.size(); ++i) m_a[i] = m_b[i] + s * m_c[i];
    benchmark::ClobberMemory();
    return seconds_since(start);
  }
  /// Bytes one pass moves, STREAM's count (no write-allocate traffic).
  static constexpr double bytes() { return 3.0 * kTriadFloats * sizeof(float); }

 private:
  std::vector<float> m_a, m_b, m_c;
};

/// Fraction of the mapping holding `p` that the kernel backs with huge pages (AnonHugePages /
/// Size of its /proc/self/smaps entry); 0 when not found.
double huge_page_fraction(const void* p) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  double size_kb = 0;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= address && address < end;
      continue;
    }
    if (!inside) continue;
    std::istringstream field(line);
    std::string key;
    double kb = 0;
    field >> key >> kb;
    if (key == "Size:") size_kb = kb;
    if (key == "AnonHugePages:") return size_kb > 0 ? kb / size_kb : 0.0;
  }
  return 0.0;
}

/// A [rows, dim] table of T (float, Eigen::half or Eigen::bfloat16) in a HugePageBuffer, on huge
/// pages or (huge = false) advised off them before the first touch, then filled with 0.5.
template <class T>
struct Table {
  using View = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  Table(std::int64_t rows, std::size_t dim, bool huge)
      : buffer(rows * static_cast<std::int64_t>(dim * sizeof(T))) {
    if (!huge) madvise(buffer.floats(), static_cast<std::size_t>(buffer.bytes()), MADV_NOHUGEPAGE);
    view = View(reinterpret_cast<T*>(buffer.floats()), static_cast<std::size_t>(rows), dim);
    Kokkos::deep_copy(view, static_cast<T>(0.5f));
  }
  HugePageBuffer buffer;
  View view;
};

/// kBags bags of exactly `pooling` uniform rows of a `rows`-row table (seed 7).
scaletune::kernels::LookupBatch uniform_bags(std::int64_t rows, std::int64_t pooling) {
  scaletune::kernels::LookupBatchSpec spec;
  spec.batch = kBags;
  spec.pooling = static_cast<double>(pooling);
  spec.bag_law = scaletune::kernels::BagSizeLaw::fixed;
  spec.rows = rows;
  spec.seed = 7;
  return scaletune::kernels::generate_lookup_batch(spec);
}

/// Sets the emb_GBps, triad_GBps and emb/triad counters from totals over all iterations.
void set_ratio_counters(benchmark::State& state, double emb_bytes, double emb_s, double triad_s) {
  const auto n = static_cast<double>(state.iterations());
  state.counters["emb_GBps"] = emb_bytes * n / emb_s / 1e9;
  state.counters["triad_GBps"] = Triad::bytes() * n / triad_s / 1e9;
  state.counters["emb/triad"] = (emb_bytes / emb_s) / (Triad::bytes() / triad_s);
}

/// Forward over a table stored as T (float, Eigen::half or Eigen::bfloat16; pooled in fp32).
template <class T>
void BM_EmbeddingBagVsTriad(benchmark::State& state) {
  const std::int64_t rows = state.range(0);
  const auto dim = static_cast<std::size_t>(state.range(1));
  Table<T> table(rows, dim, state.range(3) != 0);
  scaletune::kernels::LookupBatch batch = uniform_bags(rows, state.range(2));
  const IndexVector indices(batch.indices.data(), batch.indices.size());
  const IndexVector offsets(batch.offsets.data(), batch.offsets.size());
  const Tensor2 out("out", kBags, dim);
  Triad triad;
  double emb_s = 0, emb_cpu_s = 0, triad_s = 0;
  for (auto _ : state) {
    const auto start = Clock::now();
    const double cpu_start = thread_cpu_s();
    scaletune::kernels::embedding_bag_forward(table.view, indices, offsets,
                                              scaletune::kernels::Pooling::kSum, out);
    Kokkos::fence();
    emb_cpu_s += thread_cpu_s() - cpu_start;
    emb_s += seconds_since(start);
    triad_s += triad.run();
  }
  const double lookups =
      static_cast<double>(batch.indices.size()) * static_cast<double>(state.iterations());
  state.counters["ns_per_lookup"] = emb_s * 1e9 / lookups;
  state.counters["cpu_ns_per_lookup"] = emb_cpu_s * 1e9 / lookups;
  const std::size_t bytes_read = batch.indices.size() * dim * sizeof(T);
  const std::size_t bytes_written = kBags * dim * sizeof(float);
  set_ratio_counters(state, static_cast<double>(bytes_read + bytes_written), emb_s, triad_s);
  state.counters["huge_frac"] = huge_page_fraction(table.buffer.floats());
  label_with_isa(state);
}

/// Wall and thread CPU seconds summed over calls.
struct Timing {
  double wall_s = 0;
  double cpu_s = 0;
};

/// One forward (kSum) over `view`, timed into t.
template <class View>
void time_forward(Timing& t, const View& view, const IndexVector& indices,
                  const IndexVector& offsets, const Tensor2& out) {
  const auto start = Clock::now();
  const double cpu_start = thread_cpu_s();
  scaletune::kernels::embedding_bag_forward(view, indices, offsets,
                                            scaletune::kernels::Pooling::kSum, out);
  Kokkos::fence();
  t.cpu_s += thread_cpu_s() - cpu_start;
  t.wall_s += seconds_since(start);
}

/// The same bags over the same rows stored in fp32, bf16 and fp16, the three forwards one after
/// the other in every iteration (the order rotating), so that drifting load on a shared machine
/// hits all three alike: the per-lookup ratios 16-bit tables are kept for.
void BM_HalfVsFp32Forward(benchmark::State& state) {
  const std::int64_t rows = state.range(0);
  const auto dim = static_cast<std::size_t>(state.range(1));
  const bool huge = state.range(3) != 0;
  Table<float> fp32(rows, dim, huge);
  Table<Eigen::bfloat16> bf16(rows, dim, huge);
  Table<Eigen::half> fp16(rows, dim, huge);
  scaletune::kernels::LookupBatch batch = uniform_bags(rows, state.range(2));
  const IndexVector indices(batch.indices.data(), batch.indices.size());
  const IndexVector offsets(batch.offsets.data(), batch.offsets.size());
  const Tensor2 out("out", kBags, dim);
  Timing t[3];  // fp32, bf16, fp16
  std::size_t iteration = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < 3; ++i) {
      const std::size_t which = (iteration + i) % 3;
      if (which == 0) time_forward(t[0], fp32.view, indices, offsets, out);
      if (which == 1) time_forward(t[1], bf16.view, indices, offsets, out);
      if (which == 2) time_forward(t[2], fp16.view, indices, offsets, out);
    }
    ++iteration;
  }
  const double lookups =
      static_cast<double>(batch.indices.size()) * static_cast<double>(state.iterations());
  state.counters["fp32_ns"] = t[0].wall_s * 1e9 / lookups;
  state.counters["bf16_ns"] = t[1].wall_s * 1e9 / lookups;
  state.counters["fp16_ns"] = t[2].wall_s * 1e9 / lookups;
  state.counters["bf16/fp32"] = t[1].wall_s / t[0].wall_s;
  state.counters["fp16/fp32"] = t[2].wall_s / t[0].wall_s;
  state.counters["cpu_bf16/fp32"] = t[1].cpu_s / t[0].cpu_s;
  state.counters["cpu_fp16/fp32"] = t[2].cpu_s / t[0].cpu_s;
  label_with_isa(state);
}

/// sparse_sgd_step over a table stored as T with the sparse gradient of one batch's bags
/// (embedding_bag_backward, kSum): each touched row is read, updated in fp32 and stored back as T.
template <class T>
void BM_SparseSgdStep(benchmark::State& state) {
  const std::int64_t rows = state.range(0);
  const auto dim = static_cast<std::size_t>(state.range(1));
  Table<T> table(rows, dim, state.range(3) != 0);
  scaletune::kernels::LookupBatch batch = uniform_bags(rows, state.range(2));
  const IndexVector indices(batch.indices.data(), batch.indices.size());
  const IndexVector offsets(batch.offsets.data(), batch.offsets.size());
  const Tensor2 grad_out("grad_out", kBags, dim);
  Kokkos::deep_copy(grad_out, 1e-3f);
  const scaletune::kernels::SparseRowGrad grad = scaletune::kernels::embedding_bag_backward(
      grad_out, indices, offsets, scaletune::kernels::Pooling::kSum,
      static_cast<std::size_t>(rows));
  double step_s = 0, step_cpu_s = 0;
  for (auto _ : state) {
    const auto start = Clock::now();
    const double cpu_start = thread_cpu_s();
    scaletune::kernels::sparse_sgd_step(table.view, grad, 0.01f);
    Kokkos::fence();
    step_cpu_s += thread_cpu_s() - cpu_start;
    step_s += seconds_since(start);
  }
  const double updates =
      static_cast<double>(grad.rows.extent(0)) * static_cast<double>(state.iterations());
  state.counters["ns_per_row"] = step_s * 1e9 / updates;
  state.counters["cpu_ns_per_row"] = step_cpu_s * 1e9 / updates;
  label_with_isa(state);
}

/// Sum of the first float of every cache line of the rows `ids` name: the least work that
/// still reads each row whole, with a software prefetch `ahead` rows early.
float touch_rows(const float* table, std::size_t dim, const std::vector<std::int64_t>& ids,
                 std::size_t ahead) {
  constexpr std::size_t kLineFloats = kLineBytes / sizeof(float);
  float sum = 0;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    if (k + ahead < ids.size()) {
      const float* next = table + static_cast<std::size_t>(ids[k + ahead]) * dim;
      for (std::size_t i = 0; i < dim; i += kLineFloats) __builtin_prefetch(next + i, 0, 1);
    }
    const float* row = table + static_cast<std::size_t>(ids[k]) * dim;
    for (std::size_t i = 0; i < dim; i += kLineFloats) sum += row[i];
  }
  return sum;
}

void BM_RandomRowReadVsTriad(benchmark::State& state) {
  const std::int64_t rows = state.range(0);
  const auto dim = static_cast<std::size_t>(state.range(1));
  Table<float> table(rows, dim, state.range(3) != 0);
  const std::vector<std::int64_t> ids = uniform_bags(rows, state.range(2)).indices;
  Triad triad;
  double read_s = 0, triad_s = 0;
  for (auto _ : state) {
    const auto start = Clock::now();
    benchmark::DoNotOptimize(touch_rows(table.view.data(), dim, ids, 32));
    read_s += seconds_since(start);
    triad_s += triad.run();
  }
  set_ratio_counters(state, static_cast<double>(ids.size() * dim * 4), read_s, triad_s);
}

/// Writes into the first 8 bytes of every row the id of the next row of one random cycle
/// through all rows (Sattolo's algorithm, seed 11).
void link_rows_in_one_cycle(const Tensor2& table) {
  const std::size_t rows = table.extent(0);
  std::vector<std::int64_t> order(rows);
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::mt19937_64 gen(11);
  for (std::size_t i = rows - 1; i > 0; --i)
    std::swap(order[i], order[std::uniform_int_distribution<std::size_t>(0, i - 1)(gen)]);
  for (std::size_t i = 0; i < rows; ++i)
    std::memcpy(&table(static_cast<std::size_t>(order[i]), 0), &order[(i + 1) % rows],
                sizeof(std::int64_t));
}

void BM_RandomRowLatency(benchmark::State& state) {
  constexpr std::int64_t kSteps = 1 << 20;
  const std::int64_t rows = state.range(0);
  const auto dim = static_cast<std::size_t>(state.range(1));
  Table<float> table(rows, dim, state.range(2) != 0);
  link_rows_in_one_cycle(table.view);
  std::int64_t row = 0;
  double chase_s = 0;
  for (auto _ : state) {
    const auto start = Clock::now();
    for (std::int64_t step = 0; step < kSteps; ++step)
      std::memcpy(&row, &table.view(static_cast<std::size_t>(row), 0), sizeof row);
    benchmark::DoNotOptimize(row);
    chase_s += seconds_since(start);
  }
  state.counters["ns_per_row"] =
      chase_s * 1e9 / (static_cast<double>(kSteps) * static_cast<double>(state.iterations()));
}

constexpr std::int64_t kRows64 = std::int64_t{1} << 23;   // x 64 floats: 2 GiB
constexpr std::int64_t kRows128 = std::int64_t{1} << 22;  // x 128 floats: 2 GiB

/// The fp32 forward's shapes: 2 GiB tables of 64 and 128 columns, bags of 20 and 80 lookups, on
/// 4 KiB and huge pages.
void forward_shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"rows", "dim", "pooling", "huge"})
      ->ArgsProduct({{kRows64}, {64}, {20, 80}, {0, 1}})
      ->ArgsProduct({{kRows128}, {128}, {20, 80}, {0, 1}})
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

BENCHMARK(BM_EmbeddingBagVsTriad<float>)->Name("BM_EmbeddingBagVsTriad")->Apply(forward_shapes);
// The same rows in bf16 and fp16: 1 GiB tables, half the bytes per row.
BENCHMARK(BM_EmbeddingBagVsTriad<Eigen::bfloat16>)
    ->Name("BM_Bf16EmbeddingBagVsTriad")
    ->ArgNames({"rows", "dim", "pooling", "huge"})
    ->ArgsProduct({{kRows128}, {128}, {20, 80}, {1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_EmbeddingBagVsTriad<Eigen::half>)
    ->Name("BM_Fp16EmbeddingBagVsTriad")
    ->ArgNames({"rows", "dim", "pooling", "huge"})
    ->ArgsProduct({{kRows128}, {128}, {20, 80}, {1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_HalfVsFp32Forward)->Apply(forward_shapes);

/// The sparse optimizer's shapes: the forward's 2^22 x 128 tables on huge pages, one batch.
void optimizer_shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"rows", "dim", "pooling", "huge"})
      ->ArgsProduct({{kRows128}, {128}, {20}, {1}})
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

BENCHMARK(BM_SparseSgdStep<float>)->Name("BM_SparseSgdStep")->Apply(optimizer_shapes);
BENCHMARK(BM_SparseSgdStep<Eigen::bfloat16>)->Name("BM_Bf16SparseSgdStep")->Apply(optimizer_shapes);
BENCHMARK(BM_SparseSgdStep<Eigen::half>)->Name("BM_Fp16SparseSgdStep")->Apply(optimizer_shapes);

BENCHMARK(BM_RandomRowReadVsTriad)
    ->ArgNames({"rows", "dim", "pooling", "huge"})
    ->ArgsProduct({{kRows64}, {64}, {80}, {0, 1}})
    ->ArgsProduct({{kRows128}, {128}, {80}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_RandomRowLatency)
    ->ArgNames({"rows", "dim", "huge"})
    ->ArgsProduct({{kRows128}, {128}, {0, 1}})
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
