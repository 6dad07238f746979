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
#include "harness/core/gradient_reducer.hpp"
#include "harness/core/phase_timer.hpp"
#include "kernels/ops/loss_scaler.hpp"
#include "kernels/ops/memory_ledger.hpp"
#include "kernels/transformer/gpt_model.hpp"
#include "kernels/transformer/state_layout.hpp"
#include "kernels/transformer/transformer_plan.hpp"

namespace scaletune::kernels {

using ops::AdamOptions;

/// Indices of the phases ZeroTrainer::step marks, in the workload's phase order.
struct TrainerPhases {
  std::size_t fwd = 0, bwd = 1, allgather = 2, reducescatter = 3, allreduce = 4, optimizer = 5;
};

/// What a trainer may allocate and how the replicated stage exchanges its gradients.
struct TrainerOptions {
  std::int64_t memory_budget_bytes = 0;    ///< the trainer's ledger budget, bytes (0: none)
  double bucket_bytes = 25.0 * (1 << 20);  ///< gradient all-reduce bucket, bytes (>= 4)
  bool overlap = true;                     ///< all-reduce buckets while backward runs (DDP)
};

/// Rank `rank`'s part of `plan`, written once on the op layer (every buffer made through one
/// MemoryLedger on the rank's backend, the step only backend ops and collectives on tensor data
/// in the communicator's memory space): global samples [sample_offset, sample_offset + b) split
/// into g micro-batches of m. Per step:
///   replicated: micro-batches accumulate into whole gradients; the all-reduce of
///     core::GradientReducer (buckets of bucket_bytes from the end of the flat vector; with
///     overlap each bucket starts as soon as the last micro-batch's backward has finished every
///     unit in it: ln_f, blocks L-1..0, embeddings); Adam on everything.
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
/// split and stage makes the update one rank makes on the whole batch. Parameters, gradients and
/// Adam's moments are fp32; with 16-bit activations (shape.dtype) the GEMMs read a 16-bit
/// working copy of the parameters (Adam's MasterUpdate::copy for replicated, a copy of the
/// gathered vector for zero1 and zero2, of each gathered unit for zero3), and fp16 scales the
/// loss dynamically (ops::LossScaler; the sharded stages sum the overflow flag over the ranks
/// before Adam, so every rank skips the same steps).
class ZeroTrainer {
 public:
  /// `shape.max_micro_batch` is ignored (the plan's micro-batch of `rank` is used). Allocates
  /// exactly transformer_memory of the rank on `backend` (whose memory space must be comm's)
  /// through a ledger of options.memory_budget_bytes (std::bad_alloc when it cannot) and
  /// initialises the parameters with init_gpt_parameters' values for `seed`; no collectives.
  /// backend and comm must outlive the trainer. Throws std::invalid_argument when rank is
  /// outside the plan or bucket_bytes < 4.
  ZeroTrainer(ops::Backend& backend, const GptShape& shape, const TransformerPlan& plan, int rank,
              core::Communicator& comm, std::uint64_t seed, const AdamOptions& adam,
              const TrainerOptions& options = {});
  ~ZeroTrainer();
  ZeroTrainer(const ZeroTrainer&) = delete;
  ZeroTrainer& operator=(const ZeroTrainer&) = delete;

  /// One training step (collective over the plan's ranks), marking `phases` on `timer`.
  /// `iteration` seeds the dropout masks. The global mean token loss of the step is then in
  /// last_loss().
  void step(core::PhaseTimer& timer, const TrainerPhases& phases, std::uint64_t iteration);

  /// Global mean token loss of the latest step (downloads it: waits for the device).
  double last_loss() const;

  /// The whole parameter vector [parameter_count] in the flat layout (collective: zero3
  /// gathers the shards). For tests and checks, not for timing.
  std::vector<float> full_parameters();

  /// Bytes this trainer allocated (parameters, gradients, optimizer state, activations,
  /// tokens and communication buffers): its ledger's.
  std::int64_t allocated_bytes() const { return m_ledger.bytes(); }

  /// Steps fp16 loss scaling skipped for overflowing gradients (0 otherwise).
  std::int64_t skipped_steps() const { return m_scaler.skipped_steps(); }

 private:
  struct Buffers;
  void allocate_buffers();
  void initialise_parameters();
  GptBuffers model_buffers() const;
  std::size_t unit_size(std::size_t unit) const;
  std::size_t unit_slot(std::size_t unit) const;
  /// `unit`'s window of a buffer of the units gathered or reduced one at a time.
  ops::Tensor unit_view(const ops::Tensor& buffer, std::size_t unit) const;
  /// The replicated stage's report to the reducer: backward has finished `unit` (of the last
  /// micro-batch when `last`).
  void unit_finished(std::size_t unit, bool last);
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
  /// fp16 on sharded stages: the overflow flag summed over the ranks (in the allreduce phase).
  void agree_on_overflow(core::PhaseTimer& timer, const TrainerPhases& phases);
  void update_and_share(core::PhaseTimer& timer, const TrainerPhases& phases);

  ops::Backend& m_ops;
  ops::MemoryLedger m_ledger;
  ops::LossScaler m_scaler;
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
  std::unique_ptr<core::GradientReducer> m_reducer;         ///< replicated only
  std::vector<std::int32_t> m_host_tokens, m_host_targets;  ///< [b S] this rank's batch
  int m_loaded = -1;  ///< the micro-batch whose ids are in the token tensors
  std::int64_t m_sample_offset = 0;
  float m_loss_scale =
      1.0f;  ///< 1 / (global batch x seq_len): every token's share of the mean loss
  int m_adam_steps = 0;
};

}  // namespace scaletune::kernels
