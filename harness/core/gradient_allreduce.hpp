#pragma once
// Data-parallel gradient averaging in fixed-size buckets, as PyTorch DDP does
// (Li et al., "PyTorch Distributed", VLDB 2020): gradients are laid out flat and
// all-reduced bucket by bucket, last layers first (GradientReducer without overlap).

#include <cstddef>
#include <span>

#include "harness/core/communicator.hpp"
#include "harness/core/gradient_reducer.hpp"

namespace scaletune::core {

/// Replaces `grads` ([count] floats, host) on every rank by the sum over ranks times `scale`
/// (scale = 1/size() gives the mean), reducing buckets of at most `bucket_bytes` each from the
/// end of the buffer to the front. Throws std::invalid_argument when bucket_bytes < 4.
void bucketed_all_reduce(Communicator& comm, std::span<float> grads, double bucket_bytes,
                         float scale);

}  // namespace scaletune::core
