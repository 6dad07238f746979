// The device kind of a launch from [devices] kind and what each rank sees of CUDA, and whether
// its devices serve a precision: every request against launches with devices everywhere, on
// some ranks, on none, and builds with and without CUDA; the messages name the rank, its host,
// the device and what to use instead.

#include "harness/job/device_selection.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace scaletune::job {
namespace {

/// Rank `rank` on `host` seeing `devices` devices; it binds to an H200 (9.0) when it has one.
RankDevices rank_with(int rank, const std::string& host, int devices) {
  return {.rank = rank,
          .host = host,
          .cuda_devices = devices,
          .device = devices > 0 ? "NVIDIA H200" : "",
          .compute_capability = devices > 0 ? 90 : 0};
}

/// Four ranks on two hosts, every rank seeing two devices.
std::vector<RankDevices> everywhere() {
  return {rank_with(0, "node01", 2), rank_with(1, "node01", 2), rank_with(2, "node02", 2),
          rank_with(3, "node02", 2)};
}

/// everywhere() with node02's ranks 2 and 3 seeing none (listed out of order).
std::vector<RankDevices> node02_without() {
  return {rank_with(3, "node02", 0), rank_with(0, "node01", 2), rank_with(2, "node02", 0),
          rank_with(1, "node01", 2)};
}

std::vector<RankDevices> nowhere() {
  return {rank_with(0, "laptop", 0), rank_with(1, "laptop", 0)};
}

/// DeviceUnavailable's message from choose_device_kind ("" and a failure if none).
std::string choice_error(DeviceKindRequest request, const std::vector<RankDevices>& ranks,
                         bool cuda_built) {
  try {
    choose_device_kind(request, ranks, cuda_built);
  } catch (const DeviceUnavailable& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected DeviceUnavailable";
  return "";
}

void expect_contains(const std::string& text, const std::vector<std::string>& parts) {
  for (const auto& part : parts)
    EXPECT_NE(text.find(part), std::string::npos) << part << " in " << text;
}

TEST(ChooseDeviceKind, HostIsAlwaysHost) {
  for (const auto& ranks : {everywhere(), node02_without(), nowhere()})
    for (const bool built : {false, true})
      EXPECT_EQ(choose_device_kind(DeviceKindRequest::host, ranks, built), DeviceKind::host);
}

TEST(ChooseDeviceKind, AutoIsCudaOnlyWhenEveryRankHasADeviceAndCudaIsBuilt) {
  EXPECT_EQ(choose_device_kind(DeviceKindRequest::auto_select, everywhere(), true),
            DeviceKind::cuda);
  EXPECT_EQ(choose_device_kind(DeviceKindRequest::auto_select, everywhere(), false),
            DeviceKind::host);
  EXPECT_EQ(choose_device_kind(DeviceKindRequest::auto_select, node02_without(), true),
            DeviceKind::host);
  EXPECT_EQ(choose_device_kind(DeviceKindRequest::auto_select, nowhere(), true), DeviceKind::host);
  EXPECT_EQ(choose_device_kind(DeviceKindRequest::auto_select, {}, true), DeviceKind::host);
  const std::vector<RankDevices> solo = {rank_with(0, "solo", 1)};
  EXPECT_EQ(choose_device_kind(DeviceKindRequest::auto_select, solo, true), DeviceKind::cuda);
}

TEST(ChooseDeviceKind, CudaWhereEveryRankHasADevice) {
  EXPECT_EQ(choose_device_kind(DeviceKindRequest::cuda, everywhere(), true), DeviceKind::cuda);
}

TEST(ChooseDeviceKind, CudaWithARankLackingADeviceNamesTheLowestSuchRankAndItsHost) {
  const std::string message = choice_error(DeviceKindRequest::cuda, node02_without(), true);
  EXPECT_EQ(message,
            "devices.kind = \"cuda\" needs a CUDA device on every rank, but rank 2 on node02 sees "
            "none (cudaGetDeviceCount found 0) (2 ranks of the launch lack a CUDA device); use "
            "[devices] "
            "kind = \"host\" or \"auto\"");
  const std::string one =
      choice_error(DeviceKindRequest::cuda, {rank_with(0, "a", 1), rank_with(1, "b", 0)}, true);
  expect_contains(one, {"rank 1 on b sees none", "[devices] kind = \"host\" or \"auto\""});
  EXPECT_EQ(one.find("ranks of the launch"), std::string::npos) << one;
}

TEST(ChooseDeviceKind, CudaInABuildWithoutCudaSaysSo) {
  for (const auto& ranks : {everywhere(), nowhere()})
    expect_contains(choice_error(DeviceKindRequest::cuda, ranks, false),
                    {"devices.kind = \"cuda\"", "built without", "\"host\" or \"auto\""});
  expect_contains(choice_error(DeviceKindRequest::cuda, {}, true), {"no ranks"});
}

TEST(Bf16Support, NeedsComputeCapabilityEight) {
  RankDevices rank = rank_with(0, "n", 1);
  for (const auto& [capability, bf16] : std::vector<std::pair<int, bool>>{
           {70, false}, {75, false}, {80, true}, {86, true}, {89, true}, {90, true}, {0, false}}) {
    rank.compute_capability = capability;
    EXPECT_EQ(supports_bf16(rank), bf16) << capability;
  }
}

TEST(PrecisionOnDevices, Bf16OnAnOlderDeviceNamesTheRankAndTheDevice) {
  std::vector<RankDevices> mixed = everywhere();
  mixed[3].device = "Tesla V100-SXM2-32GB";
  mixed[3].compute_capability = 70;
  mixed[1].device = "Tesla T4";
  mixed[1].compute_capability = 75;
  try {
    check_precision_on_devices(DataType::bf16, DeviceKind::cuda, mixed);
    ADD_FAILURE() << "bf16 accepted on a 7.5 device";
  } catch (const DeviceUnavailable& e) {
    EXPECT_EQ(std::string(e.what()),
              "precision \"bf16\" needs a CUDA device of compute capability 8.0 or higher, but "
              "rank 1 on node01 has device \"Tesla T4\" of compute capability 7.5 (2 ranks of the "
              "launch lack bf16 support); use precision \"fp16\" (any CUDA device) or \"fp32\"");
  }
  // fp16 and fp32 run on any CUDA device; on the host nothing is checked here.
  EXPECT_NO_THROW(check_precision_on_devices(DataType::fp16, DeviceKind::cuda, mixed));
  EXPECT_NO_THROW(check_precision_on_devices(DataType::fp32, DeviceKind::cuda, mixed));
  EXPECT_NO_THROW(check_precision_on_devices(DataType::bf16, DeviceKind::host, nowhere()));
  EXPECT_NO_THROW(check_precision_on_devices(DataType::bf16, DeviceKind::cuda, everywhere()));
}

TEST(DeviceKindText, IsWhatResultFilesStore) {
  EXPECT_EQ(device_kind_text(DeviceKind::host), "host");
  EXPECT_EQ(device_kind_text(DeviceKind::cuda), "cuda");
}

}  // namespace
}  // namespace scaletune::job
