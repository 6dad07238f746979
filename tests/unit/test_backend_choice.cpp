// Backend choice for [comm] backend on a launch of a device kind: every combination of request,
// device kind and build, and messages a user can act on when "nccl" cannot run.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/core/backend_choice.hpp"

namespace scaletune::core {
namespace {

using job::CommBackend;
using job::DeviceKind;

/// Runs choose_backend for "nccl" and returns BackendUnavailable's message ("" and a failure if
/// none).
std::string unavailable_message(DeviceKind kind, bool nccl_built) {
  try {
    choose_backend(CommBackend::nccl, kind, nccl_built);
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

TEST(ChooseBackend, AutoPicksNcclOnlyOnCudaWithNcclBuilt) {
  EXPECT_EQ(choose_backend(CommBackend::auto_select, DeviceKind::cuda, true), "nccl");
  EXPECT_EQ(choose_backend(CommBackend::auto_select, DeviceKind::cuda, false), "mpi");
  EXPECT_EQ(choose_backend(CommBackend::auto_select, DeviceKind::host, true), "mpi");
  EXPECT_EQ(choose_backend(CommBackend::auto_select, DeviceKind::host, false), "mpi");
}

TEST(ChooseBackend, MpiIsAlwaysMpi) {
  for (const DeviceKind kind : {DeviceKind::host, DeviceKind::cuda})
    for (const bool built : {false, true})
      EXPECT_EQ(choose_backend(CommBackend::mpi, kind, built), "mpi");
}

TEST(ChooseBackend, NcclOnCudaWithNcclBuilt) {
  EXPECT_EQ(choose_backend(CommBackend::nccl, DeviceKind::cuda, true), "nccl");
}

TEST(ChooseBackend, NcclOnTheHostSaysWhyAndWhatToUse) {
  const std::string message = unavailable_message(DeviceKind::host, true);
  expect_contains(message, {"comm.backend = \"nccl\"", "CUDA devices", "runs on the host",
                            "devices.kind = \"host\"", "device buffers", "\"mpi\"", "\"auto\""});
}

TEST(ChooseBackend, NcclNotBuiltInHasItsOwnMessage) {
  for (const DeviceKind kind : {DeviceKind::host, DeviceKind::cuda}) {
    const std::string message = unavailable_message(kind, false);
    expect_contains(message, {"comm.backend = \"nccl\"", "built without", "\"mpi\"", "\"auto\""});
    EXPECT_EQ(message.find("runs on the host"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace scaletune::core
