// Whole workloads on the CUDA backend against the host backend (workload_step_support.hpp): a
// small ResNet-50 built from a job file's text, two steps on one rank, in fp32 on both (loss,
// every layer's gradient and parameter update within fp32 reassociation through 53 layers),
// with local and with synchronised batch norm (over a one-rank device communicator), and in
// bf16 on the GPU (finite loss within 2% of fp32's, every layer's parameters moved, gradients
// and update pointing where fp32's do).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "kernels/resnet50.hpp"
#include "tests/device/device_test_support.hpp"
#include "tests/device/workload_step_support.hpp"

namespace scaletune::kernels {
namespace {

using device::testing::cosine;
using device::testing::norm;
using device::testing::run_steps;
using device::testing::Segment;
using device::testing::StepResult;

/// A ResNet-50 small enough for the host: 64 px, width 1/4, 10 classes, batch 8; configuration 0
/// is fp32, 1 is bf16.
std::string resnet50_job(bool sync_batch_norm) {
  return std::string(R"([job]
name = "resnet50-device-test"

[workload]
kind = "resnet50"
image_size = 64
width = 0.25
num_classes = 10
sync_batch_norm = )") +
         (sync_batch_norm ? "true" : "false") + R"(

[sweep]
ranks = [1]
global_batch = [8]
precision = ["fp32", "bf16"]

[run]
seed = 3

[comm]
bucket_mib = 1
)";
}

/// One segment per layer of resnet50_layers(options) (conv weight; bn gamma and beta; fc).
std::vector<Segment> resnet50_segments(const job::ResNet50Options& options) {
  std::vector<Segment> segments;
  std::size_t at = 0;
  for (const LayerSpec& layer : resnet50_layers(options)) {
    const auto count = static_cast<std::size_t>(layer.parameter_count());
    segments.push_back({layer.name, at, count});
    at += count;
  }
  return segments;
}

/// The job's ResNet-50 after two steps on `device` (nullptr: the host), configuration `index`.
StepResult resnet50_steps(const std::string& job_text, std::size_t index, core::Device* device) {
  const job::ResNet50Options options =
      job::parse_job_text(job_text, "resnet50-device-test.toml").workload.resnet50;
  const auto probe = device::testing::probe_of<ResNet50>(
      [options](core::Workload&) { return resnet50_segments(options); });
  return run_steps(job_text, index, device, probe, 2);
}

using CudaBackendResNet50 = device::testing::ContextTest;

TEST_F(CudaBackendResNet50, Fp32StepsMatchTheHost) {
  const std::string job = resnet50_job(false);
  const StepResult host = resnet50_steps(job, 0, nullptr);
  const StepResult gpu = resnet50_steps(job, 0, &context());
  device::testing::expect_steps_close(gpu, host, {}, "resnet50 fp32");
}

TEST_F(CudaBackendResNet50, Fp32StepsWithSynchronisedBatchNormMatchTheHost) {
  const std::string job = resnet50_job(true);
  const StepResult host = resnet50_steps(job, 0, nullptr);
  const StepResult gpu = resnet50_steps(job, 0, &context());
  device::testing::expect_steps_close(gpu, host, {}, "resnet50 fp32, sync batch norm");
}

TEST_F(CudaBackendResNet50, Bf16StepsTrainCloseToFp32) {
  if (!context().info().bf16) GTEST_SKIP() << "the device has no bf16";
  const std::string job = resnet50_job(false);
  const StepResult fp32 = resnet50_steps(job, 0, nullptr);
  const StepResult bf16 = resnet50_steps(job, 1, &context());
  EXPECT_EQ(bf16.initial_parameters, fp32.initial_parameters);
  ASSERT_TRUE(std::isfinite(bf16.loss));
  EXPECT_NEAR(bf16.loss, fp32.loss, 2e-2 * std::abs(fp32.loss));
  const std::vector<float> update = bf16.update();
  std::size_t frozen = 0;
  for (const Segment& s : fp32.segments) frozen += !(norm(update, s.begin, s.count) > 0.0);
  EXPECT_EQ(frozen, 0u) << "layers whose parameters did not move";
  EXPECT_GT(cosine(bf16.gradients, fp32.gradients), 0.9);
  EXPECT_GT(cosine(update, fp32.update()), 0.9);
}

}  // namespace
}  // namespace scaletune::kernels
