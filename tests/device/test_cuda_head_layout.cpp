// The attention layout permutes (kernels/cuda/head_layout.hpp) against the loops of the host
// TransformerBlock's rows_to_heads / heads_to_rows (kernels/host/transformer_block.cpp), bit for
// bit: q, k and v out of [T, 3H] qkv rows into [B, heads, S, Dh] and dq, dk, dv back into the
// qkv gradient (other columns untouched), and the merged heads into [T, H]; GPT-2-like and odd
// shapes, fp32, fp16 and bf16. Argument checks run without a device.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/head_layout.hpp"
#include "tests/device/cuda_kernel_test_support.hpp"
#include "tests/device/device_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using testing::DeviceActivations;

struct Shape {
  std::size_t batch, heads, seq, head_dim;
};
constexpr Shape kShapes[] = {{1, 1, 1, 1}, {2, 12, 64, 64}, {3, 5, 7, 9}};

/// The host's rows_to_heads loop: heads[b, h, s, d] = rows[token * stride + offset + h Dh + d].
std::vector<float> host_rows_to_heads(const std::vector<float>& rows, const Shape& s,
                                      std::size_t stride, std::size_t offset) {
  std::vector<float> heads(s.batch * s.heads * s.seq * s.head_dim);
  for (std::size_t token = 0; token < s.batch * s.seq; ++token) {
    const std::size_t b = token / s.seq, q = token % s.seq;
    for (std::size_t h = 0; h < s.heads; ++h)
      for (std::size_t d = 0; d < s.head_dim; ++d)
        heads[((b * s.heads + h) * s.seq + q) * s.head_dim + d] =
            rows[token * stride + offset + h * s.head_dim + d];
  }
  return heads;
}

/// The host's heads_to_rows loop (the inverse), into a copy of `rows`.
std::vector<float> host_heads_to_rows(const std::vector<float>& heads, std::vector<float> rows,
                                      const Shape& s, std::size_t stride, std::size_t offset) {
  for (std::size_t token = 0; token < s.batch * s.seq; ++token) {
    const std::size_t b = token / s.seq, q = token % s.seq;
    for (std::size_t h = 0; h < s.heads; ++h)
      for (std::size_t d = 0; d < s.head_dim; ++d)
        rows[token * stride + offset + h * s.head_dim + d] =
            heads[((b * s.heads + h) * s.seq + q) * s.head_dim + d];
  }
  return rows;
}

class CudaHeadLayout : public testing::DeviceTest,
                       public ::testing::WithParamInterface<core::DType> {};

TEST_P(CudaHeadLayout, QkvSplitAndMergeMatchTheHostLoops) {
  const core::DType type = GetParam();
  const testing::TestStream stream;
  for (const Shape& s : kShapes) {
    const std::size_t hidden = s.heads * s.head_dim, tokens = s.batch * s.seq;
    const std::string what = std::to_string(s.batch) + "x" + std::to_string(s.heads) + "x" +
                             std::to_string(s.seq) + "x" + std::to_string(s.head_dim);
    const auto B = static_cast<std::int64_t>(s.batch), N = static_cast<std::int64_t>(s.heads),
               S = static_cast<std::int64_t>(s.seq), D = static_cast<std::int64_t>(s.head_dim),
               H = static_cast<std::int64_t>(hidden);
    const std::vector<float> qkv =
        testing::rounded(type, testing::uniform_vector(tokens * 3 * hidden, 1));
    const DeviceActivations qkv_d(type, qkv);
    const std::vector<float> grad0 = testing::rounded(type, testing::uniform_vector(qkv.size(), 2));
    DeviceActivations grad_d(type, grad0);
    std::vector<float> want_grad = grad0;
    for (std::size_t part = 0; part < 3; ++part) {
      const std::size_t offset = part * hidden;
      const std::vector<float> want = host_rows_to_heads(qkv, s, 3 * hidden, offset);
      DeviceActivations heads_d(type, want.size(), 7.0f);
      rows_to_heads(stream.get(), type, B, N, S, D, 3 * H, static_cast<std::int64_t>(offset),
                    qkv_d.data(), heads_d.data());
      // And back into the gradient's column block (as dq, dk, dv into d qkv).
      heads_to_rows(stream.get(), type, B, N, S, D, 3 * H, static_cast<std::int64_t>(offset),
                    heads_d.data(), grad_d.data());
      stream.sync();
      EXPECT_EQ(heads_d.bits(), testing::host_bits(type, want)) << what << " part " << part;
      want_grad = host_heads_to_rows(want, want_grad, s, 3 * hidden, offset);
    }
    EXPECT_EQ(grad_d.bits(), testing::host_bits(type, want_grad)) << what << " qkv gradient";

    // The merge of the attention output: [B, heads, S, Dh] -> [T, H].
    const std::vector<float> heads =
        testing::rounded(type, testing::uniform_vector(tokens * hidden, 3));
    const DeviceActivations heads_d(type, heads);
    DeviceActivations merged_d(type, tokens * hidden, 7.0f);
    heads_to_rows(stream.get(), type, B, N, S, D, H, 0, heads_d.data(), merged_d.data());
    stream.sync();
    EXPECT_EQ(
        merged_d.bits(),
        testing::host_bits(
            type, host_heads_to_rows(heads, std::vector<float>(tokens * hidden), s, hidden, 0)))
        << what << " merged";
  }
}

INSTANTIATE_TEST_SUITE_P(Types, CudaHeadLayout, ::testing::ValuesIn(testing::kActivationTypes),
                         testing::type_param_name);

TEST(CudaHeadLayoutArguments, AreCheckedBeforeTouchingTheDevice) {
  float f = 0.0f;
  try {
    rows_to_heads(nullptr, core::DType::fp32, 2, 4, 8, 16, 128, 65, &f, &f);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "rows_to_heads: columns [65, 129) do not fit in rows of 128, expected "
                 "column_offset + heads * head_dim <= row_stride");
  }
  EXPECT_THROW(heads_to_rows(nullptr, core::DType::fp32, 2, 4, 8, 16, 64, 0, nullptr, &f),
               std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels::cuda
