// Under mpirun: data-parallel training is the same computation as one rank on the whole batch.
// Two (or three) ranks on parts of the global batch, with batch-norm statistics over the global
// batch, end with the same weights as one rank that trains on the whole batch (fp32 tolerance).
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <vector>

#include "harness/core/gradient_allreduce.hpp"
#include "harness/job/batch_split.hpp"
#include "harness/mpi/mpi_communicator.hpp"
#include "kernels/resnet50.hpp"

namespace scaletune::mpi {
namespace {

constexpr int kGlobalBatch = 6;
constexpr int kSteps = 2;

job::ResNet50Options tiny_options() {
  job::ResNet50Options o;
  o.image_size = 32;
  o.width = 0.125;
  o.num_classes = 10;
  o.sync_batch_norm = true;
  return o;
}

// Trains kSteps on `comm` with `per_rank` samples on each rank; returns the final weights.
std::vector<float> train(MPI_Comm comm, const std::vector<int>& per_rank) {
  MpiCommunicator communicator(comm);
  core::RankContext ctx;
  ctx.comm = &communicator;
  ctx.global_batch = kGlobalBatch;
  ctx.per_rank_batch = per_rank[static_cast<std::size_t>(communicator.rank())];
  for (int r = 0; r < communicator.rank(); ++r)
    ctx.sample_offset += per_rank[static_cast<std::size_t>(r)];
  ctx.bucket_bytes = 64 * 1024;  // several buckets
  ctx.seed = 7;
  ops::SgdOptions sgd;
  sgd.lr = 0.01f;  // small steps: the loss at initialisation is sharp, large ones amplify rounding
  kernels::ResNet50 model(tiny_options(), ctx, sgd);
  core::PhaseTimer timer(model.phase_names(), 1, [] { Kokkos::fence(); });
  for (int s = 0; s < kSteps; ++s) model.step(timer);
  const auto p = model.parameters();
  return {p.begin(), p.end()};
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  double worst = 0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err =
        std::abs(double(got[i]) - want[i]) / std::max(1e-2, std::abs(double(want[i])));
    if (err > worst) worst = err, at = i;
  }
  EXPECT_LT(worst, 2e-3) << "largest relative difference at parameter " << at << ": " << got[at]
                         << " vs " << want[at];
}

TEST(DataParallel, RanksOnPartsOfTheBatchMatchOneRankOnTheWholeBatch) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::vector<float> reference = train(MPI_COMM_SELF, {kGlobalBatch});
  const std::vector<float> parallel = train(MPI_COMM_WORLD, job::even_split(kGlobalBatch, size));
  expect_close(parallel, reference);
}

TEST(DataParallel, UnevenSplitWeightsGradientsByShareOfTheBatch) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> uneven(static_cast<std::size_t>(size), 1);
  uneven[0] = kGlobalBatch - (size - 1);  // rank 0 takes most of the batch
  const std::vector<float> reference = train(MPI_COMM_SELF, {kGlobalBatch});
  expect_close(train(MPI_COMM_WORLD, uneven), reference);
}

TEST(DataParallel, EveryRankEndsWithTheSameWeights) {
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<float> mine = train(MPI_COMM_WORLD, job::even_split(kGlobalBatch, size));
  std::vector<float> root = mine;
  MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_FLOAT, 0, MPI_COMM_WORLD);
  // The averaged gradient is the same on every rank, so the updates are too (an all-reduce may
  // associate the sum differently on different ranks: allow fp32 rounding, nothing more).
  double worst = 0;
  for (std::size_t i = 0; i < mine.size(); ++i)
    worst = std::max(worst, double(std::abs(mine[i] - root[i])));
  EXPECT_LT(worst, 1e-6) << "rank " << rank << " diverged from rank 0";
}

}  // namespace
}  // namespace scaletune::mpi
