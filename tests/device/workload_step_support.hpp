#pragma once
// One training step of a registered workload on the host and on the GPU, built from the text of
// a job file as `scaletune run` builds it (one rank, a one-rank communicator in the device's
// memory), and the comparison of the two steps: loss, gradients and the update of the
// parameters, segment by segment (a model's layers differ in scale by orders of magnitude).
//
// A workload's test supplies a WorkloadProbe, the few reads the harness cannot make through
// core::Workload (loss, flat parameters and gradients, their segments); probe_of<W>() reads
// them through W's last_loss(), download_parameters() and download_gradients().

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/core/device.hpp"
#include "harness/core/phase_timer.hpp"
#include "harness/core/rank_context.hpp"
#include "harness/core/workload.hpp"
#include "harness/core/workload_registry.hpp"
#include "harness/device/cuda_context.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "kernels/workloads.hpp"
#include "tests/device/single_rank_communicator.hpp"

namespace scaletune::device::testing {

/// A named range [begin, begin + count) of a workload's flat parameter (and gradient) buffer.
struct Segment {
  std::string name;
  std::size_t begin = 0;
  std::size_t count = 0;
};

/// What a test reads from a built workload of one type (the harness sees only core::Workload).
struct WorkloadProbe {
  std::function<double(core::Workload&)> loss;                    ///< the latest step's loss
  std::function<std::vector<float>(core::Workload&)> parameters;  ///< flat, host copy
  std::function<std::vector<float>(core::Workload&)> gradients;   ///< flat, host copy
  std::function<std::vector<Segment>(core::Workload&)> segments;  ///< empty: one segment
};

/// The probe of workload class W (last_loss(), download_parameters(), download_gradients());
/// `segments` as WorkloadProbe::segments.
template <class W>
WorkloadProbe probe_of(std::function<std::vector<Segment>(core::Workload&)> segments = {}) {
  return {.loss = [](core::Workload& w) { return dynamic_cast<W&>(w).last_loss(); },
          .parameters = [](core::Workload& w) { return dynamic_cast<W&>(w).download_parameters(); },
          .gradients = [](core::Workload& w) { return dynamic_cast<W&>(w).download_gradients(); },
          .segments = std::move(segments)};
}

/// A workload after `steps` steps on one rank.
struct StepResult {
  double loss = 0.0;                      ///< of the last step
  std::vector<float> initial_parameters;  ///< before the first step
  std::vector<float> parameters;          ///< after the last step
  std::vector<float> gradients;           ///< of the last step's backward
  std::vector<Segment> segments;          ///< the probe's, or one segment of everything

