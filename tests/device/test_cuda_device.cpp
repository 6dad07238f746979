// Device discovery and the "no CUDA device" errors. On a machine without a GPU (the build
// machines) device_count() is 0 and everything that needs a device throws CudaError saying so;
// on a machine with one, binding and describing a device work.
#include <gtest/gtest.h>

#include <string>

#include "harness/device/cuda_context.hpp"
#include "harness/device/cuda_device.hpp"
#include "harness/device/cuda_error.hpp"
#include "harness/device/device_buffer.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::device {
namespace {

/// Runs `make` and expects CudaError whose message contains "no CUDA device" and `user`.
template <class Make>
void expect_no_device_error(Make make, const std::string& user) {
  try {
    make();
    ADD_FAILURE() << user << ": expected CudaError, nothing was thrown";
  } catch (const CudaError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("no CUDA device"), std::string::npos) << message;
    EXPECT_NE(message.find(user), std::string::npos) << message;
  }
}

class NoDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  }
};

TEST_F(NoDevice, BindDeviceAndRequireDeviceThrowNoCudaDevice) {
  EXPECT_EQ(device_count(), 0);
  expect_no_device_error([] { bind_device(0); }, "bind_device");
  expect_no_device_error([] { require_device("my_workload"); }, "my_workload");
}

TEST_F(NoDevice, BuffersAndContextsThrowNoCudaDevice) {
  expect_no_device_error([] { DeviceBuffer<float> buffer(16); }, "DeviceBuffer");
  expect_no_device_error([] { CudaContext context(0); }, "CudaContext");
}

using WithDevice = testing::DeviceTest;

TEST_F(WithDevice, BindDeviceWrapsLocalRankOverDevices) {
  const int count = device_count();
  EXPECT_EQ(require_device("test"), count);
  EXPECT_EQ(bind_device(0), 0);
  EXPECT_EQ(bind_device(count + 1), (count + 1) % count);
}

TEST_F(WithDevice, InfoDescribesTheDevice) {
  const DeviceInfo info = device_info(0);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GT(info.memory_bytes, 0);
  // Every device CUDA 13 supports is Turing (7.5) or later.
  EXPECT_GE(info.compute_major * 10 + info.compute_minor, 75);
  EXPECT_EQ(info.bf16, info.compute_major >= 8);
}

TEST_F(WithDevice, FreeMemoryIsPositiveAndAtMostTheTotal) {
  bind_device(0);
  const std::int64_t free_bytes = free_memory_bytes();
  EXPECT_GT(free_bytes, 0);
  EXPECT_LE(free_bytes, device_info(0).memory_bytes);
}

}  // namespace
}  // namespace scaletune::device
