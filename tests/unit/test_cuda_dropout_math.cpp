// The CUDA dropout kernels' mask (kernels/cuda/detail/dropout_math.hpp) against the host's
// (kernels/host/dropout.cpp), bit for bit: the same SplitMix64, the integer threshold
// ceil(p * 2^53) equivalent to the host's `unit >= p` in double (at and next to the threshold,
// for many p), the same keep decision for every element of tensors with various (p, seed,
// step, first_row, cols), and the same outputs for fp32 and for fp16 / bf16 inputs.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cuda/detail/dropout_math.hpp"
#include "kernels/host/detail/splitmix64.hpp"
#include "kernels/host/dropout.hpp"
#include "tests/unit/cuda_math_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using test::host_matrix;
using test::host_values;
using test::rounded;
using test::same_bits;
using test::stored;

/// The host's keep test on the top 53 bits k of a hash.
bool host_keeps(std::uint64_t k, float p) {
  return static_cast<double>(k) * 0x1.0p-53 >= static_cast<double>(p);
}

TEST(CudaDropoutMath, IntegerThresholdDecidesAsTheHostsDoubleCompare) {
  std::mt19937 gen(9);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> ps = {0.0f, 0.1f,       0.25f,      0.5f,
                           0.9f, 0x1.0p-53f, 0x1.0p-60f, std::nextafter(1.0f, 0.0f)};
  for (int i = 0; i < 2000; ++i) ps.push_back(dist(gen));
  for (const float p : ps) {
    const std::uint64_t t = detail::dropout_keep_threshold(p);
    for (const std::uint64_t k : {t - 1, t, t + 1}) {
      if (k >= (1ULL << 53)) continue;  // k is a 53-bit value; t - 1 wraps for p = 0
      ASSERT_EQ(k >= t, host_keeps(k, p)) << "p = " << p << ", k = " << k;
    }
  }
}

/// Keep bits of the host's mask for a [rows, cols] tensor: its forward on all ones.
std::vector<bool> host_keep_bits(std::size_t rows, std::size_t cols, const DropoutMask& mask) {
  const Tensor2 ones("ones", rows, cols), y("y", rows, cols);
  Kokkos::deep_copy(ones, 1.0f);
  dropout_forward(ones, mask, y);
  std::vector<bool> keep(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) keep[i] = y.data()[i] != 0.0f;
  return keep;
}

/// The kernels' keep bits for the same tensor: element i is global element first_row * cols + i.
std::vector<bool> kernel_keep_bits(std::size_t rows, std::size_t cols, const DropoutMask& mask) {
  const std::uint64_t stream = detail::dropout_stream(mask.seed, mask.step);
  const std::uint64_t threshold = detail::dropout_keep_threshold(mask.p);
  const auto first = static_cast<std::uint64_t>(mask.first_row) * cols;
  std::vector<bool> keep(rows * cols);
  for (std::size_t i = 0; i < keep.size(); ++i)
    keep[i] = detail::dropout_keep(stream, first + i, threshold);
  return keep;
}

TEST(CudaDropoutMath, EveryElementKeptAsTheHostKeepsIt) {
  const DropoutMask masks[] = {{0.1f, 1, 0, 0},        {0.5f, 42, 7, 3},
                               {0.9f, 3, 1000, 12345}, {0.3333f, ~0ULL, ~0ULL, 1},
                               {0.0f, 8, 2, 0},        {0.999f, 11, 5, 77}};
  for (const DropoutMask& m : masks)
    for (const auto& [rows, cols] :
         {std::pair<std::size_t, std::size_t>{1, 1}, {5, 333}, {64, 768}})
      ASSERT_EQ(kernel_keep_bits(rows, cols, m), host_keep_bits(rows, cols, m))
          << "p " << m.p << " seed " << m.seed << " step " << m.step << " first_row " << m.first_row
          << " [" << rows << ", " << cols << "]";
}

template <class T>
class CudaDropoutElement : public ::testing::Test {};
TYPED_TEST_SUITE(CudaDropoutElement, test::ElementTypes, test::ElementTypeNames);

TYPED_TEST(CudaDropoutElement, OutputsAreTheHostsBitForBit) {
  using T = TypeParam;
  constexpr std::size_t rows = 9, cols = 101;
  const DropoutMask mask{0.37f, 2024, 6, 40};
  const std::vector<float> x = rounded<T>(test::uniform_values(rows * cols, 3, -4.0f, 4.0f));
  const Tensor2 y("y", rows, cols);
  dropout_forward(host_matrix(x, rows, cols), mask, y);
  const std::vector<bool> keep = kernel_keep_bits(rows, cols, mask);
  const std::vector<T> x_t = stored<T>(x);
  const float scale = 1.0f / (1.0f - mask.p);
  std::vector<T> got;
  for (std::size_t i = 0; i < x_t.size(); ++i)
    got.push_back(detail::dropout_element(x_t[i], keep[i], scale));
  EXPECT_TRUE(same_bits<T>(got, stored<T>(host_values(y))));
}

}  // namespace
}  // namespace scaletune::kernels::cuda
