#pragma once
// Memory of one rank of the transformer workload, by kind, computed from the model's shape, the
// ZeRO stage and the rank's shard before anything big is allocated, so a configuration that
// does not fit is recorded as oom without trying. The workload allocates exactly these buffers.

#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/core/hetero_plan.hpp"
#include "kernels/transformer/gpt_model.hpp"
#include "kernels/transformer/state_sharding.hpp"

namespace scaletune::kernels {

/// One rank's bytes by kind (fp32 state, Adam's two moments):
///   replicated: parameters 4 N, gradients 4 N, optimizer 8 N;
///   zero1: parameters 4 N, gradients 4 N + 4 n (the reduced shard), optimizer 8 n;
///   zero2: parameters 4 N, gradients 4 n + 4 (E + Lb + F) (the shard, and one gradient buffer
///          each for the embeddings, a block and ln_f), optimizer 8 n, comm 4 c;
///   zero3: parameters and gradients 4 n + 4 (E + Lb + F) each (shard plus the gather
///          buffers), optimizer 8 n, comm 4 c;
/// with N parameters, n of them in the rank's shard, unit sizes E, Lb, F
/// (GptModel::unit_parameter_counts) and c = the rank's largest part of one unit (the
/// reduce-scatter receive buffer). activations = GptModel::activation_bytes at the rank's
/// micro-batch plus its token ids and targets (8 bytes per token). With 16-bit activations
/// (GptShape::dtype) parameters add the 16-bit working copy, 2 N (replicated, zero1, zero2) or
/// 2 (E + Lb + F) (zero3: of the gather buffers), and fp16 adds the loss scaler's 4-byte
/// overflow flag to the optimizer state.
struct TransformerMemory {
  std::int64_t parameters = 0;
  std::int64_t gradients = 0;
  std::int64_t optimizer = 0;
  std::int64_t activations = 0;
  std::int64_t comm_buffers = 0;

  /// Sum of the kinds, bytes.
  std::int64_t total() const;
  /// "parameters 1.3 GiB, gradients 1.3 GiB, optimizer state 2.6 GiB, activations 310 MiB,
  /// communication buffers 0 B".
  std::string describe() const;
};

/// Bytes a rank holds with `shard_count` parameters in its shard, `scratch_count` = its largest
/// part of one unit, and micro-batch shape.max_micro_batch. Throws std::invalid_argument on a bad
/// shape (as GptModel).
TransformerMemory transformer_memory(const GptShape& shape, ZeroStage stage,
                                     std::size_t shard_count, std::size_t scratch_count);

/// The planner's view of transformer_memory for `ranks` ranks: state_bytes is what shards
/// (16 N for zero3, 12 N for zero1 and zero2, 0 for replicated), replicated_bytes the rest (with
/// the receive buffer at its bound, the largest unit), activation bytes linear in the
/// micro-batch. With even shards (memory_proportional false) the sharded bytes count as
/// replicated bytes / ranks, so the planner's fractions come out even. An upper bound of
/// transformer_memory for every shard within one element of the fraction. Throws as
/// transformer_memory.
core::MemoryModel transformer_memory_model(const GptShape& shape, ZeroStage stage,
                                           bool memory_proportional, int ranks);

}  // namespace scaletune::kernels
