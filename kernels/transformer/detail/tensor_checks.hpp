#pragma once
// Argument checks of the transformer's layers on op-layer tensors: metadata only (extents,
// element types, addresses), never the data, so they hold on every backend.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "kernels/ops/tensor.hpp"

namespace scaletune::kernels::detail {

/// "[2, 8]": the extents of `t` without its element type ("[]" for "none").
inline std::string shape_text(const ops::Tensor& t) {
  std::string text = "[";
  for (int i = 0; i < t.rank(); ++i) text += (i > 0 ? ", " : "") + std::to_string(t.dim(i));
  return text + "]";
}

/// Throws std::invalid_argument "<op>: <name> is <type>, expected <want>" unless t.dtype() is
/// `want`.
inline void require_type(std::string_view op, std::string_view name, const ops::Tensor& t,
                         ops::DType want) {
  if (t.dtype() == want) return;
  throw std::invalid_argument(std::string(op) + ": " + std::string(name) + " is " +
                              std::string(core::dtype_key(t.dtype())) + ", expected " +
                              std::string(core::dtype_key(want)));
}

/// Throws std::invalid_argument "<op>: <b_name> must not alias <a_name>" when the bytes of `a`
/// and `b` overlap (the layer reads `a` after writing `b`). Tensors without data (a describing
/// backend) never alias.
inline void require_distinct(std::string_view op, std::string_view a_name, const ops::Tensor& a,
                             std::string_view b_name, const ops::Tensor& b) {
  const auto* a0 = static_cast<const std::byte*>(a.data());
  const auto* b0 = static_cast<const std::byte*>(b.data());
  if (a0 == nullptr || b0 == nullptr) return;
  if (a0 < b0 + b.bytes() && b0 < a0 + a.bytes())
    throw std::invalid_argument(std::string(op) + ": " + std::string(b_name) + " must not alias " +
                                std::string(a_name));
}

}  // namespace scaletune::kernels::detail
