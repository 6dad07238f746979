// The index map of the CUDA attention layout permutes (kernels/cuda/detail/head_layout_math.hpp)
// against the loops of the host TransformerBlock's rows_to_heads / heads_to_rows
// (kernels/host/transformer_block.cpp): for q, k and v of [T, 3H] qkv rows and for the merged
// [T, H] heads, every element of the [B, heads, S, Dh] tensor maps to the row element those
// loops copy, and the map is one-to-one onto the head columns.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/cuda/detail/head_layout_math.hpp"

namespace scaletune::kernels::cuda {
namespace {

/// The host's loops: rows index of heads[b, h, s, d], in [b, h, s, d] order.
std::vector<std::int64_t> host_order(const detail::HeadLayout& l) {
  std::vector<std::int64_t> index(static_cast<std::size_t>(detail::head_elements(l)));
  for (std::int64_t token = 0; token < l.batch * l.seq; ++token) {
    const std::int64_t b = token / l.seq, s = token % l.seq;
    for (std::int64_t h = 0; h < l.heads; ++h)
      for (std::int64_t d = 0; d < l.head_dim; ++d)
        index[static_cast<std::size_t>(((b * l.heads + h) * l.seq + s) * l.head_dim + d)] =
            token * l.row_stride + l.column_offset + h * l.head_dim + d;
  }
  return index;
}

TEST(CudaHeadLayoutMath, MatchesTheHostsLoopsForQkvAndMergedHeads) {
  const std::int64_t batch = 3, heads = 4, seq = 5, dh = 6, hidden = heads * dh;
  for (const auto& [stride, offset] : {std::pair<std::int64_t, std::int64_t>{3 * hidden, 0},
                                       {3 * hidden, hidden},
                                       {3 * hidden, 2 * hidden},
                                       {hidden, 0}}) {
    const detail::HeadLayout l{batch, heads, seq, dh, stride, offset};
    const std::vector<std::int64_t> want = host_order(l);
    std::vector<int> hits(static_cast<std::size_t>(batch * seq * stride), 0);
    for (std::int64_t i = 0; i < detail::head_elements(l); ++i) {
      const std::int64_t got = detail::head_to_row_index(l, i);
      ASSERT_EQ(got, want[static_cast<std::size_t>(i)]) << "element " << i << " offset " << offset;
      ++hits[static_cast<std::size_t>(got)];
    }
    for (std::int64_t r = 0; r < batch * seq * stride; ++r) {
      const std::int64_t col = r % stride;
      const int expected = col >= offset && col < offset + hidden ? 1 : 0;
      ASSERT_EQ(hits[static_cast<std::size_t>(r)], expected) << "rows element " << r;
    }
  }
}

}  // namespace
}  // namespace scaletune::kernels::cuda
