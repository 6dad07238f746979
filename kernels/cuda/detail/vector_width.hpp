#pragma once
// Choosing how many consecutive elements one thread loads at once (1, 2, 4 or 8, at most 16
// bytes) and turning that runtime choice into a template argument. Plain C++.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

namespace scaletune::kernels::cuda::detail {

/// The largest V in {8, 4, 2, 1} with V <= max_width, V * element_bytes <= 16, dim % V == 0 and
/// every pointer in `pointers` aligned to V * element_bytes bytes (null pointers are ignored),
/// so that rows of `dim` elements starting at those pointers split into aligned V-vectors.
inline int pick_vector_width(std::int64_t dim, std::size_t element_bytes, int max_width,
                             std::initializer_list<const void*> pointers) {
  for (int width = 8; width > 1; width /= 2) {
    const std::size_t bytes = static_cast<std::size_t>(width) * element_bytes;
    if (width > max_width || bytes > 16 || dim % width != 0) continue;
    bool aligned = true;
    for (const void* p : pointers)
      aligned = aligned && reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
    if (aligned) return width;
  }
  return 1;
}

/// Calls f(std::integral_constant<int, V>{}) for V = width (1, 2, 4 or 8; anything else is
/// treated as 1).
template <class F>
void dispatch_vector_width(int width, F&& f) {
  switch (width) {
    case 8:
      f(std::integral_constant<int, 8>{});
      break;
    case 4:
      f(std::integral_constant<int, 4>{});
      break;
    case 2:
      f(std::integral_constant<int, 2>{});
      break;
    default:
      f(std::integral_constant<int, 1>{});
      break;
  }
}

}  // namespace scaletune::kernels::cuda::detail
