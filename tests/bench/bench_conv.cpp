// Conv2d (im2col + GEMM) against the bare GEMMs it is built on, for ResNet-50 v1.5 convolution
// shapes. One benchmark per shape and pass, <scale>/<shape>/<fwd|bwd>: each iteration runs
// Conv2d::forward (or backward), then alone the GEMM calls it makes per image on the same
// buffers: forward [K, C*R*S] x [C*R*S, Ho*Wo]; backward dw += dy[K, Ho*Wo] x col^T and
// dcol = w^T x dy (no dcol for the first layer, whose dx the network skips). Both parts are
// timed with steady_clock inside the same iteration, so drifting machine load hits both alike.
// Counters: GFLOP/s (the conv, 2 FLOP per multiply-add), gemm GFLOP/s (the same FLOP count),
// conv/gemm (their ratio). After the run a summary table gives the medians over
// --benchmark_repetitions per shape and the mean ratio per scale and pass. Target: >= 0.70.
// Run single-threaded: OPENBLAS_NUM_THREADS=1 bench/bench_conv --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernels/host/blas_info.hpp"
#include "kernels/host/conv2d.hpp"
#include "kernels/host/gemm.hpp"

namespace {

using scaletune::kernels::Conv2d;
using scaletune::kernels::ConvGeometry;
using scaletune::kernels::Tensor4;
using scaletune::kernels::Vector;

/// One convolution of the network at one scale.
struct ConvShape {
  std::string scale;  ///< "demo" (jobs/resnet50-cpu.toml) or "224" (image 224, width 1.0)
  std::string name;   ///< stage, kernel, channels and input size, e.g. "s1_3x3_64-64@56"
  ConvGeometry g;
  int batch = 1;             ///< images per call
  bool first_layer = false;  ///< backward skips dx, as the network's stem does
};

/// A square input of `in` pixels padded by kernel / 2, as every ResNet convolution is.
ConvShape shape(std::string scale, std::string name, int c, int k, int kernel, int stride, int in,
                int batch, bool first_layer = false) {
  const ConvGeometry g{c, k, kernel, stride, kernel / 2, in, in};
  return {std::move(scale), std::move(name), g, batch, first_layer};
}

/// ResNet-50 v1.5 convolutions (He et al. 2016, Table 1; stride on the 3x3 of the first
/// block of stages 2-4). "224": image 224, width 1.0, batch 1: the stem, every stage-1 shape
/// and a few shapes of each later stage. "demo": the demo job (image 64, width 0.25,
/// per-rank batch 16): the stem and stage 1 (after the max pool, 16x16).
std::vector<ConvShape> resnet50_shapes() {
  return {
      shape("224", "stem_7x7s2_3-64@224", 3, 64, 7, 2, 224, 1, true),
      shape("224", "s1_1x1_64-64@56", 64, 64, 1, 1, 56, 1),
      shape("224", "s1_3x3_64-64@56", 64, 64, 3, 1, 56, 1),
      shape("224", "s1_1x1_64-256@56", 64, 256, 1, 1, 56, 1),
      shape("224", "s1_1x1_256-64@56", 256, 64, 1, 1, 56, 1),
      shape("224", "s2_down_1x1s2_256-512@56", 256, 512, 1, 2, 56, 1),
      shape("224", "s2_3x3s2_128-128@56", 128, 128, 3, 2, 56, 1),
      shape("224", "s2_3x3_128-128@28", 128, 128, 3, 1, 28, 1),
      shape("224", "s3_3x3_256-256@14", 256, 256, 3, 1, 14, 1),
      shape("224", "s4_3x3_512-512@7", 512, 512, 3, 1, 7, 1),
      shape("224", "s4_1x1_512-2048@7", 512, 2048, 1, 1, 7, 1),
      shape("demo", "stem_7x7s2_3-16@64", 3, 16, 7, 2, 64, 16, true),
      shape("demo", "s1_1x1_16-16@16", 16, 16, 1, 1, 16, 16),
      shape("demo", "s1_3x3_16-16@16", 16, 16, 3, 1, 16, 16),
      shape("demo", "s1_1x1_16-64@16", 16, 64, 1, 1, 16, 16),
  };
}

enum class Pass { forward, backward };

const char* pass_name(Pass pass) {
  return pass == Pass::forward ? "fwd" : "bwd";
}

/// GEMMs per image of a pass: forward 1; backward dw and dcol (dw only for the first layer).
int gemms_per_image(const ConvShape& s, Pass pass) {
  return pass == Pass::forward || s.first_layer ? 1 : 2;
}

/// n values uniform in [-1, 1).
void fill_uniform(float* p, std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::generate_n(p, n, [&] { return uniform(rng); });
}

/// The operands of one shape, random from a fixed seed. col has the im2col matrix's size, so
/// it also serves as the conv workspace (>= workspace_floats()).
struct Operands {
  explicit Operands(const ConvShape& s)
      : x("x", s.batch, s.g.in_channels, s.g.in_h, s.g.in_w),
        w("w", s.g.out_channels, s.g.in_channels, s.g.kernel, s.g.kernel),
        y("y", s.batch, s.g.out_channels, s.g.out_h(), s.g.out_w()),
        dw("dw", s.g.out_channels, s.g.in_channels, s.g.kernel, s.g.kernel),
        dx("dx", s.batch, s.g.in_channels, s.g.in_h, s.g.in_w),
        col("col", s.g.col_rows() * s.g.col_cols()) {
    std::mt19937 rng(1);
    fill_uniform(x.data(), x.size(), rng);
    fill_uniform(w.data(), w.size(), rng);
    fill_uniform(y.data(), y.size(), rng);
    fill_uniform(col.data(), col.size(), rng);
  }
  Tensor4 x, w, y, dw, dx;  ///< y doubles as dy in backward
  Vector col;
};

/// Conv2d::forward or backward over the batch (backward skips dx for the first layer).
void run_conv(const Conv2d& conv, const Operands& o, const ConvShape& s, Pass pass) {
  if (pass == Pass::forward) {
    conv.forward(o.x, o.w, o.y, o.col);
  } else {
    conv.backward(o.x, o.w, o.y, o.dw, s.first_layer ? Tensor4() : o.dx, o.col);
  }
}

/// The GEMM calls Conv2d makes for the same shape and pass, on the same buffers.
void run_gemms(const Operands& o, const ConvShape& s, Pass pass) {
  using scaletune::kernels::gemm;
  const int k = s.g.out_channels, crs = static_cast<int>(s.g.col_rows());
  const int pixels = static_cast<int>(s.g.col_cols());
  float* const col = o.col.data();
  for (int n = 0; n < s.batch; ++n) {
    float* const y_n = &o.y(n, 0, 0, 0);
    if (pass == Pass::forward) {
      gemm(false, false, k, pixels, crs, 1.0f, o.w.data(), crs, col, pixels, 0.0f, y_n, pixels);
      continue;
    }
    const float beta = n == 0 ? 0.0f : 1.0f;
    gemm(false, true, k, crs, pixels, 1.0f, y_n, pixels, col, pixels, beta, o.dw.data(), crs);
    if (!s.first_layer) {
      gemm(true, false, crs, pixels, k, 1.0f, o.w.data(), crs, y_n, pixels, 0.0f, col, pixels);
    }
  }
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Each iteration runs the conv, then its GEMMs alone, each timed with steady_clock, so both
/// see the same machine state. The benchmark's time (manual) is the conv's; counters:
/// "GFLOP/s" the conv's rate (kIsRate over that time), "gemm GFLOP/s" the GEMMs' rate and
/// "conv/gemm" = gemm time / conv time, the conv's share of the GEMM rate.
void bench_pair(benchmark::State& state, const ConvShape& s, Pass pass) {
  const Conv2d conv(s.g);
  const Operands o(s);
  double conv_s = 0.0, gemm_s = 0.0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    run_conv(conv, o, s, pass);
    const double conv_iteration_s = seconds_since(start);
    const auto gemm_start = std::chrono::steady_clock::now();
    run_gemms(o, s, pass);
    gemm_s += seconds_since(gemm_start);
    conv_s += conv_iteration_s;
    state.SetIterationTime(conv_iteration_s);
  }
  const double gflop = 2e-9 * s.g.macs_per_sample() * s.batch * gemms_per_image(s, pass);
  state.counters["GFLOP/s"] =
      benchmark::Counter(gflop, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["gemm GFLOP/s"] = gflop * static_cast<double>(state.iterations()) / gemm_s;
  state.counters["conv/gemm"] = gemm_s / conv_s;
}

/// One registered benchmark.
struct Entry {
  const ConvShape* shape;
  Pass pass;
  std::string name;
};

std::vector<Entry> register_benchmarks(const std::vector<ConvShape>& shapes) {
  std::vector<Entry> entries;
  for (const ConvShape& s : shapes) {
    for (const Pass pass : {Pass::forward, Pass::backward}) {
      Entry e{&s, pass, s.scale + "/" + s.name + "/" + pass_name(pass)};
      benchmark::RegisterBenchmark(e.name.c_str(), bench_pair, s, pass)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
      entries.push_back(std::move(e));
    }
  }
  return entries;
}

/// The console reporter, also keeping each benchmark's counters per repetition.
class CounterCollector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred) continue;
      for (const auto& [key, counter] : run.counters) {
        m_values[run.run_name.function_name][key].push_back(counter.value);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  /// Median of counter `key` over the repetitions of benchmark `name`; 0 when it did not run.
  double median(const std::string& name, const std::string& key) const {
    const auto found = m_values.find(name);
    if (found == m_values.end()) return 0.0;
    std::vector<double> v = found->second.at(key);
    std::sort(v.begin(), v.end());
    const std::size_t mid = v.size() / 2;
    return v.size() % 2 == 1 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
  }

 private:
  std::map<std::string, std::map<std::string, std::vector<double>>> m_values;
};

/// Per shape and pass: conv GFLOP/s, GEMM GFLOP/s and conv/gemm (medians over repetitions);
/// then the mean conv/gemm per scale and pass over the shapes that ran.
void print_summary(const std::vector<Entry>& entries, const CounterCollector& counters) {
  std::printf("\n%-36s %-4s %10s %10s %10s\n", "shape", "pass", "conv", "gemm", "conv/gemm");
  std::printf("%-36s %-4s %10s %10s %10s\n", "", "", "GFLOP/s", "GFLOP/s", "ratio");
  std::map<std::string, std::pair<double, int>> means;  // "scale pass" -> (sum, count)
  for (const Entry& e : entries) {
    const double ratio = counters.median(e.name, "conv/gemm");
    if (ratio <= 0.0) continue;
    std::printf("%-36s %-4s %10.2f %10.2f %10.3f%s\n",
                (e.shape->scale + "/" + e.shape->name).c_str(), pass_name(e.pass),
                counters.median(e.name, "GFLOP/s"), counters.median(e.name, "gemm GFLOP/s"), ratio,
                ratio < 0.7 ? "  below 0.70" : "");
    auto& [sum, count] = means[e.shape->scale + " " + pass_name(e.pass)];
    sum += ratio;
    ++count;
  }
  std::printf("\n%-41s %10s\n", "mean conv/gemm over shapes (scale, pass)", "ratio");
  for (const auto& [key, mean] : means) {
    std::printf("%-41s %10.3f  (%d shapes)\n", key.c_str(), mean.first / mean.second, mean.second);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // One BLAS thread, as one rank per core runs (DESIGN.md "Backends").
  scaletune::kernels::set_blas_threads(1);
  benchmark::AddCustomContext("blas", scaletune::kernels::blas_description());
  const std::vector<ConvShape> shapes = resnet50_shapes();
  const std::vector<Entry> entries = register_benchmarks(shapes);
  CounterCollector reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  print_summary(entries, reporter);
  benchmark::Shutdown();
  return 0;
}
