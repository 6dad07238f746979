// Device DLRM interaction kernels (kernels/cuda/interaction.hpp) against the host interaction
// (kernels/host/interaction.hpp): with the Gram matrix computed on the host in the host's dot
// order, the assembled output equals interaction_forward bit for bit in fp32 and to 16-bit
// rounding otherwise; the pair-gradient matrix G is symmetric with the host's pairs, and
// G Z (on the host) plus the device pass-through equals interaction_backward; z assembled from
// many source blocks (more than one launch's worth) equals their fp32 sum in source order, and
// slicing copies it back.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "harness/device/device_buffer.hpp"
#include "kernels/cuda/interaction.hpp"
#include "kernels/host/interaction.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using core::DType;
using testing::DeviceActivations;
using testing::expect_all_close;
using testing::host_bits;
using testing::rounded;
using testing::uniform_vector;

/// A host Tensor3 [n, f, d] holding `values`.
Tensor3 tensor3(const std::vector<float>& values, std::size_t n, std::size_t f, std::size_t d) {
  Tensor3 t("t", n, f, d);
  std::copy(values.begin(), values.end(), t.data());
  return t;
}

/// gram [n, f, f] of z in the host's dot order (d ascending, fp32, from 0).
std::vector<float> host_gram(const Tensor3& z) {
  const std::size_t n = z.extent(0), f = z.extent(1), d = z.extent(2);
  std::vector<float> gram(n * f * f);
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t i = 0; i < f; ++i)
      for (std::size_t j = 0; j < f; ++j) {
        float dot = 0.0f;
        for (std::size_t k = 0; k < d; ++k) dot += z(s, i, k) * z(s, j, k);
        gram[(s * f + i) * f + j] = dot;
      }
  return gram;
}

/// (dtype, features, dim)
class CudaInteraction
    : public testing::DeviceTest,
      public ::testing::WithParamInterface<std::tuple<DType, std::size_t, std::size_t>> {};

TEST_P(CudaInteraction, ForwardOutputEqualsHost) {
  const auto [dtype, f, d] = GetParam();
  const std::size_t n = 37;
  const std::vector<float> z_values = rounded(dtype, uniform_vector(n * f * d, 1));
  const Tensor3 z = tensor3(z_values, n, f, d);
  const std::size_t width = d + f * (f - 1) / 2;
  Tensor2 want("out", n, width);
  kernels::interaction_forward(z, want);
  const std::vector<float> gram = host_gram(z);
  const DeviceActivations z_device(dtype, z_values);
  const DeviceBuffer<float> gram_device{std::span<const float>(gram)};
  DeviceActivations out(dtype, n * width, 0.0f);
  interaction_forward_output(nullptr, n, f, d, dtype, z_device.data(), gram_device.data(),
                             out.data());
  const std::vector<float> want_values(want.data(), want.data() + want.size());
  if (dtype == DType::fp32)
    EXPECT_EQ(host_bits(DType::fp32, out.to_host()), host_bits(DType::fp32, want_values));
  else
    EXPECT_EQ(out.to_host(), rounded(dtype, want_values));  // one rounding of the host value
}

TEST_P(CudaInteraction, BackwardThroughTheGramGradientEqualsHost) {
  const auto [dtype, f, d] = GetParam();
  const std::size_t n = 19, width = d + f * (f - 1) / 2;
  const std::vector<float> z_values = rounded(dtype, uniform_vector(n * f * d, 2));
  const std::vector<float> dout_values = rounded(dtype, uniform_vector(n * width, 3));
  const Tensor3 z = tensor3(z_values, n, f, d);
  Tensor2 dout("dout", n, width);
  std::copy(dout_values.begin(), dout_values.end(), dout.data());
  Tensor3 want("dz", n, f, d);
  kernels::interaction_backward(z, dout, want);

  const DeviceActivations dout_device(dtype, dout_values);
  DeviceActivations grad_gram(dtype, n * f * f, 0.0f);
  interaction_backward_gram(nullptr, n, f, d, dtype, dout_device.data(), dtype, grad_gram.data());
  const std::vector<float> g = grad_gram.to_host();
  std::vector<float> dz(n * f * d, 0.0f);  // dz = G Z, the backend's GEMM, here on the host
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t i = 0; i < f; ++i) {
      EXPECT_EQ(g[(s * f + i) * f + i], 0.0f);
      for (std::size_t j = 0; j < f; ++j) {
        EXPECT_EQ(g[(s * f + i) * f + j], g[(s * f + j) * f + i]);
        for (std::size_t k = 0; k < d; ++k)
          dz[(s * f + i) * d + k] += g[(s * f + i) * f + j] * z(s, j, k);
      }
    }
  DeviceBuffer<float> dz_device{std::span<const float>(dz)};
  interaction_backward_add_bottom(nullptr, n, f, d, dtype, dout_device.data(), DType::fp32,
                                  dz_device.data());
  expect_all_close(dz_device.to_host(), std::vector<float>(want.data(), want.data() + want.size()),
                   1e-5, "dz");
}

