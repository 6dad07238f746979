#pragma once
// Hand-built result sets for the autotune tests: configurations whose step times follow from
// per-rank phase times given by a formula, and stored statistics computed naively
// (test_results_data.hpp).

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "harness/results/result_types.hpp"
#include "tests/unit/test_results_data.hpp"

namespace scaletune::autotune::testing {

/// Phase time of rank r, iteration i, phase p, s.
using PhaseFormula = std::function<double(int r, int i, int p)>;

/// The settings every fixture configuration shares: resnet50, an even split, fp32.
inline results::ConfigResult even_config(const std::string& id, int ranks, int global_batch) {
  results::ConfigResult c;
  c.id = id;
  c.workload = "resnet50";
  c.ranks = ranks;
  c.global_batch = global_batch;
  c.per_rank_batch.assign(static_cast<std::size_t>(ranks), global_batch / ranks);
  c.batch_split = "even";
  c.precision = "fp32";
  return c;
}

/// An ok resnet50/even/fp32 configuration. Step time of iteration i = the slowest rank's sum of
/// phase times + gap_s; throughput = global_batch / median step time.
inline results::ConfigResult make_ok_config(const std::string& id, int ranks, int global_batch,
                                            int iterations, std::vector<std::string> phases,
                                            const PhaseFormula& phase_s, double gap_s) {
  results::ConfigResult c = even_config(id, ranks, global_batch);
  c.phase_names = std::move(phases);
  const int n_phases = static_cast<int>(c.phase_names.size());
  c.rank_phase_time.resize(static_cast<std::size_t>(ranks * iterations * n_phases));
  c.step_time.assign(static_cast<std::size_t>(iterations), 0.0);
  for (int r = 0; r < ranks; ++r)
    for (int i = 0; i < iterations; ++i) {
      double rank_sum_s = 0.0;
      for (int p = 0; p < n_phases; ++p) {
        const double t = phase_s(r, i, p);
        c.rank_phase_time[static_cast<std::size_t>((r * iterations + i) * n_phases + p)] = t;
        rank_sum_s += t;
      }
      c.step_time[static_cast<std::size_t>(i)] =
          std::max(c.step_time[static_cast<std::size_t>(i)], rank_sum_s + gap_s);
    }
  c.step_time_median = results::test::naive_median(c.step_time);
  c.step_time_p95 = results::test::naive_quantile(c.step_time, 0.95);
  c.throughput = global_batch / c.step_time_median;
  c.rank_memory_peak.assign(static_cast<std::size_t>(ranks), 1 << 20);
  return c;
}

/// A configuration that did not finish.
inline results::ConfigResult make_failed_config(const std::string& id, int ranks, int global_batch,
                                                results::Status status, const std::string& error) {
  results::ConfigResult c = even_config(id, ranks, global_batch);
  c.status = status;
  c.error = error;
  return c;
}

}  // namespace scaletune::autotune::testing
