// DeviceBuffer: sizes, the checks that need no device (empty buffers, size overflow, copies of
// the wrong length), and on a device the host round trip, moves and out-of-memory as
// DeviceOutOfMemory (a std::bad_alloc, which the sweep records as oom).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/device/device_buffer.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::device {
namespace {

using DeviceBufferOnDevice = testing::DeviceTest;
using testing::uniform_vector;

TEST(DeviceBufferWithoutDevice, EmptyBufferNeedsNoDevice) {
  DeviceBuffer<float> empty(std::size_t{0});
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.size_bytes(), 0u);
  EXPECT_TRUE(empty.to_host().empty());
}

TEST(DeviceBufferWithoutDevice, CopyOfWrongLengthNamesBothCounts) {
  DeviceBuffer<float> empty;
  const std::vector<float> three{1.0f, 2.0f, 3.0f};
  try {
    empty.copy_from_host(three);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "DeviceBuffer::copy_from_host: host span has 3 elements, expected 0 (the device "
                 "buffer's size)");
  }
  std::vector<float> out(2);
  EXPECT_THROW(empty.copy_to_host(out), std::invalid_argument);
}

TEST(DeviceBufferWithoutDevice, ByteCountOverflowIsLengthError) {
  const std::size_t too_many = std::numeric_limits<std::size_t>::max() / sizeof(double) + 1;
  EXPECT_THROW(DeviceBuffer<double> buffer(too_many), std::length_error);
}

TEST(DeviceOutOfMemory, IsBadAllocNamingTheBytes) {
  const DeviceOutOfMemory oom(123456789);
  const std::bad_alloc& as_bad_alloc = oom;
  EXPECT_STREQ(as_bad_alloc.what(), "out of device memory: cudaMalloc of 123456789 bytes");
  EXPECT_EQ(oom.requested_bytes(), 123456789u);
}

TEST_F(DeviceBufferOnDevice, HostRoundTripKeepsEveryElement) {
  const std::vector<float> host = uniform_vector(1000, 7);
  const DeviceBuffer<float> buffer(host);
  EXPECT_NE(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), host.size());
  EXPECT_EQ(buffer.size_bytes(), host.size() * sizeof(float));
  EXPECT_EQ(buffer.to_host(), host);

  const std::vector<std::int64_t> ints{-1, 0, std::numeric_limits<std::int64_t>::max()};
  EXPECT_EQ(DeviceBuffer<std::int64_t>(ints).to_host(), ints);
}

TEST_F(DeviceBufferOnDevice, CopyFromHostOverwritesAndMoveTransfersOwnership) {
  DeviceBuffer<float> a(std::size_t{4});
  const std::vector<float> values{1.5f, -2.0f, 3.25f, 0.0f};
  a.copy_from_host(values);
  const float* device_pointer = a.data();

  DeviceBuffer<float> b(std::move(a));
  EXPECT_EQ(b.data(), device_pointer);
  EXPECT_EQ(a.data(), nullptr);  // a moved-from buffer is empty
  EXPECT_EQ(a.size(), 0u);

  DeviceBuffer<float> c(std::size_t{2});
  c = std::move(b);
  EXPECT_EQ(c.data(), device_pointer);
  std::vector<float> out(4);
  c.copy_to_host(out);
  EXPECT_EQ(out, values);
}

TEST_F(DeviceBufferOnDevice, OutOfMemoryIsBadAllocAndLeavesTheDeviceUsable) {
  const std::size_t one_pib_floats = std::size_t{1} << 48;  // 1 PiB of floats: no device has it
  try {
    DeviceBuffer<float> huge(one_pib_floats);
    FAIL() << "expected DeviceOutOfMemory";
  } catch (const DeviceOutOfMemory& e) {
    EXPECT_EQ(e.requested_bytes(), one_pib_floats * sizeof(float));
    EXPECT_NE(std::string(e.what()).find("out of device memory"), std::string::npos);
  }
  EXPECT_THROW(DeviceBuffer<float> huge(one_pib_floats), std::bad_alloc);
  const std::vector<float> small{4.0f, 5.0f};
  EXPECT_EQ(DeviceBuffer<float>(small).to_host(), small);
}

}  // namespace
}  // namespace scaletune::device
