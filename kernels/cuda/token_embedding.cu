#include "kernels/cuda/token_embedding.hpp"

#include <stdexcept>
#include <string>

#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/elementwise.cuh"

namespace scaletune::kernels::cuda {
namespace {

void require_args(const char* op, std::int64_t tokens_count, std::int64_t seq,
                  std::int64_t hidden, const void* a, const void* b, const void* c,
                  const void* d) {
  if (tokens_count < 0 || seq < 1 || hidden < 0)
    throw std::invalid_argument(std::string(op) + ": tokens " + std::to_string(tokens_count) +
                                ", seq " + std::to_string(seq) + ", hidden " +
                                std::to_string(hidden) + ", expected >= 0, >= 1, >= 0");
  if (tokens_count * hidden > 0 && (!a || !b || !c || !d))
    throw std::invalid_argument(std::string(op) + ": a device pointer is null");
}

/// out[i] = wte[token, c] + wpe[t mod S, c] for element i = t * hidden + c.
template <class T>
struct EmbedForward {
  std::int64_t seq, hidden;
  const float* wte;
  const float* wpe;
  const std::int32_t* tokens;
  T* out;
  __device__ void operator()(std::int64_t i) const {
    const std::int64_t t = i / hidden, c = i % hidden;
    out[i] = detail::from_float<T>(wte[std::int64_t{tokens[t]} * hidden + c] +
                                   wpe[(t % seq) * hidden + c]);
  }
};

/// Adds element i = t * hidden + c of dout into its token's and position's rows.
template <class T>
struct EmbedBackward {
  std::int64_t seq, hidden;
  const T* dout;
  const std::int32_t* tokens;
  float* dwte;
  float* dwpe;
  __device__ void operator()(std::int64_t i) const {
    const std::int64_t t = i / hidden, c = i % hidden;
    const float g = detail::to_float(dout[i]);
    atomicAdd(&dwte[std::int64_t{tokens[t]} * hidden + c], g);
    atomicAdd(&dwpe[(t % seq) * hidden + c], g);
  }
};

}  // namespace

void token_embedding_forward(cudaStream_t stream, std::int64_t tokens_count, std::int64_t seq,
                             std::int64_t hidden, const float* wte, const float* wpe,
                             const std::int32_t* tokens, core::DType out_type, void* out) {
  require_args("token_embedding_forward", tokens_count, seq, hidden, wte, wpe, tokens, out);
  detail::dispatch_activation(out_type, "token_embedding_forward", "out", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::for_each_index(stream, tokens_count * hidden,
                           EmbedForward<T>{seq, hidden, wte, wpe, tokens, static_cast<T*>(out)});
  });
}

void token_embedding_backward(cudaStream_t stream, std::int64_t tokens_count, std::int64_t seq,
                              std::int64_t hidden, core::DType dout_type, const void* dout,
                              const std::int32_t* tokens, float* dwte, float* dwpe) {
  require_args("token_embedding_backward", tokens_count, seq, hidden, dout, tokens, dwte, dwpe);
  detail::dispatch_activation(dout_type, "token_embedding_backward", "dout", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::for_each_index(stream, tokens_count * hidden,
                           EmbedBackward<T>{seq, hidden, static_cast<const T*>(dout), tokens,
                                            dwte, dwpe});
  });
}

}  // namespace scaletune::kernels::cuda
