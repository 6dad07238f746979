#pragma once
// GPT-2's input embedding on the device (kernels/host/token_embedding.hpp is the reference):
// token plus position embedding, forward and backward.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/core/dtype.hpp"

namespace scaletune::kernels::cuda {

/// out[t, :] = wte[tokens[t], :] + wpe[t mod seq, :] for t < tokens_count: tokens int32
/// [tokens_count] (ids in [0, vocab): the caller checks them), wte [vocab, hidden] and wpe
/// [seq, hidden] fp32, out [tokens_count, hidden] in `out_type` (fp32, fp16 or bf16, rounded
/// once). Device, contiguous; queued on `stream`. Throws std::invalid_argument on a size < 0,
/// a null pointer or another type; CudaError when the launch fails.
void token_embedding_forward(cudaStream_t stream, std::int64_t tokens_count, std::int64_t seq,
                             std::int64_t hidden, const float* wte, const float* wpe,
                             const std::int32_t* tokens, core::DType out_type, void* out);

/// dwte[tokens[t], :] += dout[t, :] and dwpe[t mod seq, :] += dout[t, :] (fp32 atomics: a token
/// that repeats adds in no fixed order, so sums may differ from the host's in the last bits).
/// dout [tokens_count, hidden] in `dout_type`; dwte, dwpe fp32. Throws as the forward.
void token_embedding_backward(cudaStream_t stream, std::int64_t tokens_count, std::int64_t seq,
                              std::int64_t hidden, core::DType dout_type, const void* dout,
                              const std::int32_t* tokens, float* dwte, float* dwpe);

}  // namespace scaletune::kernels::cuda
