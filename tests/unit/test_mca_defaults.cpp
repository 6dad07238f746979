// The Open MPI defaults scaletune sets before MPI_Init, and that a user's own value wins.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "harness/mpi/mca_defaults.hpp"
#include "tests/support/scoped_env.hpp"

namespace scaletune::mpi {
namespace {

constexpr const char* kIallreduce = "OMPI_MCA_coll_libnbc_iallreduce_algorithm";

TEST(MpiMcaDefaults, IallreduceUsesRabenseifnerUnlessTheUserChose) {
  {
    const testing_support::ScopedEnv unset(kIallreduce, std::nullopt);
    set_mca_defaults();
    ASSERT_NE(std::getenv(kIallreduce), nullptr);
    EXPECT_EQ(std::string(std::getenv(kIallreduce)), "3");
  }
  const testing_support::ScopedEnv ring(kIallreduce, "1");
  set_mca_defaults();
  EXPECT_EQ(std::string(std::getenv(kIallreduce)), "1");
}

}  // namespace
}  // namespace scaletune::mpi
