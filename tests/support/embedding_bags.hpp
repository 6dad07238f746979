#pragma once
// Bags of embedding lookups in CSR form for the tests of the device embedding kernels against
// the host ops: row ids repeat within and across bags, some bags are empty, and the ids can
// follow a Zipf-like law (a few hot rows take most lookups, as in recommendation data).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels::test {

/// A batch of bags: indices [nnz] back to back, offsets [bags + 1].
struct BagLists {
  std::vector<std::int64_t> indices;
  std::vector<std::int64_t> offsets{0};
  std::size_t bags() const { return offsets.size() - 1; }
};

/// How random_bag_lists draws row ids.
enum class RowLaw {
  uniform,  ///< every row equally likely
  zipf,     ///< row r with probability proportional to 1 / (r + 1)^1.1
};

/// `bags` bags from mt19937(seed): bag b is empty when b % 5 == 3, else 1..max_len lookups of
/// rows in [0, rows) drawn by `law` (with few rows, ids repeat within and across bags).
inline BagLists random_bag_lists(std::size_t bags, std::size_t max_len, std::size_t rows,
                                 RowLaw law, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::size_t> length(1, max_len);
  std::vector<double> weights(rows, 1.0);
  if (law == RowLaw::zipf)
    for (std::size_t r = 0; r < rows; ++r) weights[r] = 1.0 / std::pow(r + 1.0, 1.1);
  std::discrete_distribution<std::int64_t> row(weights.begin(), weights.end());
  BagLists lists;
  for (std::size_t b = 0; b < bags; ++b) {
    const std::size_t len = b % 5 == 3 ? 0 : length(gen);
    for (std::size_t k = 0; k < len; ++k) lists.indices.push_back(row(gen));
    lists.offsets.push_back(static_cast<std::int64_t>(lists.indices.size()));
  }
  return lists;
}

/// A host IndexVector holding `values`.
inline IndexVector index_vector(const std::vector<std::int64_t>& values, const std::string& label) {
  IndexVector v(label, values.size());
  for (std::size_t i = 0; i < values.size(); ++i) v(i) = values[i];
  return v;
}

}  // namespace scaletune::kernels::test
