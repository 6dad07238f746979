// Backend choice for [comm] backend: every branch of "auto", "mpi" and "nccl", and messages a
// user can act on when "nccl" cannot run.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "harness/core/backend_choice.hpp"

namespace scaletune::core {
namespace {

/// Runs choose_backend and returns BackendUnavailable's message ("" and a failure if none).
std::string unavailable_message(bool device_memory, bool nccl_built, int cuda_devices) {
  try {
    choose_backend("nccl", device_memory, nccl_built, cuda_devices);
  } catch (const BackendUnavailable& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected BackendUnavailable";
  return "";
}

/// Expects `text` to contain every one of `parts`.
void expect_contains(const std::string& text, const std::vector<std::string>& parts) {
  for (const auto& part : parts)
    EXPECT_NE(text.find(part), std::string::npos) << part << " in " << text;
}

TEST(ChooseBackend, AutoPicksNcclOnlyWhenDeviceWorkloadNcclAndDeviceAllHold) {
  EXPECT_EQ(choose_backend("auto", true, true, 1), "nccl");
  EXPECT_EQ(choose_backend("auto", true, true, 8), "nccl");
  EXPECT_EQ(choose_backend("auto", false, true, 8), "mpi");  // host-memory workload
  EXPECT_EQ(choose_backend("auto", true, false, 8), "mpi");  // NCCL not built in
  EXPECT_EQ(choose_backend("auto", true, true, 0), "mpi");   // no device visible
  EXPECT_EQ(choose_backend("auto", false, false, 0), "mpi");
}

TEST(ChooseBackend, MpiIsAlwaysMpi) {
  EXPECT_EQ(choose_backend("mpi", true, true, 4), "mpi");
  EXPECT_EQ(choose_backend("mpi", false, false, 0), "mpi");
}

TEST(ChooseBackend, NcclWhenBuiltDeviceWorkloadAndDevicePresent) {
  EXPECT_EQ(choose_backend("nccl", true, true, 1), "nccl");
}

TEST(ChooseBackend, NcclWithoutDeviceSaysSoAndWhatToUse) {
  const std::string message = unavailable_message(true, true, 0);
  expect_contains(message, {"comm.backend = \"nccl\"", "CUDA device", "none",
                            "cudaGetDeviceCount found 0", "\"mpi\"", "\"auto\""});
}

TEST(ChooseBackend, NcclNotBuiltInHasItsOwnMessage) {
  const std::string message = unavailable_message(true, false, 4);
  expect_contains(message, {"comm.backend = \"nccl\"", "built without", "\"mpi\"", "\"auto\""});
  EXPECT_EQ(message.find("cudaGetDeviceCount"), std::string::npos) << message;
  EXPECT_NE(message, unavailable_message(true, true, 0));
}

TEST(ChooseBackend, NcclForHostMemoryWorkloadExplainsHostMemory) {
  const std::string message = unavailable_message(false, true, 4);
  expect_contains(message, {"comm.backend = \"nccl\"", "host memory", "\"mpi\""});
  EXPECT_EQ(message.find("built without"), std::string::npos) << message;
}

TEST(ChooseBackend, UnknownBackendNamesValueAndChoices) {
  try {
    choose_backend("gloo", true, true, 1);
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    expect_contains(e.what(), {"\"gloo\"", "\"mpi\"", "\"nccl\"", "\"auto\""});
  }
  EXPECT_THROW(choose_backend("", false, false, 0), std::invalid_argument);
  EXPECT_THROW(choose_backend("NCCL", true, true, 1), std::invalid_argument);  // case matters
}

}  // namespace
}  // namespace scaletune::core
