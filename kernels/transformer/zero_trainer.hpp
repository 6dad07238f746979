#pragma once
// One rank's training state and step for the transformer workload under a ZeRO stage
// (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter
// Models"): parameters, gradients and Adam state kept whole or as this rank's shard of the flat
// parameter vector (shard_layout of the plan's fractions, possibly uneven), gradients of every
// micro-batch accumulated, exchanged with all-reduce, reduce-scatterv and all-gatherv.

#include <cstdint>
#include <memory>
#include <vector>

#include "harness/core/communicator.hpp"
#include "harness/core/phase_timer.hpp"
#include "kernels/host/adam.hpp"
#include "kernels/host/gpt_model.hpp"
#include "kernels/transformer/state_layout.hpp"
#include "kernels/transformer/transformer_plan.hpp"

namespace scaletune::kernels {

/// Indices of the phases ZeroTrainer::step marks, in the workload's phase order.
struct TrainerPhases {
  std::size_t fwd = 0, bwd = 1, allgather = 2, reducescatter = 3, allreduce = 4, optimizer = 5;
};

/// Rank `rank`'s part of `plan`: global samples [sample_offset, sample_offset + b) split into
/// g micro-batches of m. Per step:
///   replicated: micro-batches accumulate into whole gradients; all-reduce; Adam on everything.
///   zero1: as replicated, then reduce-scatterv of the gradients into the shard, Adam on the
///     shard, all-gatherv of the parameters.
///   zero2: rounds = max g over ranks; in each round every rank runs its next micro-batch (or
///     none, once its g are done) and reduce-scatters each unit's gradients (ln_f, blocks L-1..0,
///     embeddings) right after its backward into the shard; Adam on the shard; all-gatherv of
///     the parameters.
///   zero3: as zero2, and each unit's parameters are all-gathered just before its forward
///     (embeddings, blocks, ln_f) and again before each block's backward, into buffers of one
///     unit each; Adam on the shard; nothing else is gathered.
/// Gradients are of the global mean token loss (loss scale 1 / (B S)), so every rank count,
/// split and stage makes the update one rank makes on the whole batch.
class ZeroTrainer {
 public:
  /// `shape.max_micro_batch` is ignored (the plan's micro-batch of `rank` is used). Allocates
  /// exactly transformer_memory of the rank (std::bad_alloc when it cannot) and initialises the
  /// parameters with init_gpt_parameters' values for `seed`; no collectives. Throws
  /// std::invalid_argument when rank is outside the plan.
  ZeroTrainer(const GptShape& shape, const TransformerPlan& plan, int rank,
              core::Communicator& comm, std::uint64_t seed, const AdamOptions& adam);
  ~ZeroTrainer();
  ZeroTrainer(const ZeroTrainer&) = delete;
  ZeroTrainer& operator=(const ZeroTrainer&) = delete;

  /// One training step (collective over the plan's ranks), marking `phases` on `timer`.
  /// `iteration` seeds the dropout masks. Returns the global mean token loss of the step.
  double step(core::PhaseTimer& timer, const TrainerPhases& phases, std::uint64_t iteration);

  /// The whole parameter vector [parameter_count] in the flat layout (collective: zero3
  /// gathers the shards). For tests and checks, not for timing.
  std::vector<float> full_parameters();

  /// Bytes this trainer allocated (parameters, gradients, optimizer state, activations,
  /// tokens and communication buffers).
  std::int64_t allocated_bytes() const;

 private:
  struct Buffers;
  void allocate_buffers();
  void initialise_parameters();
  GptBuffers model_buffers() const;
  std::size_t unit_size(std::size_t unit) const;
  std::size_t unit_slot(std::size_t unit) const;
  Vector unit_view(const Vector& buffer, std::size_t unit) const;
  void load_tokens(int k);
  BlockDropout dropout(int k, std::uint64_t iteration) const;
  std::int64_t first_sample(int k) const;
  void run_whole_gradients(core::PhaseTimer& timer, const TrainerPhases& phases,
                           std::uint64_t iteration);
  void run_rounds(core::PhaseTimer& timer, const TrainerPhases& phases, std::uint64_t iteration);
  void forward_round(core::PhaseTimer& timer, const TrainerPhases& phases, bool active,
                     const BlockDropout& masks);
  void backward_round(core::PhaseTimer& timer, const TrainerPhases& phases, bool active);
  void gather_unit(core::PhaseTimer& timer, const TrainerPhases& phases, std::size_t unit);
  void reduce_unit(core::PhaseTimer& timer, const TrainerPhases& phases, std::size_t unit);
  void update_and_share(core::PhaseTimer& timer, const TrainerPhases& phases);

  GptShape m_shape;
  TransformerPlan m_plan;
  int m_rank;
  core::Communicator& m_comm;
  std::uint64_t m_seed;
  AdamOptions m_adam;
  ShardLayout m_layout;
  std::vector<std::size_t> m_unit_begin;                ///< [L + 3] unit boundaries
  std::vector<std::vector<std::size_t>> m_unit_counts;  ///< [L + 2][ranks]
  std::unique_ptr<Buffers> m_buffers;
  std::unique_ptr<GptModel> m_model;
  std::int64_t m_sample_offset = 0;
  float m_loss_scale =
      1.0f;  ///< 1 / (global batch x seq_len): every token's share of the mean loss
  int m_adam_steps = 0;
  double m_loss = 0.0;
};

}  // namespace scaletune::kernels
