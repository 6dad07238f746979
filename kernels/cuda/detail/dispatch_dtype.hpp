#pragma once
// The one switch from an activation's core::DType to the element type a kernel template is
// instantiated with (float, Fp16, Bf16). Every launcher of kernels/cuda dispatches through it.

#include <stdexcept>
#include <string>

#include "harness/core/dtype.hpp"
#include "kernels/cuda/detail/cast_math.hpp"

namespace scaletune::kernels::cuda::detail {

/// Carries an element type T to a generic lambda: `[&](auto tag) { using T = typename
/// decltype(tag)::type; ... }`.
template <class T>
struct TypeTag {
  using type = T;
};

/// Calls f(TypeTag<T>{}) with T the element type of `type`: float for fp32, Fp16 for fp16,
/// Bf16 for bf16. Throws std::invalid_argument naming `kernel`, `tensor` and the type for any
/// other type (fp64, int32, int64).
template <class F>
void dispatch_activation(core::DType type, const char* kernel, const char* tensor, F&& f) {
  switch (type) {
    case core::DType::fp32:
      f(TypeTag<float>{});
      return;
    case core::DType::fp16:
      f(TypeTag<Fp16>{});
      return;
    case core::DType::bf16:
      f(TypeTag<Bf16>{});
      return;
    default:
      break;
  }
  throw std::invalid_argument(std::string(kernel) + ": " + tensor + " has element type " +
                              std::string(core::dtype_key(type)) + ", expected fp32, fp16 or bf16");
}

}  // namespace scaletune::kernels::cuda::detail
