// Under mpirun: a failed rank's notice reaches world rank 0 tagged with its configuration, once
// per configuration, while rank 0 polls from another thread; notices of an earlier
// configuration are dropped; rank 0's own failure is seen without a message.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <future>
#include <optional>
#include <string>
#include <thread>

#include "harness/mpi/failure_notices.hpp"
#include "harness/mpi/failure_watch.hpp"
#include "tests/support/mpi_world.hpp"

namespace scaletune::mpi {
namespace {

using test::world_rank;
using test::world_size;

// Rank 0: polls `notices` on another thread until a notice arrives or 10 s pass.
std::optional<std::string> poll_until_notice(FailureNotices& notices) {
  return std::async(std::launch::async,
                    [&] {
                      const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
                      while (std::chrono::steady_clock::now() < end) {
                        if (auto message = notices.poll()) return message;
                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                      }
                      return std::optional<std::string>();
                    })
      .get();
}

TEST(FailureNotices, TheFirstNoticeOfTheCurrentConfigurationReachesRankZero) {
  FailureNotices notices(MPI_COMM_WORLD);
  ASSERT_TRUE(notices.enabled()) << "the MPI test main asks for MPI_THREAD_MULTIPLE";
  const int rank = world_rank();
  const int last = world_size() - 1;
  notices.begin(0);
  if (rank == last) notices.announce("rank 1: stale");  // configuration 0's, never polled
  MPI_Barrier(MPI_COMM_WORLD);
  notices.begin(1);
  if (rank == last) {
    notices.announce("rank 1: first");
    notices.announce("rank 1: second");  // once per configuration: not sent
  }
  if (rank == 0) {
    EXPECT_EQ(poll_until_notice(notices), "rank 1: first");
    EXPECT_EQ(notices.poll(), std::nullopt) << "a second notice of the same configuration";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  notices.begin(2);  // rank 0's own failure: no message, seen at once
  if (rank == 0) {
    EXPECT_EQ(notices.poll(), std::nullopt);
    notices.announce("rank 0: local");
    EXPECT_EQ(notices.poll(), "rank 0: local");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(FailureWatch, CallsBackOnlyWhenTheConfigurationOutlivesTheGrace) {
  FailureNotices notices(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  notices.begin(0);
  notices.announce("rank 0: failed");
  std::promise<std::string> stranded;
  {
    const FailureWatch watch(
        notices, [] { return 0.05; },
        [&](const std::string& m, double grace_s) {
          stranded.set_value(m + " after " + std::to_string(grace_s));
        });
    std::future<std::string> called_back = stranded.get_future();
    ASSERT_EQ(called_back.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    EXPECT_EQ(called_back.get(), "rank 0: failed after " + std::to_string(0.05));
  }
  notices.begin(1);
  notices.announce("rank 0: agreed in time");
  bool called = false;
  {
    const FailureWatch watch(
        notices, [] { return 30.0; }, [&](const std::string&, double) { called = true; });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the watch has seen the notice
  }
  EXPECT_FALSE(called) << "the watch ended before its grace and must not call back";
}

// The grace rank 0 gives the other ranks grows with the longest step of the configuration: a
// rank that failed at the end of a long step leaves the others that long to finish theirs.
TEST(FailureNotices, KeepTheLongestStepOfTheConfigurationForTheGrace) {
  FailureNotices notices(MPI_COMM_WORLD);
  notices.begin(0);
  EXPECT_EQ(notices.longest_step_s(), 0.0);
  for (const double s : {0.2, 0.5, 0.1}) notices.note_step(s);
  EXPECT_EQ(notices.longest_step_s(), 0.5);
  EXPECT_DOUBLE_EQ(stranded_grace_s(10, notices.longest_step_s()), 5 + 1 + 2 * 0.5);
  notices.begin(1);
  EXPECT_EQ(notices.longest_step_s(), 0.0);
}

}  // namespace
}  // namespace scaletune::mpi
