// Under mpirun on one host: a sub-communicator of k ranks is the first k ranks in world order
// (placement on one host), and a sum over it adds exactly those ranks' values.
#include <gtest/gtest.h>
#include <mpi.h>

#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/mpi/host_names.hpp"
#include "harness/mpi/placement.hpp"
#include "harness/mpi/sub_communicator.hpp"
#include "tests/support/mpi_world.hpp"

namespace scaletune::mpi {
namespace {

using test::world_rank;
using test::world_size;

std::vector<int> first(int k) {
  std::vector<int> r(static_cast<std::size_t>(k));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

TEST(SubCommunicatorPlacement, OneHostPlacesTheFirstRanks) {
  // The test launch is on one host: every rank's name is this rank's.
  const std::vector<std::string> hosts(static_cast<std::size_t>(world_size()), processor_name());
  EXPECT_EQ(host_names(MPI_COMM_WORLD), hosts);
  for (int k = 1; k <= world_size(); ++k) EXPECT_EQ(placement_ranks(hosts, k), first(k));
}

TEST(SubCommunicatorPlacement, MembersAreTheFirstRanksAndSumTheirValues) {
  const int rank = world_rank();
  for (int k = 1; k <= world_size(); ++k) {
    const SubCommunicator sub(MPI_COMM_WORLD, k, host_names(MPI_COMM_WORLD));
    EXPECT_EQ(sub.parent_ranks(), first(k)) << "k " << k;
    ASSERT_EQ(sub.member(), rank < k) << "k " << k;
    if (!sub.member()) continue;
    int sub_rank = -1, sub_size = 0;
    MPI_Comm_rank(sub.get(), &sub_rank);
    MPI_Comm_size(sub.get(), &sub_size);
    EXPECT_EQ(sub_rank, rank);
    EXPECT_EQ(sub_size, k);
    long value = 10L * (rank + 1) + rank * rank;  // no two ranks share a value
    long sum = 0;
    MPI_Allreduce(&value, &sum, 1, MPI_LONG, MPI_SUM, sub.get());
    long expected = 0;  // naive reference: the members' values added one by one
    for (int r = 0; r < k; ++r) expected += 10L * (r + 1) + r * r;
    EXPECT_EQ(sum, expected) << "k " << k;
  }
}

TEST(SubCommunicatorPlacement, AHostListOfAnotherLengthThrowsOnEveryRank) {
  const std::vector<std::string> one_too_many(static_cast<std::size_t>(world_size()) + 1, "h");
  EXPECT_THROW(SubCommunicator(MPI_COMM_WORLD, 1, one_too_many), std::invalid_argument);
}

TEST(SubCommunicatorPlacement, RanksOutsideTheWorldThrowOnEveryRank) {
  EXPECT_THROW(SubCommunicator(MPI_COMM_WORLD, 0, host_names(MPI_COMM_WORLD)),
               std::invalid_argument);
  EXPECT_THROW(SubCommunicator(MPI_COMM_WORLD, world_size() + 1, host_names(MPI_COMM_WORLD)),
               std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::mpi
