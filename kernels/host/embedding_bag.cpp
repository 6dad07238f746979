#include "embedding_bag.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"
#include "kernels/host/detail/row_id_checks.hpp"

namespace scaletune::kernels {

namespace {

using detail::element;
using detail::require_ids_in_range;

/// Throws unless offsets [bags + 1] is a CSR offset vector over `nnz` indices: offsets[0] = 0,
/// non-decreasing, offsets[bags] = nnz.
void require_offsets(std::string_view op, const IndexVector& offsets, std::size_t bags,
                     std::size_t nnz) {
  detail::require_shape(op, "offsets", offsets, {bags + 1});
  if (offsets(0) != 0)
    throw std::invalid_argument(element(op, "offsets", 0, offsets(0)) + "must be 0");
  for (std::size_t b = 1; b <= bags; ++b) {
    if (offsets(b) < offsets(b - 1))
      throw std::invalid_argument(element(op, "offsets", b, offsets(b)) + "is less than offsets[" +
                                  std::to_string(b - 1) + "] = " + std::to_string(offsets(b - 1)) +
                                  " (offsets must be non-decreasing)");
  }
  if (offsets(bags) != static_cast<std::int64_t>(nnz))
    throw std::invalid_argument(element(op, "offsets", bags, offsets(bags)) +
                                "must equal the number of indices, " + std::to_string(nnz));
}

/// The checks forward and backward share: bag layout and index range.
void require_bags(std::string_view op, const IndexVector& indices, const IndexVector& offsets,
                  std::size_t bags, std::size_t num_rows) {
  require_offsets(op, offsets, bags, indices.extent(0));
  require_ids_in_range(op, "indices", indices, num_rows);
}

/// 1 for kSum; 1 / length of the bag [begin, end) for kMean (0 for an empty bag: it has no rows
/// to scale).
float bag_scale(Pooling mode, std::int64_t begin, std::int64_t end) {
  if (mode == Pooling::kSum || end == begin) return 1.0f;
  return 1.0f / static_cast<float>(end - begin);
}

/// (row, bag) of every index position, sorted: equal rows end up adjacent.
std::vector<std::pair<std::int64_t, std::size_t>> sorted_row_bag_pairs(const IndexVector& indices,
                                                                       const IndexVector& offsets) {
  std::vector<std::pair<std::int64_t, std::size_t>> pairs;
  pairs.reserve(indices.extent(0));
  for (std::size_t b = 0; b + 1 < offsets.extent(0); ++b) {
    for (std::int64_t k = offsets(b); k < offsets(b + 1); ++k) pairs.emplace_back(indices(k), b);
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

/// Positions in `pairs` where a new row starts, followed by pairs.size().
std::vector<std::size_t> run_starts(
    const std::vector<std::pair<std::int64_t, std::size_t>>& pairs) {
  std::vector<std::size_t> starts;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    if (k == 0 || pairs[k].first != pairs[k - 1].first) starts.push_back(k);
  }
  starts.push_back(pairs.size());
  return starts;
}

/// Lookups between a row's prefetch and its use: enough to cover a memory latency (about
/// 100 ns) at a few ns per row, few enough that the prefetched rows stay in L1/L2.
constexpr std::int64_t kPrefetchAhead = 16;

/// Hints the CPU to load the cache lines of `floats` floats at `row` (a no-op elsewhere).
inline void prefetch_row(const float* row, std::size_t floats) {
  constexpr std::size_t kLineFloats = 64 / sizeof(float);
  for (std::size_t i = 0; i < floats; i += kLineFloats) __builtin_prefetch(row + i, 0, 1);
}

}  // namespace

void embedding_bag_forward(const Tensor2& table, const IndexVector& indices,
                           const IndexVector& offsets, Pooling mode, const Tensor2& out) {
  constexpr const char* kOp = "embedding_bag_forward";
  const std::size_t bags = out.extent(0);
  const std::size_t dim = table.extent(1);
  detail::require_shape(kOp, "out", out, {bags, dim});
  require_bags(kOp, indices, offsets, bags, table.extent(0));
  const auto nnz = static_cast<std::int64_t>(indices.extent(0));
  Kokkos::parallel_for("embedding_bag_forward", detail::host_range(bags), [=](std::size_t b) {
    for (std::size_t d = 0; d < dim; ++d) out(b, d) = 0.0f;
    for (std::int64_t k = offsets(b); k < offsets(b + 1); ++k) {
      // Rows are scattered over a table far larger than the caches: ask for the row needed
      // kPrefetchAhead lookups later now, so its misses overlap this row's work.
      if (k + kPrefetchAhead < nnz) prefetch_row(&table(indices(k + kPrefetchAhead), 0), dim);
      const std::int64_t row = indices(k);
      for (std::size_t d = 0; d < dim; ++d) out(b, d) += table(row, d);
    }
    const float scale = bag_scale(mode, offsets(b), offsets(b + 1));
    for (std::size_t d = 0; d < dim; ++d) out(b, d) *= scale;
  });
}

SparseRowGrad embedding_bag_backward(const Tensor2& grad_out, const IndexVector& indices,
                                     const IndexVector& offsets, Pooling mode,
                                     std::size_t num_rows) {
  constexpr const char* kOp = "embedding_bag_backward";
  const std::size_t dim = grad_out.extent(1);
  require_bags(kOp, indices, offsets, grad_out.extent(0), num_rows);
  const auto pairs = sorted_row_bag_pairs(indices, offsets);
  const auto starts = run_starts(pairs);
  const std::size_t touched = starts.size() - 1;
  SparseRowGrad grad{IndexVector("embedding_grad_rows", touched),
                     Tensor2("embedding_grad_values", touched, dim)};
  const auto* pair_data = pairs.data();
  const auto* start_data = starts.data();
  const IndexVector rows = grad.rows;
  const Tensor2 values = grad.values;  // zero-initialised by the allocation
  Kokkos::parallel_for("embedding_bag_backward", detail::host_range(touched), [=](std::size_t u) {
    rows(u) = pair_data[start_data[u]].first;
    for (std::size_t k = start_data[u]; k < start_data[u + 1]; ++k) {
      const std::size_t bag = pair_data[k].second;
      const float scale = bag_scale(mode, offsets(bag), offsets(bag + 1));
      for (std::size_t d = 0; d < dim; ++d) values(u, d) += scale * grad_out(bag, d);
    }
  });
  return grad;
}

}  // namespace scaletune::kernels
