#pragma once
// Argument checks shared by the host ops: each op checks its tensors' shapes once per call and
// throws std::invalid_argument naming the op, the tensor, its shape and the expected shape.

#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

namespace scaletune::kernels::detail {

/// "[2, 64, 56, 56]": the extents of `view`'s first `rank` dimensions.
template <class ViewType>
std::string shape_string(const ViewType& view, std::size_t rank) {
  std::string text = "[";
  for (std::size_t i = 0; i < rank; ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(view.extent(i));
  }
  return text + "]";
}

/// Throws std::invalid_argument unless `view`'s extents equal `expected` (one entry per
/// dimension), e.g. "batch_norm forward: gamma is [32], expected [64]".
template <class ViewType>
void require_shape(std::string_view op, std::string_view tensor, const ViewType& view,
                   std::initializer_list<std::size_t> expected) {
  std::size_t i = 0;
  bool same = true;
  std::string wanted = "[";
  for (const std::size_t extent : expected) {
    same = same && view.extent(i) == extent;
    wanted += (i > 0 ? ", " : "") + std::to_string(extent);
    ++i;
  }
  if (same) return;
  throw std::invalid_argument(std::string(op) + ": " + std::string(tensor) + " is " +
                              shape_string(view, expected.size()) + ", expected " + wanted + "]");
}

/// Throws std::invalid_argument unless `view` is one contiguous block (ops that run over the
/// flat span need it; views with padded rows are refused).
template <class ViewType>
void require_contiguous(std::string_view op, std::string_view tensor, const ViewType& view) {
  if (!view.span_is_contiguous())
    throw std::invalid_argument(std::string(op) + ": " + std::string(tensor) +
                                " must be contiguous (no padded rows)");
}

/// Throws std::invalid_argument when `a` and `b` share storage although the op needs them
/// apart (it reads `a` after writing `b`).
template <class ViewA, class ViewB>
void require_distinct(std::string_view op, std::string_view a_name, const ViewA& a,
                      std::string_view b_name, const ViewB& b) {
  if (a.data() != nullptr && a.data() == b.data())
    throw std::invalid_argument(std::string(op) + ": " + std::string(b_name) + " must not alias " +
                                std::string(a_name));
}

}  // namespace scaletune::kernels::detail
