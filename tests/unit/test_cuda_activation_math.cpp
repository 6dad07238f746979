// Per-element bodies of the CUDA activation and element-wise kernels
// (kernels/cuda/detail/activation_math.hpp) against the host ops of kernels/host/activation.hpp
// on the same inputs, for fp32 and for fp16 / bf16 (inputs rounded to 16 bits, the host's fp32
// result rounded to nearest even): bit for bit, since both do the same fp32 operation.

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "kernels/cuda/detail/activation_math.hpp"
#include "kernels/host/activation.hpp"
#include "tests/unit/cuda_math_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using test::host_matrix;
using test::host_values;
using test::rounded;
using test::same_bits;
using test::stored;

constexpr std::size_t kRows = 7, kCols = 37;

/// Inputs in [-3, 3) with exact zeros of both signs and tiny values mixed in.
std::vector<float> inputs(unsigned seed) {
  std::vector<float> x = test::uniform_values(kRows * kCols, seed, -3.0f, 3.0f);
  x[0] = 0.0f;
  x[1] = -0.0f;
  x[2] = 1e-30f;
  x[3] = -1e-30f;
  return x;
}

template <class T>
class CudaActivationMath : public ::testing::Test {};
TYPED_TEST_SUITE(CudaActivationMath, test::ElementTypes, test::ElementTypeNames);

TYPED_TEST(CudaActivationMath, ReluForwardMatchesHost) {
  using T = TypeParam;
  const std::vector<float> x = rounded<T>(inputs(1));
  const Tensor2 y("y", kRows, kCols);
  relu_forward(host_matrix(x, kRows, kCols), y);
  std::vector<T> got;
  for (const T v : stored<T>(x)) got.push_back(detail::relu_element(v));
  EXPECT_TRUE(same_bits<T>(got, stored<T>(host_values(y))));
}

TYPED_TEST(CudaActivationMath, ReluBackwardMatchesHost) {
  using T = TypeParam;
  const std::vector<float> x = rounded<T>(inputs(2)), dy = rounded<T>(inputs(3));
  const Tensor2 y("y", kRows, kCols), dx("dx", kRows, kCols);
  relu_forward(host_matrix(x, kRows, kCols), y);
  relu_backward(y, host_matrix(dy, kRows, kCols), dx);
  const std::vector<T> y_t = stored<T>(host_values(y)), dy_t = stored<T>(dy);
  std::vector<T> got;
  for (std::size_t i = 0; i < y_t.size(); ++i)
    got.push_back(detail::relu_grad_element(y_t[i], dy_t[i]));
  EXPECT_TRUE(same_bits<T>(got, stored<T>(host_values(dx))));
}

TYPED_TEST(CudaActivationMath, AddMatchesHostAddInplace) {
  using T = TypeParam;
  const std::vector<float> x = rounded<T>(inputs(4)), y0 = rounded<T>(inputs(5));
  const Tensor4 x4("x", 1, 1, kRows, kCols), y4("y", 1, 1, kRows, kCols);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x4.data()[i] = x[i];
    y4.data()[i] = y0[i];
  }
  add_inplace(y4, x4);
  const std::vector<T> x_t = stored<T>(x), y_t = stored<T>(y0);
  std::vector<T> got;
  for (std::size_t i = 0; i < x_t.size(); ++i) got.push_back(detail::add_element(y_t[i], x_t[i]));
  EXPECT_TRUE(same_bits<T>(got, stored<T>(host_values(y4))));
}

TYPED_TEST(CudaActivationMath, ScaleAndBiasAddRoundTheFp32ResultOnce) {
  using T = TypeParam;
  const std::vector<float> x = rounded<T>(inputs(6));
  const std::vector<T> x_t = stored<T>(x);
  const float alpha = 0.3f, bias = -1.7f;
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(test::bits_of(detail::scale_element(alpha, x_t[i])),
              test::bits_of(detail::from_float<T>(alpha * x[i])));
    EXPECT_EQ(test::bits_of(detail::bias_add_element(x_t[i], bias)),
              test::bits_of(detail::from_float<T>(x[i] + bias)));
  }
}

}  // namespace
}  // namespace scaletune::kernels::cuda
