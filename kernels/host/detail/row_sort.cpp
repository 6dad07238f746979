#include "kernels/host/detail/row_sort.hpp"

#include <algorithm>
#include <array>

namespace scaletune::kernels::detail {

void radix_sort_by_row(std::vector<RowBag>& pairs, std::vector<RowBag>& scratch) {
  constexpr int kDigitBits = 11;
  constexpr std::int64_t kDigitMask = (std::int64_t{1} << kDigitBits) - 1;
  std::int64_t max_row = 0;
  for (const RowBag& p : pairs) max_row = std::max(max_row, p.first);
  scratch.resize(pairs.size());
  for (int shift = 0; shift < 63 && (max_row >> shift) != 0; shift += kDigitBits) {
    std::array<std::size_t, (std::size_t{1} << kDigitBits) + 1> start{};
    for (const RowBag& p : pairs)
      ++start[static_cast<std::size_t>((p.first >> shift) & kDigitMask) + 1];
    for (std::size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
    for (const RowBag& p : pairs)
      scratch[start[static_cast<std::size_t>((p.first >> shift) & kDigitMask)]++] = p;
    pairs.swap(scratch);
  }
}

}  // namespace scaletune::kernels::detail
