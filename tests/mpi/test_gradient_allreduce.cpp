// Under mpirun: after the bucketed all-reduce every rank holds the average gradient, and ranks
// agree on the worst status with the first failing rank's message.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "harness/core/gradient_allreduce.hpp"
#include "harness/mpi/host_names.hpp"
#include "harness/mpi/mpi_communicator.hpp"
#include "harness/mpi/status_agreement.hpp"
#include "harness/mpi/sub_communicator.hpp"

namespace scaletune::mpi {
namespace {

// Rank r's gradient element i: a value no two (r, i) share.
float local_grad(int r, std::size_t i) {
  return static_cast<float>((r + 1) * 1000 + i % 997);
}

TEST(BucketedAllReduce, EveryRankHoldsTheAverage) {
  MpiCommunicator comm(MPI_COMM_WORLD);
  const int n = comm.size();
  for (const double bucket_bytes : {4.0 * 1000, 25.0 * (1 << 20), 4.0 * 7}) {
    std::vector<float> grads(10'001);
    for (std::size_t i = 0; i < grads.size(); ++i) grads[i] = local_grad(comm.rank(), i);
    core::bucketed_all_reduce(comm, grads, bucket_bytes, 1.0f / static_cast<float>(n));
    for (std::size_t i = 0; i < grads.size(); ++i) {
      double mean = 0;  // naive reference: the mean of every rank's value
      for (int r = 0; r < n; ++r) mean += local_grad(r, i);
      mean /= n;
      ASSERT_NEAR(grads[i], mean, 1e-3) << "element " << i << ", bucket " << bucket_bytes;
    }
  }
}

TEST(StatusAgreement, WorstStatusAndFirstFailingRanksMessage) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto all_ok = agree_status(MPI_COMM_WORLD, results::Status::ok, "");
  EXPECT_EQ(all_ok.status, results::Status::ok);
  // The last rank runs out of memory, rank 0 times out: oom is worse, reported by the last rank.
  results::Status mine = results::Status::ok;
  if (rank == 0) mine = results::Status::timeout;
  if (rank == size - 1) mine = results::Status::oom;
  const auto agreed = agree_status(MPI_COMM_WORLD, mine, "from rank " + std::to_string(rank));
  EXPECT_EQ(agreed.status, results::Status::oom);
  EXPECT_EQ(agreed.error,
            "rank " + std::to_string(size - 1) + ": from rank " + std::to_string(size - 1));
}

TEST(StatusAgreement, AnUnusableDeviceOutranksEveryOtherError) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Rank 0 reports an ordinary error; the last rank's device is lost: its message wins.
  const bool lost = rank == size - 1;
  const results::Status mine = rank == 0 || lost ? results::Status::error : results::Status::ok;
  const auto agreed = agree_status(MPI_COMM_WORLD, mine, "from rank " + std::to_string(rank), lost);
  EXPECT_EQ(agreed.status, results::Status::error);
  EXPECT_EQ(agreed.error,
            "rank " + std::to_string(size - 1) + ": from rank " + std::to_string(size - 1));
  ASSERT_TRUE(agreed.device_lost.has_value());
  EXPECT_EQ(agreed.device_lost->rank, size - 1);
  EXPECT_EQ(agreed.device_lost->message, "from rank " + std::to_string(size - 1));
  // An ordinary error alone sets no device loss.
  const auto ordinary =
      agree_status(MPI_COMM_WORLD, rank == 0 ? results::Status::error : results::Status::ok, "x");
  EXPECT_EQ(ordinary.error, "rank 0: x");
  EXPECT_FALSE(ordinary.device_lost.has_value());
}

TEST(SubCommunicator, FirstRanksOnly) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int ranks = 1; ranks <= size; ++ranks) {
    const SubCommunicator sub(MPI_COMM_WORLD, ranks, host_names(MPI_COMM_WORLD));
    EXPECT_EQ(sub.member(), rank < ranks);
    if (!sub.member()) continue;
    MpiCommunicator comm(sub.get());
    EXPECT_EQ(comm.size(), ranks);
    EXPECT_EQ(comm.rank(), rank);
    double one = 1.0;
    comm.all_reduce_sum(std::span<double>(&one, 1));
    EXPECT_DOUBLE_EQ(one, ranks);
  }
}

}  // namespace
}  // namespace scaletune::mpi
