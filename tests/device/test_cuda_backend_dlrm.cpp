// DLRM on the CUDA backend against the host backend (workload_step_support.hpp): a small model
// built from a job file's text, two steps on one rank, model-parallel tables (table_wise: the
// all-to-all over a one-rank device communicator) and replicated ones (data_parallel: the
// replicas' dense gradients), SGD and rowwise Adagrad, in fp32 on both (loss, the dense
// gradients and the update of both MLPs and of every table); bf16 tables and MLPs on the GPU
// train close to fp32; fp16 with dynamic loss scaling takes its steps.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "kernels/dlrm/dlrm.hpp"
#include "tests/device/device_test_support.hpp"
#include "tests/device/workload_step_support.hpp"

namespace scaletune::kernels {
namespace {

using device::testing::cosine;
using device::testing::run_steps;
using device::testing::Segment;
using device::testing::StepResult;

/// Four tables of 16 columns, batch 64 on one rank; the sweep crosses precision with sharding.
std::string dlrm_job(const std::string& optimizer) {
  return R"([job]
name = "dlrm-device-test"

[workload]
kind = "dlrm"
dense_features = 13
bottom_mlp = [32, 16]
top_mlp = [32, 1]
index_distribution = "zipf:1.05"
embedding_optimizer = ")" +
         optimizer + R"("
learning_rate = 0.05

[[workload.tables]]
name = "a"
rows = 5000
dim = 16
pooling = 3

[[workload.tables]]
name = "b"
rows = 300
dim = 16
pooling = 8

[[workload.tables]]
name = "c"
rows = 40
dim = 16
pooling = 1

[[workload.tables]]
name = "d"
rows = 20000
dim = 16
pooling = 2

[sweep]
ranks = [1]
global_batch = [64]
precision = ["fp32", "bf16", "fp16"]
sharding = ["table_wise", "data_parallel"]

[run]
seed = 7

[comm]
bucket_mib = 1
)";
}

/// The index of the configuration of `precision` and `sharding` in the job's sweep.
std::size_t config_index(const std::string& job_text, job::DataType precision,
                         const std::string& sharding) {
  const std::vector<job::Config> configs =
      job::expand_sweep(job::parse_job_text(job_text, "dlrm-device-test.toml"));
  for (std::size_t i = 0; i < configs.size(); ++i)
    if (configs[i].precision == precision &&
        job::sharding_text(std::get<job::DlrmSharding>(configs[i].sharding)) == sharding)
      return i;
  throw std::invalid_argument("no configuration of " + sharding);
}

/// Flat parameters: the dense model, then every shard's table values (one rank: table order).
/// The tables have no flat gradient (theirs are row-sparse): their part of `gradients` is
/// zero on both sides, and their update is what the comparison checks.
device::testing::WorkloadProbe dlrm_probe() {
  const auto parameters = [](core::Workload& w) {
    const auto& model = dynamic_cast<Dlrm&>(w);
    std::vector<float> all = model.dense_parameters();
    for (std::size_t s = 0; s < model.embeddings().shard_count(); ++s) {
      const std::vector<float> table = model.embeddings().shard_values(s);
      all.insert(all.end(), table.begin(), table.end());
    }
    return all;
  };
  return {.loss = [](core::Workload& w) { return dynamic_cast<Dlrm&>(w).last_loss(); },
          .parameters = parameters,
          .gradients =
              [parameters](core::Workload& w) {
                std::vector<float> grads = dynamic_cast<Dlrm&>(w).dense_gradients();
                grads.resize(parameters(w).size(), 0.0f);
                return grads;
              },
          .segments =
              [](core::Workload& w) {
                const auto& model = dynamic_cast<Dlrm&>(w);
                std::vector<Segment> segments{{"dense", 0, model.dense_parameters().size()}};
                std::size_t at = segments.front().count;
                for (std::size_t s = 0; s < model.embeddings().shard_count(); ++s) {
                  const auto count =
                      static_cast<std::size_t>(model.embeddings().shard_table(s).numel());
                  segments.push_back({"table " + std::to_string(s), at, count});
                  at += count;
                }
                return segments;
              }};
}

StepResult dlrm_steps(const std::string& job_text, job::DataType precision,
                      const std::string& sharding, core::Device* device) {
  return run_steps(job_text, config_index(job_text, precision, sharding), device, dlrm_probe(), 2);
}

using CudaBackendDlrm = device::testing::ContextTest;

TEST_F(CudaBackendDlrm, Fp32StepsMatchTheHostForEveryShardingAndOptimizer) {
  for (const std::string optimizer : {"sgd", "rowwise_adagrad"})
    for (const std::string sharding : {"table_wise", "data_parallel"}) {
      const std::string job = dlrm_job(optimizer);
      const StepResult host = dlrm_steps(job, job::DataType::fp32, sharding, nullptr);
      const StepResult gpu = dlrm_steps(job, job::DataType::fp32, sharding, &context());
      device::testing::expect_steps_close(gpu, host, {}, "dlrm fp32 " + optimizer + " " + sharding);
    }
}

TEST_F(CudaBackendDlrm, Bf16StepsTrainCloseToFp32) {
  if (!context().info().bf16) GTEST_SKIP() << "the device has no bf16";
  const std::string job = dlrm_job("sgd");
  const StepResult fp32 = dlrm_steps(job, job::DataType::fp32, "table_wise", nullptr);
  const StepResult bf16 = dlrm_steps(job, job::DataType::bf16, "table_wise", &context());
  ASSERT_TRUE(std::isfinite(bf16.loss));
  EXPECT_NEAR(bf16.loss, fp32.loss, 2e-2 * std::abs(fp32.loss));
  EXPECT_GT(cosine(bf16.update(), fp32.update()), 0.9);
}

TEST_F(CudaBackendDlrm, Fp16StepsWithLossScalingTrainCloseToFp32) {
  const std::string job = dlrm_job("sgd");
  const StepResult fp32 = dlrm_steps(job, job::DataType::fp32, "data_parallel", nullptr);
  const StepResult fp16 = dlrm_steps(job, job::DataType::fp16, "data_parallel", &context());
  ASSERT_TRUE(std::isfinite(fp16.loss));
  EXPECT_NEAR(fp16.loss, fp32.loss, 2e-2 * std::abs(fp32.loss));
  EXPECT_GT(cosine(fp16.update(), fp32.update()), 0.9);
}

}  // namespace
}  // namespace scaletune::kernels
