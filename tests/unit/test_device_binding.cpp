// Device binding without MPI or CUDA: which local rank wins (shared-memory split, then
// Open MPI's, then Slurm's variable, then 0) and the round-robin device index.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/mpi/device_binding.hpp"

namespace scaletune::mpi {
namespace {

/// A fake environment: getenv over `vars`, recording every name looked up.
struct FakeEnv {
  std::map<std::string, std::string> vars;
  mutable std::vector<std::string> asked;

  const char* operator()(const char* name) const {
    asked.emplace_back(name);
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  }
};

int local_rank_in(std::optional<int> split, const FakeEnv& env) {
  return local_rank_from(split, [&env](const char* name) { return env(name); });
}

TEST(LocalRank, SharedSplitRankWinsOverEveryVariable) {
  const FakeEnv env{{{"OMPI_COMM_WORLD_LOCAL_RANK", "3"}, {"SLURM_LOCALID", "5"}}, {}};
  EXPECT_EQ(local_rank_in(2, env), 2);
  EXPECT_EQ(local_rank_in(0, env), 0);
  EXPECT_TRUE(env.asked.empty());  // the environment is not even read
}

TEST(LocalRank, OpenMpiVariableBeforeSlurmVariable) {
  const FakeEnv env{{{"OMPI_COMM_WORLD_LOCAL_RANK", "3"}, {"SLURM_LOCALID", "5"}}, {}};
  EXPECT_EQ(local_rank_in(std::nullopt, env), 3);
}

TEST(LocalRank, SlurmVariableWhenOpenMpiIsUnset) {
  const FakeEnv env{{{"SLURM_LOCALID", "5"}}, {}};
  EXPECT_EQ(local_rank_in(std::nullopt, env), 5);
  EXPECT_EQ(env.asked, (std::vector<std::string>{"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"}));
}

TEST(LocalRank, ZeroWhenNothingIsKnown) {
  EXPECT_EQ(local_rank_in(std::nullopt, FakeEnv{}), 0);
}

TEST(LocalRank, MalformedVariableNamesVariableValueAndExpectation) {
  for (const std::string bad : {"abc", "-1", "2x", ""}) {
    const FakeEnv env{{{"OMPI_COMM_WORLD_LOCAL_RANK", bad}, {"SLURM_LOCALID", "1"}}, {}};
    try {
      local_rank_in(std::nullopt, env);
      ADD_FAILURE() << "expected std::invalid_argument for \"" << bad << "\"";
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("OMPI_COMM_WORLD_LOCAL_RANK=\"" + bad + "\""), std::string::npos)
          << message;
      EXPECT_NE(message.find("non-negative integer"), std::string::npos) << message;
    }
  }
}

TEST(DeviceForRank, LocalRankModuloVisibleDevices) {
  // Reference: ranks 0..7 on a node with 3 devices go to 0 1 2 0 1 2 0 1.
  const int expected[] = {0, 1, 2, 0, 1, 2, 0, 1};
  for (int rank = 0; rank < 8; ++rank) EXPECT_EQ(device_for_rank(rank, 3), expected[rank]) << rank;
  // One visible device per rank (CUDA_VISIBLE_DEVICES set per rank): always device 0.
  for (int rank = 0; rank < 4; ++rank) EXPECT_EQ(device_for_rank(rank, 1), 0);
  EXPECT_EQ(device_for_rank(5, 8), 5);
}

TEST(DeviceForRank, NoVisibleDeviceOrNegativeRankThrows) {
  try {
    device_for_rank(0, 0);
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("0 visible CUDA devices"), std::string::npos) << message;
    EXPECT_NE(message.find("at least 1"), std::string::npos) << message;
  }
  EXPECT_THROW(device_for_rank(0, -2), std::invalid_argument);
  EXPECT_THROW(device_for_rank(-1, 2), std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::mpi
