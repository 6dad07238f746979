#pragma once
// Moving host data into and out of a backend's tensors, converting between fp32 on the host and
// the tensor's element type (set-up and checks only: never inside a timed step).

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/ops/backend.hpp"

namespace scaletune::ops {

/// Whether `backend` holds values (host, CUDA), not only a description of the ops (the
/// describing backend): initial weights and inputs need drawing only then.
inline bool holds_values(const Backend& backend) {
  return backend.kind() != BackendKind::describe;
}

/// dst = host (dst.numel() floats): directly for an fp32 tensor, else through an fp32 staging
/// buffer on the backend and a converting copy (round to nearest even). Synchronous.
/// Throws std::invalid_argument when the sizes differ.
void upload_floats(Backend& backend, const Tensor& dst, std::span<const float> host);

/// src's elements as host floats, converted from its element type. Synchronous.
std::vector<float> download_floats(Backend& backend, const Tensor& src);

/// dst = host, an int32 tensor of host.size() elements (labels, token ids). Synchronous.
void upload_ints(Backend& backend, const Tensor& dst, std::span<const std::int32_t> host);

/// src (int32) as host ints. Synchronous.
std::vector<std::int32_t> download_ints(Backend& backend, const Tensor& src);

/// The one value of an fp64 [1] tensor (a loss). Synchronous.
double download_scalar(Backend& backend, const Tensor& src);

}  // namespace scaletune::ops
