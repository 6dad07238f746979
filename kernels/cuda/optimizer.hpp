#pragma once
// Optimizer updates on flat fp32 device buffers (master parameters, gradients and state), with
// the update order of the host ops (kernels/host/optimizer.hpp sgd_momentum_step,
// kernels/host/adam.hpp adam_step; the same bits for unscale = 1) and the mixed-precision
// conventions of MixedPrecisionStep. Asynchronous on `stream`; nothing synchronises.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/core/dtype.hpp"
#include "kernels/ops/op_options.hpp"

namespace scaletune::kernels::cuda {

/// What a mixed-precision step adds to the fp32 update.
struct MixedPrecisionStep {
  /// Gradients are multiplied by this before use (1 / loss scale with dynamic loss scaling).
  float unscale = 1.0f;
  /// Device int; when non-zero (a non-finite gradient was found, see check_nonfinite) the
  /// whole update is skipped: parameters, state and copy stay as they were. Null: never skip.
  const int* found_nonfinite = nullptr;
  /// Device [count] buffer of param_copy_type that receives the updated parameters (rounded to
  /// nearest even), e.g. the fp16 or bf16 weights the forward reads. Null: no copy.
  void* param_copy = nullptr;
  /// Element type of param_copy: fp32, fp16 or bf16.
  core::DType param_copy_type = core::DType::bf16;
};

/// One SGD step with momentum and L2 weight decay on every element (torch.optim.SGD, dampening
/// 0, no Nesterov): g = grads * unscale + weight_decay * params; velocity = momentum *
/// velocity + g; params -= lr * velocity. params, grads, velocity [count] fp32, device,
/// contiguous. Throws std::invalid_argument when count < 0, a pointer is null (count > 0) or
/// param_copy_type is not fp32, fp16 or bf16; CudaError when the launch fails.
void sgd_momentum_step(cudaStream_t stream, std::int64_t count, const ops::SgdOptions& settings,
                       const MixedPrecisionStep& mixed, float* params, const float* grads,
                       float* velocity);

/// One Adam step on every element (Kingma & Ba 2015, algorithm 1, as torch.optim.Adam):
/// g = grads * unscale + weight_decay * params; m = beta1 m + (1 - beta1) g;
/// v = beta2 v + (1 - beta2) g^2; params -= lr / (1 - beta1^step) * m / (sqrt(v) /
/// sqrt(1 - beta2^step) + eps), the bias corrections formed in double on the host. `step`
/// counts from 1 and is the caller's: a step skipped on the device through found_nonfinite
/// still counts unless the caller reads the flag and holds it back. params, grads, m, v
/// [count] fp32, device, contiguous. Throws std::invalid_argument when count < 0, a pointer is
/// null (count > 0), step < 1, a setting is out of its range or param_copy_type is not fp32,
/// fp16 or bf16; CudaError when the launch fails.
void adam_step(cudaStream_t stream, std::int64_t count, int step, const ops::AdamOptions& settings,
               const MixedPrecisionStep& mixed, float* params, const float* grads, float* m,
               float* v);

}  // namespace scaletune::kernels::cuda
