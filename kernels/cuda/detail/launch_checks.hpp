#pragma once
// Argument checks every launcher of kernels/cuda runs on the host before it queues work: sizes
// are non-negative and device pointers are given wherever there is something to read or write.
// They throw std::invalid_argument naming the kernel, the argument and what was expected.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>

namespace scaletune::kernels::cuda::detail {

/// A named device pointer, for require_pointers.
struct NamedPointer {
  const char* name;
  const void* pointer;
};

/// Throws unless size >= 0, e.g. "layer_norm_forward: rows is -1, expected >= 0".
inline void require_size(const char* kernel, const char* name, std::int64_t size) {
  if (size < 0)
    throw std::invalid_argument(std::string(kernel) + ": " + name + " is " + std::to_string(size) +
                                ", expected >= 0");
}

/// Throws unless size >= 1, e.g. "layer_norm_forward: cols is 0, expected >= 1".
inline void require_positive(const char* kernel, const char* name, std::int64_t size) {
  if (size < 1)
    throw std::invalid_argument(std::string(kernel) + ": " + name + " is " + std::to_string(size) +
                                ", expected >= 1");
}

/// Throws when `elements` > 0 and one of `pointers` is null, e.g. "relu_forward: x is null,
/// expected a device pointer" (with nothing to touch, null pointers are accepted).
inline void require_pointers(const char* kernel, std::int64_t elements,
                             std::initializer_list<NamedPointer> pointers) {
  if (elements == 0) return;
  for (const NamedPointer& p : pointers)
    if (p.pointer == nullptr)
      throw std::invalid_argument(std::string(kernel) + ": " + p.name +
                                  " is null, expected a device pointer");
}

/// rows * cols, after checking both are >= 0 (and that the product fits in 63 bits).
inline std::int64_t checked_elements(const char* kernel, std::int64_t rows, std::int64_t cols) {
  require_size(kernel, "rows", rows);
  require_size(kernel, "cols", cols);
  if (cols > 0 && rows > INT64_MAX / cols)
    throw std::invalid_argument(std::string(kernel) + ": rows * cols overflows (" +
                                std::to_string(rows) + " x " + std::to_string(cols) + ")");
  return rows * cols;
}

/// Throws unless `workspace` holds `needed` bytes and is aligned for `alignment`-byte values.
inline void require_workspace(const char* kernel, const void* workspace,
                              std::size_t workspace_bytes, std::size_t needed,
                              std::size_t alignment) {
  if (needed == 0) return;
  if (workspace == nullptr || workspace_bytes < needed)
    throw std::invalid_argument(std::string(kernel) + ": workspace has " +
                                std::to_string(workspace == nullptr ? 0 : workspace_bytes) +
                                " bytes, expected at least " + std::to_string(needed));
  if (reinterpret_cast<std::uintptr_t>(workspace) % alignment != 0)
    throw std::invalid_argument(std::string(kernel) + ": workspace is not " +
                                std::to_string(alignment) + "-byte aligned");
}

}  // namespace scaletune::kernels::cuda::detail