  /// parameters - initial_parameters: what the steps changed.
  std::vector<float> update() const {
    std::vector<float> d(parameters.size());
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = parameters[i] - initial_parameters[i];
    return d;
  }
};

/// The workload of configuration `config` of `job` on rank comm.rank() of `comm`, on `device`
/// (nullptr: the host backend), with the RankContext the runner gives that rank (its batch and
/// first sample, seed, bucket size, overlap; no memory budget).
inline std::unique_ptr<core::Workload> make_workload(const job::JobSpec& job,
                                                     const job::Config& config,
                                                     core::Communicator& comm,
                                                     core::Device* device) {
  core::RankContext ctx = core::rank_context(job, config, comm);
  ctx.device = device;
  core::WorkloadRegistry registry;
  kernels::register_workloads(registry);
  return registry.entry(config.workload).factory(job.workload, config, ctx);
}

/// Builds configuration `config_index` of the job text `toml` (its [sweep] must give one rank)
/// on `device` (nullptr: the host backend), with a SingleRankCommunicator in the device's memory
/// and the RankContext the runner gives rank 0 (batch, seed, bucket size, overlap), runs `steps`
/// steps and reads the result through `probe`. Throws job::JobError for bad text,
/// std::invalid_argument for a configuration of more than one rank or an index past the sweep.
inline StepResult run_steps(const std::string& toml, std::size_t config_index, core::Device* device,
                            const WorkloadProbe& probe, int steps = 1) {
  const job::JobSpec job = job::parse_job_text(toml, "workload-step-test.toml");
  const std::vector<job::Config> configs = job::expand_sweep(job);
  if (config_index >= configs.size())
    throw std::invalid_argument("run_steps: configuration " + std::to_string(config_index) +
                                " of a sweep of " + std::to_string(configs.size()));
  const job::Config& config = configs[config_index];
  if (config.ranks != 1 || config.per_rank_batch.size() != 1)
    throw std::invalid_argument("run_steps: configuration " + config.id +
                                " is not of one rank with its batch");
  auto* cuda = dynamic_cast<CudaContext*>(device);
  SingleRankCommunicator comm =
      cuda != nullptr ? SingleRankCommunicator(*cuda) : SingleRankCommunicator();
  const std::unique_ptr<core::Workload> workload = make_workload(job, config, comm, device);
  StepResult result;
  result.initial_parameters = probe.parameters(*workload);
  core::PhaseTimer timer(workload->phase_names(), 1, [device] {
    if (device != nullptr) device->fence();
  });
  for (int i = 0; i < steps; ++i) workload->step(timer);
  result.loss = probe.loss(*workload);
  result.parameters = probe.parameters(*workload);
  result.gradients = probe.gradients(*workload);
  result.segments = probe.segments ? probe.segments(*workload) : std::vector<Segment>{};
  if (result.segments.empty()) result.segments = {{"all", 0, result.parameters.size()}};
  return result;
}

/// sqrt(sum of squares) of v[begin, begin + count).
inline double norm(const std::vector<float>& v, std::size_t begin, std::size_t count) {
  double sum = 0.0;
  for (std::size_t i = begin; i < begin + count; ++i) sum += double(v[i]) * double(v[i]);
  return std::sqrt(sum);
}

/// Expects |got - want| <= rel_tol |want| in the Euclidean norm over each segment (the relative
/// error of the segment as a vector: robust to elements near zero), and reports the worst.
inline void expect_segments_close(const std::vector<float>& got, const std::vector<float>& want,
                                  const std::vector<Segment>& segments, double rel_tol,
                                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t failed = 0;
  double worst = 0.0;
  std::string worst_name;
  for (const Segment& s : segments) {
    std::vector<float> diff(s.count);
    for (std::size_t i = 0; i < s.count; ++i) diff[i] = got[s.begin + i] - want[s.begin + i];
    const double reference = norm(want, s.begin, s.count);
    const double error = norm(diff, 0, s.count) / std::max(reference, 1e-30);
    if (!(error <= rel_tol)) ++failed;  // NaN fails
    if (!(error <= worst)) {
      worst = error;
      worst_name = s.name;
    }
  }
  EXPECT_EQ(failed, 0u) << what << ": " << failed << " of " << segments.size()
                        << " segments differ beyond relative norm " << rel_tol << "; worst "
                        << worst_name << " at " << worst;
}

/// Tolerances of a comparison of two steps.
struct StepTolerance {
  double loss = 1e-4;      ///< relative
  double gradient = 1e-3;  ///< relative norm per segment
  double update = 1e-3;    ///< relative norm per segment of parameters - initial parameters
};

/// Expects the device step to match the host step within `tol`: loss, the gradients and the
/// update of every segment; the initial parameters must be the same (the same seed).
inline void expect_steps_close(const StepResult& device, const StepResult& host,
                               const StepTolerance& tol, const std::string& what) {
  EXPECT_EQ(device.initial_parameters, host.initial_parameters) << what << ": initial parameters";
  EXPECT_TRUE(std::isfinite(device.loss)) << what;
  EXPECT_NEAR(device.loss, host.loss, tol.loss * std::abs(host.loss)) << what << ": loss";
  expect_segments_close(device.gradients, host.gradients, host.segments, tol.gradient,
                        what + ": gradients");
  expect_segments_close(device.update(), host.update(), host.segments, tol.update,
                        what + ": parameter update");
}

/// Cosine of the angle between a and b (1: the same direction).
inline double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) ab += double(a[i]) * double(b[i]);
  return ab / (norm(a, 0, a.size()) * norm(b, 0, b.size()));
}

}  // namespace scaletune::device::testing
