#pragma once
// RAII for the opaque handles of C libraries (cuBLAS handles, cuDNN handles and descriptors):
// a std::unique_ptr whose deleter calls the library's destroy function, ignoring its status
// (cleanup never throws).

#include <memory>
#include <type_traits>

namespace scaletune::device::detail {

/// Deleter calling `Destroy(handle)`, e.g. Destroy = &cudnnDestroyTensorDescriptor.
template <auto Destroy>
struct HandleDeleter {
  template <class Handle>
  void operator()(Handle handle) const noexcept {
    static_cast<void>(Destroy(handle));
  }
};

/// Owns one `Handle` (a pointer type such as cudnnTensorDescriptor_t) and destroys it with
/// `Destroy`; move-only.
template <class Handle, auto Destroy>
using UniqueHandle = std::unique_ptr<std::remove_pointer_t<Handle>, HandleDeleter<Destroy>>;

}  // namespace scaletune::device::detail
