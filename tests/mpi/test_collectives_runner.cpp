// The collective benchmark over MPI on the launch's ranks: every op and dtype verified with no
// wrong element, bandwidths by the nccl-tests definitions, the printed table readable by the
// importer, and failures recorded as statuses.
#include <gtest/gtest.h>
#include <mpi.h>

#include <new>
#include <sstream>
#include <stdexcept>

#include "autotune/collective_log.hpp"
#include "harness/job/collective_sizes.hpp"
#include "harness/mpi/collective_config_runner.hpp"
#include "harness/mpi/mpi_communicator.hpp"
#include "tests/support/mpi_world.hpp"

namespace scaletune::mpi {
namespace {

using test::world_rank;
using test::world_size;

using job::DataType;
using job::ReductionOp;

/// The nccl-tests names of every op, in job::kCollectiveOps order.
std::vector<std::string> every_op_name() {
  std::vector<std::string> names;
  for (const job::CollectiveOp op : job::kCollectiveOps)
    names.emplace_back(job::collective_op_text(op));
  return names;
}

job::JobSpec collectives_job(DataType dtype, ReductionOp redop) {
  job::JobSpec spec;
  spec.job.name = "collectives-test";
  spec.workload.kind = "collectives";
  auto& o = spec.workload.collectives;
  o.ops.assign(job::kCollectiveOps.begin(), job::kCollectiveOps.end());
  o.min_bytes = 64;  // at least one element per rank for every op and dtype on <= 8 ranks
  o.max_bytes = 4096;
  o.step_factor = 8;
  o.dtype = dtype;
  o.redop = redop;
  o.in_place = true;
  spec.run.warmup = 1;
  spec.run.iterations = 3;
  spec.run.timeout_s = 120;
  spec.comm.backend = job::CommBackend::mpi;
  return spec;
}

job::Config config_for(const job::JobSpec& spec) {
  job::Config c;
  c.id = "collectives-r" + std::to_string(world_size()) + "-" +
         std::string(job::data_type_text(spec.workload.collectives.dtype));
  c.workload = "collectives";
  c.ranks = world_size();
  c.global_batch = 1;
  c.batch_split = "none";
  c.precision = spec.workload.collectives.dtype;
  return c;
}

// nccl-tests doc/PERFORMANCE.md bus bandwidth factors, written out here as the reference.
double published_factor(const std::string& op, int n) {
  if (op == "all_reduce") return 2.0 * (n - 1) / n;
  if (op == "broadcast") return 1.0;
  return static_cast<double>(n - 1) / n;
}

class EveryDtype : public ::testing::TestWithParam<std::tuple<DataType, ReductionOp>> {};

TEST_P(EveryDtype, EveryOpIsRightAndMeasured) {
  const auto [dtype, redop] = GetParam();
  const job::JobSpec spec = collectives_job(dtype, redop);
  std::ostringstream table;
  const std::vector<std::string> lines(static_cast<std::size_t>(world_size()), "on this host");
  const CollectivesRun run = run_collectives_config(spec, config_for(spec), MPI_COMM_WORLD,
                                                    mpi_communicator_factory(), lines, &table);
  ASSERT_EQ(run.config.status, results::Status::ok) << run.config.error;
  EXPECT_EQ(run.config.device_kind, "host");  // MPI buffers are host memory
  EXPECT_EQ(run.config.text_attrs.at("dtype"), job::data_type_text(dtype));
  EXPECT_EQ(run.config.text_attrs.at("redop"), job::reduction_op_text(redop));
  EXPECT_EQ(run.config.text_attrs.at("ops"),
            "all_reduce,reduce_scatter,all_gather,all_gatherv,alltoall,alltoallv,broadcast");
  if (world_rank() != 0) return;
  const std::size_t sizes = job::collective_sizes(spec.workload.collectives).size();
  // Out of place and in place for every op.
  ASSERT_EQ(run.rows.size(), sizes * 2 * job::kCollectiveOps.size());
  for (const auto& r : run.rows) {
    SCOPED_TRACE(r.op + " " + std::to_string(r.bytes) + " B in_place " +
                 std::to_string(r.in_place));
    const bool unverifiable = r.in_place && r.op.starts_with("alltoall");
    EXPECT_EQ(r.wrong, unverifiable ? -1 : 0);
    EXPECT_EQ(r.ranks, world_size());
    EXPECT_GT(r.time_us, 0.0);
    EXPECT_NEAR(r.algbw_gbps, r.bytes / r.time_us / 1e3, 1e-12 * r.algbw_gbps);
    EXPECT_NEAR(r.busbw_gbps, r.algbw_gbps * published_factor(r.op, r.ranks), 1e-12 * r.algbw_gbps);
    EXPECT_EQ(r.source, "scaletune:" + config_for(spec).id);
  }
  // The printed table reads back as nccl-tests output: one row per size and op.
  const auto parsed = autotune::parse_nccl_tests_log(table.str(), "stdout");
  ASSERT_EQ(parsed.size(), sizes * job::kCollectiveOps.size());
  EXPECT_EQ(parsed.front().op, "all_reduce");
  EXPECT_EQ(parsed.front().ranks, world_size());
  EXPECT_EQ(parsed.back().op, "broadcast");
  // One iteration: the whole benchmark; the ops' timed loops fit in it on every rank.
  ASSERT_EQ(run.config.step_time.size(), 1u);
  ASSERT_EQ(run.config.phase_names, every_op_name());
  for (int r = 0; r < world_size(); ++r) {
    double sum = 0;
    for (std::size_t p = 0; p < run.config.phase_names.size(); ++p)
      sum += run.config.phase_time(static_cast<std::size_t>(r), 0, p);
    EXPECT_GT(sum, 0.0);
    EXPECT_LE(sum, run.config.step_time[0]);
  }
  EXPECT_DOUBLE_EQ(run.config.throughput, 1.0 / run.config.step_time[0]);
}

INSTANTIATE_TEST_SUITE_P(Collectives, EveryDtype,
                         ::testing::Values(std::tuple{DataType::fp32, ReductionOp::sum},
                                           std::tuple{DataType::fp64, ReductionOp::sum},
                                           std::tuple{DataType::fp16, ReductionOp::sum},
                                           std::tuple{DataType::bf16, ReductionOp::sum},
                                           std::tuple{DataType::int32, ReductionOp::sum},
                                           std::tuple{DataType::int64, ReductionOp::sum},
                                           std::tuple{DataType::fp32, ReductionOp::avg},
                                           std::tuple{DataType::bf16, ReductionOp::avg},
                                           std::tuple{DataType::int32, ReductionOp::avg}));

// 8 to 16 B by 1.05: the sizes 8, 9, ..., 16 round to 8, 12 and 16 B of fp32: each is timed once.
TEST(CollectivesSizes, SizesRoundingToTheSameBufferAreTimedOnce) {
  job::JobSpec spec = collectives_job(DataType::fp32, ReductionOp::sum);
  spec.workload.collectives.ops = {job::CollectiveOp::all_reduce};
  spec.workload.collectives.min_bytes = 8;
  spec.workload.collectives.max_bytes = 16;
  spec.workload.collectives.step_factor = 1.05;
  const CollectivesRun run = run_collectives_config(spec, config_for(spec), MPI_COMM_WORLD,
                                                    mpi_communicator_factory(), {}, nullptr);
  ASSERT_EQ(run.config.status, results::Status::ok) << run.config.error;
  if (world_rank() != 0) return;
  std::vector<std::int64_t> bytes;
  for (const auto& r : run.rows)
    if (!r.in_place) bytes.push_back(r.bytes);
  EXPECT_EQ(bytes, (std::vector<std::int64_t>{8, 12, 16}));
  EXPECT_GT(job::collective_sizes(spec.workload.collectives).size(), 3u);
}

TEST(CollectivesFailure, FactoryErrorOnOneRankIsRecordedOnAll) {
  const job::JobSpec spec = collectives_job(DataType::fp32, ReductionOp::sum);
  const CommunicatorFactory failing = [](MPI_Comm comm) -> std::unique_ptr<core::Communicator> {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 1) throw std::runtime_error("no CUDA device on this rank");
    return std::make_unique<MpiCommunicator>(comm);
  };
  const CollectivesRun run =
      run_collectives_config(spec, config_for(spec), MPI_COMM_WORLD, failing, {}, nullptr);
  EXPECT_EQ(run.config.status, results::Status::error);
  EXPECT_EQ(run.config.error, "rank 1: no CUDA device on this rank");
  EXPECT_TRUE(run.rows.empty());
}

// A communicator whose buffers never fit: the configuration is oom and the sweep can go on.
class NoMemoryCommunicator : public MpiCommunicator {
 public:
  using MpiCommunicator::MpiCommunicator;
  std::unique_ptr<core::CommBuffer> allocate(std::size_t) override { throw std::bad_alloc(); }
};

// Flips a bit of rank 1's all-reduce result: the benchmark must see it and fail the
// configuration, keeping the rows with their wrong counts.
class CorruptingCommunicator : public MpiCommunicator {
 public:
  using MpiCommunicator::MpiCommunicator;
  void all_reduce(const void* send, void* recv, std::size_t count, core::DType type,
                  core::ReduceOp op) override {
    MpiCommunicator::all_reduce(send, recv, count, type, op);
    // The top exponent bit of element 0 (little-endian): the value changes by far.
    if (rank() == 1 && count > 0)
      static_cast<unsigned char*>(recv)[core::dtype_bytes(type) - 1] ^= 0x40;
  }
};

TEST(CollectivesFailure, WrongResultsFailTheConfigurationAndKeepTheRows) {
  const job::JobSpec spec = collectives_job(DataType::fp32, ReductionOp::sum);
  const CommunicatorFactory corrupting = [](MPI_Comm comm) {
    return std::make_unique<CorruptingCommunicator>(comm);
  };
  const CollectivesRun run =
      run_collectives_config(spec, config_for(spec), MPI_COMM_WORLD, corrupting, {}, nullptr);
  if (world_rank() != 0) return;
  EXPECT_EQ(run.config.status, results::Status::error);
  EXPECT_NE(run.config.error.find("verification failed"), std::string::npos) << run.config.error;
  ASSERT_FALSE(run.rows.empty());
  for (const auto& r : run.rows) {
    SCOPED_TRACE(r.op + " " + std::to_string(r.bytes) + " B");
    const bool corrupted = r.op == "all_reduce";  // every size holds at least one element
    const bool unverifiable = r.in_place && r.op.starts_with("alltoall");
    EXPECT_EQ(r.wrong, corrupted ? 1 : unverifiable ? -1 : 0);
  }
}

TEST(CollectivesFailure, AllocationFailureIsOom) {
  const job::JobSpec spec = collectives_job(DataType::fp32, ReductionOp::sum);
  const CommunicatorFactory full = [](MPI_Comm comm) {
    return std::make_unique<NoMemoryCommunicator>(comm);
  };
  const CollectivesRun run =
      run_collectives_config(spec, config_for(spec), MPI_COMM_WORLD, full, {}, nullptr);
  EXPECT_EQ(run.config.status, results::Status::oom);
  EXPECT_NE(run.config.error.find("out of memory"), std::string::npos) << run.config.error;
}

}  // namespace
}  // namespace scaletune::mpi
