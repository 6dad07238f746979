// The head layout host ops (kernels/host/head_layout.hpp): rows_to_heads against its index
// formula for a column block inside wider token rows, and heads_to_rows as its inverse that
// leaves the other columns alone.

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "kernels/host/head_layout.hpp"

namespace scaletune::kernels {
namespace {

constexpr std::size_t kBatch = 2, kHeads = 3, kSeq = 4, kHeadDim = 2;
constexpr std::size_t kStride = 3 * kHeads * kHeadDim + 1;  // q, k, v and one more column

/// Token rows [B S, kStride] whose element (t, c) is 1000 t + c.
std::vector<float> numbered_rows() {
  std::vector<float> rows(kBatch * kSeq * kStride);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = float(1000 * (i / kStride) + i % kStride);
  return rows;
}

TEST(HeadLayout, RowsToHeadsFollowsTheIndexFormula) {
  const std::vector<float> rows = numbered_rows();
  const std::size_t col = 2 * kHeads * kHeadDim;  // v
  const Tensor4 heads("heads", kBatch, kHeads, kSeq, kHeadDim);
  rows_to_heads(rows.data() + col, kStride, heads);
  for (std::size_t b = 0; b < kBatch; ++b)
    for (std::size_t h = 0; h < kHeads; ++h)
      for (std::size_t s = 0; s < kSeq; ++s)
        for (std::size_t d = 0; d < kHeadDim; ++d)
          EXPECT_EQ(heads(b, h, s, d), rows[(b * kSeq + s) * kStride + col + h * kHeadDim + d]);
}

TEST(HeadLayout, HeadsToRowsInvertsAndLeavesOtherColumns) {
  const std::vector<float> original = numbered_rows();
  const std::size_t col = 1;
  const Tensor4 heads("heads", kBatch, kHeads, kSeq, kHeadDim);
  rows_to_heads(original.data() + col, kStride, heads);
  std::vector<float> rows(original.size(), -1.0f);
  heads_to_rows(heads, rows.data() + col, kStride);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::size_t c = i % kStride;
    const bool written = c >= col && c < col + kHeads * kHeadDim;
    EXPECT_EQ(rows[i], written ? original[i] : -1.0f) << i;
  }
}

}  // namespace
}  // namespace scaletune::kernels
