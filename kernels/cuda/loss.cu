#include "loss.hpp"

#include <algorithm>

#include "harness/device/cuda_error.hpp"
#include "kernels/cuda/detail/block_reduce.cuh"
#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/elementwise.cuh"
#include "kernels/cuda/detail/launch_checks.hpp"
#include "kernels/cuda/detail/loss_math.hpp"

namespace scaletune::kernels::cuda {
namespace {

constexpr int kRowThreads = 256;                 // softmax cross-entropy: per sample
constexpr int kSumThreads = 1024;                // the final sum over samples: one block
constexpr std::int64_t kMaxRowBlocks = 1 << 20;  // more samples: blocks stride over them

/// One block per sample: label check, maximum, sum of exponentials, then loss and dlogits.
template <class T>
__global__ void __launch_bounds__(kRowThreads)
    softmax_cross_entropy_kernel(std::int64_t rows, std::int64_t classes, float scale,
                                 float grad_factor, const T* logits, const std::int32_t* labels,
                                 T* dlogits, float* sample_loss, int* bad_label) {
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* l = logits + row * classes;
    T* dl = dlogits + row * classes;  // may alias l: read, then written, by one thread
    const std::int32_t label = labels[row];
    if (!detail::class_label_valid(label, classes)) {  // the same branch for the whole block
      if (threadIdx.x == 0) {
        *bad_label = 1;
        sample_loss[row] = 0.0f;
      }
      for (std::int64_t k = threadIdx.x; k < classes; k += kRowThreads)
        dl[k] = detail::from_float<T>(0.0f);
      continue;
    }
    const float label_logit = detail::to_float(l[label]);  // read before any dl store
    float row_max = -INFINITY;
    for (std::int64_t k = threadIdx.x; k < classes; k += kRowThreads)
      row_max = fmaxf(row_max, detail::to_float(l[k]));
    row_max = detail::block_all_reduce<kRowThreads>(row_max, detail::FloatMax{});
    float sum = 0.0f;
    for (std::int64_t k = threadIdx.x; k < classes; k += kRowThreads)
      sum += expf(detail::to_float(l[k]) - row_max);
    sum = detail::block_all_reduce<kRowThreads>(sum, detail::Plus{});
    if (threadIdx.x == 0)
      sample_loss[row] = detail::cross_entropy_loss(sum, row_max, label_logit, scale);
    for (std::int64_t k = threadIdx.x; k < classes; k += kRowThreads)
      dl[k] = detail::from_float<T>(detail::cross_entropy_grad(detail::to_float(l[k]), row_max, sum,
                                                               k == label, grad_factor));
  }
}

/// One sample per index: label check, loss and dlogit.
template <class T>
struct BinaryCrossEntropy {
  float scale;
  float grad_factor;
  const T* logits;
  const float* labels;
  T* dlogits;
  float* sample_loss;
  int* bad_label;
  __device__ void operator()(std::int64_t n) const {
    const float y = labels[n];
    if (!detail::binary_label_valid(y)) {
      *bad_label = 1;
      sample_loss[n] = 0.0f;
      dlogits[n] = detail::from_float<T>(0.0f);
      return;
    }
    const detail::BceTerms terms =
        detail::bce_with_logits(detail::to_float(logits[n]), y, scale, grad_factor);
    sample_loss[n] = terms.loss;
    dlogits[n] = detail::from_float<T>(terms.grad);
  }
};

/// *loss_sum += sum of sample_loss[0, rows), in double, by one block in a fixed order.
__global__ void __launch_bounds__(kSumThreads)
    add_sum_kernel(std::int64_t rows, const float* sample_loss, double* loss_sum) {
  double sum = 0.0;
  for (std::int64_t n = threadIdx.x; n < rows; n += kSumThreads) sum += sample_loss[n];
  const double total = detail::block_all_reduce<kSumThreads>(sum, detail::Plus{});
  if (threadIdx.x == 0) *loss_sum += total;
}

/// Checks what both losses take; returns the per-sample loss buffer inside the workspace.
float* checked_sample_loss(const char* op, std::int64_t rows, const void* logits,
                           const void* labels, const void* dlogits, const double* loss_sum,
                           const int* bad_label, void* workspace, std::size_t workspace_bytes) {
  detail::require_pointers(op, rows,
                           {{"logits", logits},
                            {"labels", labels},
                            {"dlogits", dlogits},
                            {"loss_sum", loss_sum},
                            {"bad_label", bad_label}});
  detail::require_workspace(op, workspace, workspace_bytes, loss_workspace_bytes(rows),
                            alignof(float));
  return static_cast<float*>(workspace);
}

/// Queues the sum of the rows per-sample losses into loss_sum.
void add_sum(cudaStream_t stream, std::int64_t rows, const float* sample_loss, double* loss_sum) {
  add_sum_kernel<<<1, kSumThreads, 0, stream>>>(rows, sample_loss, loss_sum);
  SCALETUNE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

std::size_t loss_workspace_bytes(std::int64_t rows) {
  detail::require_size("loss_workspace_bytes", "rows", rows);
  return static_cast<std::size_t>(rows) * sizeof(float);
}

void softmax_cross_entropy(cudaStream_t stream, core::DType type, std::int64_t rows,
                           std::int64_t classes, float scale, float grad_scale, const void* logits,
                           const std::int32_t* labels, void* dlogits, double* loss_sum,
                           int* bad_label, void* workspace, std::size_t workspace_bytes) {
  constexpr const char* kOp = "softmax_cross_entropy";
  detail::require_size(kOp, "rows", rows);
  if (rows > 0) detail::require_positive(kOp, "classes", classes);
  static_cast<void>(detail::checked_elements(kOp, rows, classes));
  float* sample_loss = checked_sample_loss(kOp, rows, logits, labels, dlogits, loss_sum, bad_label,
                                           workspace, workspace_bytes);
  detail::dispatch_activation(type, kOp, "logits", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (rows == 0) return;
    softmax_cross_entropy_kernel<<<static_cast<int>(std::min(rows, kMaxRowBlocks)), kRowThreads, 0,
                                   stream>>>(
        rows, classes, scale, detail::loss_grad_factor(scale, grad_scale),
        static_cast<const T*>(logits), labels, static_cast<T*>(dlogits), sample_loss, bad_label);
    SCALETUNE_CUDA_CHECK(cudaGetLastError());
    add_sum(stream, rows, sample_loss, loss_sum);
  });
}

void binary_cross_entropy_with_logits(cudaStream_t stream, core::DType type, std::int64_t rows,
                                      float scale, float grad_scale, const void* logits,
                                      const float* labels, void* dlogits, double* loss_sum,
                                      int* bad_label, void* workspace,
                                      std::size_t workspace_bytes) {
  constexpr const char* kOp = "binary_cross_entropy_with_logits";
  detail::require_size(kOp, "rows", rows);
  float* sample_loss = checked_sample_loss(kOp, rows, logits, labels, dlogits, loss_sum, bad_label,
                                           workspace, workspace_bytes);
  detail::dispatch_activation(type, kOp, "logits", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (rows == 0) return;
    detail::for_each_index(stream, rows,
                           BinaryCrossEntropy<T>{scale, detail::loss_grad_factor(scale, grad_scale),
                                                 static_cast<const T*>(logits), labels,
                                                 static_cast<T*>(dlogits), sample_loss, bad_label});
    add_sum(stream, rows, sample_loss, loss_sum);
  });
}

}  // namespace scaletune::kernels::cuda
