// Ranks bound to one core: the groups found from each rank's (host, core), Open MPI's yield
// setting read from the environment, and the warning rank 0 gets from the collective call.
#include <gtest/gtest.h>

#include <mpi.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "harness/mpi/host_names.hpp"
#include "harness/mpi/shared_cores.hpp"
#include "tests/support/mpi_world.hpp"

namespace scaletune::mpi {
namespace {

TEST(SharedCores, GroupsRanksOfOneCoreOfOneHostAndSkipsUnboundRanks) {
  const std::vector<RankBinding> bindings = {{"a", 0},  {"a", 0},  {"a", 1}, {"b", 0},
                                             {"a", -1}, {"a", -1}, {"b", 0}, {"a", 0}};
  const std::vector<std::vector<int>> want = {{0, 1, 7}, {3, 6}};
  EXPECT_EQ(ranks_sharing_a_core(bindings), want);
  EXPECT_TRUE(ranks_sharing_a_core({{"a", 0}, {"a", 1}, {"b", 0}, {"a", -1}}).empty());
}

TEST(SharedCores, YieldIsReadFromOpenMpisVariable) {
  const char* name = "OMPI_MCA_mpi_yield_when_idle";
  const char* before = std::getenv(name);
  const std::string saved = before ? before : "";
  for (const auto& [value, yields] : {std::pair{"1", true}, std::pair{"true", true},
                                      std::pair{"0", false}, std::pair{"", false}}) {
    setenv(name, value, 1);
    EXPECT_EQ(yields_when_idle(), yields) << value;
  }
  unsetenv(name);
  EXPECT_FALSE(yields_when_idle());
  if (before) setenv(name, saved.c_str(), 1);
}

// The collective call: rank 0 warns exactly when the launch's own bindings (gathered here with
// MPI_Allgather of the cores and the host names, however mpiexec bound the ranks) put two ranks
// on one core and Open MPI was not told to yield; the other ranks get no warning.
TEST(SharedCores, WarningOnRankZeroFollowsTheLaunchsBindings) {
  const std::string warning = shared_core_warning(MPI_COMM_WORLD);
  const int core = own_binding().core;
  std::vector<int> cores(static_cast<std::size_t>(test::world_size()));
  MPI_Allgather(&core, 1, MPI_INT, cores.data(), 1, MPI_INT, MPI_COMM_WORLD);
  const std::vector<std::string> hosts = host_names(MPI_COMM_WORLD);
  if (test::world_rank() != 0) {
    EXPECT_EQ(warning, "");
    return;
  }
  std::vector<RankBinding> bindings;
  for (std::size_t r = 0; r < cores.size(); ++r) bindings.push_back({hosts[r], cores[r]});
  const bool shared = !ranks_sharing_a_core(bindings).empty();
  EXPECT_EQ(!warning.empty(), shared && !yields_when_idle()) << warning;
  if (!warning.empty()) {
    EXPECT_NE(warning.find("share core"), std::string::npos) << warning;
    EXPECT_NE(warning.find("mpirun --mca mpi_yield_when_idle 1"), std::string::npos) << warning;
  }
}

}  // namespace
}  // namespace scaletune::mpi