// F = 1 (no pairs), 27 with D = 128 (MLPerf DLRM), odd sizes; width past one block of threads.
INSTANTIATE_TEST_SUITE_P(
    Shapes, CudaInteraction,
    ::testing::Combine(::testing::Values(DType::fp32, DType::fp16, DType::bf16),
                       ::testing::Values(1, 5, 27), ::testing::Values(1, 13, 128)));

/// (source dtype, z dtype)
class CudaInteractionFeatures : public testing::DeviceTest,
                                public ::testing::WithParamInterface<std::tuple<DType, DType>> {};

TEST_P(CudaInteractionFeatures, GatherSumsSourcesInOrderAndSliceCopiesBack) {
  const auto [src_dtype, z_dtype] = GetParam();
  const std::size_t n = 21, f = 4, d = 10, col_begin = 3, cols = 6, sources = 40;
  std::vector<DeviceActivations> blocks;
  std::vector<const void*> pointers;
  std::vector<std::vector<float>> block_values;
  for (std::size_t k = 0; k < sources; ++k) {
    block_values.push_back(
        rounded(src_dtype, uniform_vector(n * cols, 100 + static_cast<unsigned>(k))));
    blocks.emplace_back(src_dtype, block_values.back());
  }
  for (const DeviceActivations& b : blocks) pointers.push_back(b.data());
  const std::vector<float> z0 = rounded(z_dtype, uniform_vector(n * f * d, 5));
  DeviceActivations z(z_dtype, z0);
  interaction_gather_feature(nullptr, n, f, d, 2, col_begin, cols, src_dtype, pointers, z_dtype,
                             z.data());
  const std::vector<float> got = z.to_host();
  // The device's sum: fp32 in source order, rounded into z after each launch of 32 sources
  // (40 sources: two launches, the second starting from the stored value).
  const auto round_z = [&](float v) { return rounded(z_dtype, std::vector<float>{v})[0]; };
  std::vector<float> want = z0;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t c = 0; c < cols; ++c) {
      float sum = 0.0f;
      for (std::size_t k = 0; k < sources; ++k) {
        if (k == 32) sum = round_z(sum);
        sum += block_values[k][s * cols + c];
      }
      want[(s * f + 2) * d + col_begin + c] = round_z(sum);
    }
  EXPECT_EQ(host_bits(DType::fp32, got), host_bits(DType::fp32, want));

  DeviceActivations slice(src_dtype, n * cols, 0.0f);
  interaction_slice_feature(nullptr, n, f, d, 2, col_begin, cols, z_dtype, z.data(), src_dtype,
                            slice.data());
  std::vector<float> want_slice(n * cols);
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t c = 0; c < cols; ++c)
      want_slice[s * cols + c] = got[(s * f + 2) * d + col_begin + c];
  EXPECT_EQ(slice.to_host(), rounded(src_dtype, want_slice));
}

INSTANTIATE_TEST_SUITE_P(Types, CudaInteractionFeatures,
                         ::testing::Combine(::testing::Values(DType::fp32, DType::bf16),
                                            ::testing::Values(DType::fp32, DType::fp16)));

using CudaInteractionErrors = testing::DeviceTest;

TEST_F(CudaInteractionErrors, ASliceOutsideTheFeatureIsRejected) {
  DeviceBuffer<float> z(2 * 3 * 4), dst(8);
  EXPECT_THROW(interaction_slice_feature(nullptr, 2, 3, 4, 3, 0, 4, DType::fp32, z.data(),
                                         DType::fp32, dst.data()),
               std::invalid_argument);
  EXPECT_THROW(interaction_slice_feature(nullptr, 2, 3, 4, 1, 2, 3, DType::fp32, z.data(),
                                         DType::fp32, dst.data()),
               std::invalid_argument);
  EXPECT_THROW(interaction_slice_feature(nullptr, 2, 3, 4, 1, 0, 4, DType::int32, z.data(),
                                         DType::fp32, dst.data()),
               std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
