// Initialises Kokkos once for a whole GoogleTest binary (Views need it).
#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

namespace {
class KokkosEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    if (!Kokkos::is_initialized()) Kokkos::initialize();
  }
  void TearDown() override {
    if (Kokkos::is_initialized()) Kokkos::finalize();
  }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new KokkosEnvironment);
}  // namespace
