// Device discovery and the "no CUDA device" errors. On a machine without a GPU (the build
// machines) device_count() is 0 and everything that needs a device throws CudaError saying so;
// on a machine with one, binding and describing a device work.
#include <gtest/gtest.h>

#include <string>

#include "harness/device/cuda_device.hpp"
#include "harness/device/cuda_error.hpp"
#include "harness/device/device_buffer.hpp"
#include "kernels/cuda/cublas_gemm.hpp"
#include "kernels/cuda/cudnn_conv2d.hpp"
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

TEST_F(NoDevice, BuffersAndHandlesThrowNoCudaDevice) {
  expect_no_device_error([] { DeviceBuffer<float> buffer(16); }, "DeviceBuffer");
  expect_no_device_error([] { kernels::cuda::CublasHandle handle; }, "CublasHandle");
  kernels::ConvGeometry g;
  g.in_channels = 3;
  g.out_channels = 8;
  g.kernel = 3;
  g.pad = 1;
  g.in_h = g.in_w = 8;
  expect_no_device_error([&] { kernels::cuda::CudnnConv2d conv(g, 2); }, "CudnnConv2d");
}

using WithDevice = testing::DeviceTest;

TEST_F(WithDevice, BindDeviceWrapsLocalRankOverDevices) {
  const int count = device_count();
  EXPECT_EQ(require_device("test"), count);
  EXPECT_EQ(bind_device(0), 0);
  EXPECT_EQ(bind_device(count + 1), (count + 1) % count);
  EXPECT_GT(device_info(0).memory_bytes, 0);
  EXPECT_FALSE(device_info(0).name.empty());
}

}  // namespace
}  // namespace scaletune::device
