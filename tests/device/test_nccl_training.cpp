// Training over NCCL (an MPI program, run with 1 and 2 ranks): the same configuration of a job,
// two steps on every rank, once on the host backend over MPI and once on each rank's GPU over
// NCCL, and the two must agree in fp32 (DLRM: every sharding plan, so the pooled-embedding
// all-to-all(v) and the replicas' all-reduce go over NCCL; ResNet-50: bucketed gradient
// all-reduce with and without overlap). Skips unless every rank has a device of its own.
#include <mpi.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/phase_timer.hpp"
#include "harness/device/cuda_context.hpp"
#include "harness/device/cuda_device.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "harness/mpi/device_binding.hpp"
#include "harness/mpi/mpi_communicator.hpp"
#include "harness/nccl/nccl_communicator.hpp"
#include "kernels/dlrm/dlrm.hpp"
#include "kernels/resnet50.hpp"
#include "tests/device/workload_step_support.hpp"

namespace scaletune::nccl {
namespace {

constexpr double kWaitLimitS = 120;  // one wait; a healthy test never comes near it

/// A small DLRM on the world's ranks, global batch 48, every built-in plan.
std::string dlrm_job(int ranks) {
  std::string text = R"([job]
name = "nccl-training"
[workload]
kind = "dlrm"
dense_features = 13
bottom_mlp = [32, 16]
top_mlp = [32, 1]
index_distribution = "zipf:1.05"
learning_rate = 0.05
)";
  for (const auto& [name, rows, pooling] :
       std::vector<std::tuple<std::string, int, int>>{{"a", 5000, 3}, {"b", 300, 8}, {"c", 1, 1}})
    text += "[[workload.tables]]\nname = \"" + name + "\"\nrows = " + std::to_string(rows) +
            "\ndim = 16\npooling = " + std::to_string(pooling) + "\n";
  return text + "[sweep]\nranks = [" + std::to_string(ranks) +
         "]\nglobal_batch = [48]\nsharding = [\"table_wise\", \"row_wise\", \"column_wise\", "
         "\"data_parallel\"]\n[run]\nseed = 5\n";
}

/// A small ResNet-50 on the world's ranks, global batch 4 per rank.
std::string resnet50_job(int ranks, bool overlap) {
  return std::string(R"([job]
name = "nccl-training"
[workload]
kind = "resnet50"
image_size = 32
width = 0.25
num_classes = 10
[sweep]
ranks = [)") +
         std::to_string(ranks) + "]\nglobal_batch = [" + std::to_string(4 * ranks) +
         "]\n[run]\nseed = 3\n[comm]\nbucket_mib = 1\noverlap = " + (overlap ? "true" : "false") +
         "\n";
}

/// Configuration `index` of `text` made on this rank with `comm` and `device` (nullptr: the
/// host), as the runner makes it.
std::unique_ptr<core::Workload> make(const std::string& text, std::size_t index,
                                     core::Communicator& comm, core::Device* device) {
  const job::JobSpec job = job::parse_job_text(text, "nccl-training.toml");
  return device::testing::make_workload(job, job::expand_sweep(job).at(index), comm, device);
}

void two_steps(core::Workload& workload, core::Device* device, core::Communicator& comm) {
  core::PhaseTimer timer(workload.phase_names(), 1, [&] {
    if (device != nullptr) device->fence();
    comm.synchronize();
  });
  for (int i = 0; i < 2; ++i) workload.step(timer);
}

/// |got - want| / |want| in the Euclidean norm.
double relative_error(const std::vector<float>& got, const std::vector<float>& want) {
  double diff = 0.0, ref = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
    ref += double(want[i]) * want[i];
  }
  return std::sqrt(diff / std::max(ref, 1e-30));
}

class NcclTraining : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const int devices = device::device_count();
    MPI_Comm_size(MPI_COMM_WORLD, &s_world);
    if (devices == 0 || devices < s_world) return;  // the same on every rank of one node
    s_context = std::make_unique<device::CudaContext>(
        mpi::device_for_rank(mpi::local_rank(MPI_COMM_WORLD), devices));
    s_nccl = std::make_unique<NcclCommunicator>(MPI_COMM_WORLD, *s_context, kWaitLimitS);
  }
  static void TearDownTestSuite() {
    s_nccl.reset();
    s_context.reset();
  }
  void SetUp() override {
    if (!s_nccl) GTEST_SKIP() << "needs one CUDA device per rank";
  }

  static inline int s_world = 1;
  static inline std::unique_ptr<device::CudaContext> s_context;
  static inline std::unique_ptr<NcclCommunicator> s_nccl;
  mpi::MpiCommunicator m_mpi{MPI_COMM_WORLD};
};

TEST_F(NcclTraining, DlrmOnEveryPlanMatchesTheHostOverMpi) {
  const std::string text = dlrm_job(s_world);
  for (std::size_t index = 0; index < 4; ++index) {
    SCOPED_TRACE("configuration " + std::to_string(index));
    const auto host = make(text, index, m_mpi, nullptr);
    const auto gpu = make(text, index, *s_nccl, s_context.get());
    two_steps(*host, nullptr, m_mpi);
    two_steps(*gpu, s_context.get(), *s_nccl);
    const auto& h = dynamic_cast<const kernels::Dlrm&>(*host);
    const auto& g = dynamic_cast<const kernels::Dlrm&>(*gpu);
    EXPECT_NEAR(g.last_loss(), h.last_loss(), 1e-4 * std::abs(h.last_loss()));
    EXPECT_LT(relative_error(g.logits(), h.logits()), 1e-4);
    EXPECT_LT(relative_error(g.dense_parameters(), h.dense_parameters()), 1e-4);
    ASSERT_EQ(g.embeddings().shard_count(), h.embeddings().shard_count());
    for (std::size_t s = 0; s < h.embeddings().shard_count(); ++s)
      EXPECT_LT(relative_error(g.embeddings().shard_values(s), h.embeddings().shard_values(s)),
                1e-4)
          << "shard " << s;
  }
}

TEST_F(NcclTraining, ResNet50WithAndWithoutOverlapMatchesTheHostOverMpi) {
  for (const bool overlap : {true, false}) {
    SCOPED_TRACE(overlap ? "overlap" : "no overlap");
    const std::string text = resnet50_job(s_world, overlap);
    const auto host = make(text, 0, m_mpi, nullptr);
    const auto gpu = make(text, 0, *s_nccl, s_context.get());
    const auto& h = dynamic_cast<const kernels::ResNet50&>(*host);
    const auto& g = dynamic_cast<const kernels::ResNet50&>(*gpu);
    const std::vector<float> initial = h.download_parameters();
    two_steps(*host, nullptr, m_mpi);
    two_steps(*gpu, s_context.get(), *s_nccl);
    EXPECT_NEAR(g.last_loss(), h.last_loss(), 1e-3 * std::abs(h.last_loss()));
    std::vector<float> host_update = h.download_parameters(), gpu_update = g.download_parameters();
    for (std::size_t i = 0; i < initial.size(); ++i) {
      host_update[i] -= initial[i];
      gpu_update[i] -= initial[i];
    }
    EXPECT_LT(relative_error(gpu_update, host_update), 1e-2);
  }
}

}  // namespace
}  // namespace scaletune::nccl
