#pragma once
// GPT-style transformer workload (kind "transformer"): GPT-2's architecture (Radford et al.
// 2019) trained with Adam under a ZeRO stage (Rajbhandari et al. 2020), on ranks that may differ
// in speed and memory: the batch is split by speed (batch_split proportional or auto, from a
// short profile), each rank runs micro-batches with gradient accumulation, and the training
// state is sharded by memory (state_sharding :memory_proportional or auto).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/workload.hpp"
#include "harness/core/workload_registry.hpp"
#include "harness/job/job.hpp"
#include "kernels/ops/backend.hpp"
#include "kernels/transformer/transformer_plan.hpp"
#include "kernels/transformer/zero_trainer.hpp"

namespace scaletune::kernels {

/// One rank's transformer (registered as workload "transformer"), written once on the op layer:
/// it runs on the rank's backend (make_backend: the host, or its GPU), activations in
/// compute_dtype(backend, precision) (16-bit on CUDA, with fp32 master weights and, for fp16,
/// dynamic loss scaling). Synthetic tokens (token_batch.hpp), the same every step; initial
/// weights init_gpt_parameters(seed); Adam with the job's learning_rate and torch's other
/// defaults; dropout on both residual branches of every block. Rank 0 prints the plan and why
/// (describe_plan) when it is made.
class Transformer final : public core::Workload {
 public:
  /// Plans the configuration (plan_transformer) from config.per_rank_batch (even or explicit
  /// splits) or a profile of every rank (MicroBatchProfiler, for batch_split "proportional"
  /// and "auto"), config.sharding and each rank's ctx.memory_budget_bytes (gathered; 0: no
  /// limit). When a rank does not fit, every rank throws core::MemoryBudgetExceeded naming that
  /// rank, its need by kind and the shortfall, before allocating the model; otherwise allocates
  /// and initialises this rank's ZeroTrainer (the replicated stage's gradient buckets of
  /// ctx.bucket_bytes, overlapped with backward when ctx.overlap). Collective over ctx.comm (until
  /// the plan is made). Throws std::invalid_argument on bad options or a precision the backend
  /// does not compute in (the host: fp32 only), std::bad_variant_access when config.sharding is
  /// no job::StateSharding.
  Transformer(const job::TransformerOptions& options, const job::Config& config,
              const core::RankContext& ctx);
  ~Transformer() override;
  Transformer(const Transformer&) = delete;
  Transformer& operator=(const Transformer&) = delete;

  /// {"fwd", "bwd", "allgather", "reducescatter", "allreduce", "optimizer"}. fwd: embeddings and
  /// blocks forward; bwd: the LM head (logits, loss and their backward), blocks and embeddings
  /// backward; allgather: zero3's per-unit parameter gathers and the zero1/zero2 parameter
  /// all-gatherv after Adam; reducescatter: gradients to their shards; allreduce: replicated's
  /// gradients (with overlap the buckets start during backward, so allreduce is what stayed
  /// exposed after it), fp16's overflow flag on the sharded stages, and the loss; optimizer:
  /// Adam.
  std::vector<std::string> phase_names() const override;
  /// One training step (ZeroTrainer::step). Collective over ctx.comm. With a profiled split
  /// and ctx.warmup >= 2, the second warm-up step checks the plan: every rank's forward +
  /// backward seconds (ComputeClock) against the plan's prediction (corrected_profiles); when
  /// they disagree beyond the profiles' spread, the configuration is planned once more on the
  /// corrected profiles and, when that changes the plan, its trainer is made anew (initial
  /// weights again) and, after an untimed step, one step of it is timed against the checked
  /// step: the faster plan stays (back to the first, made anew, when the new one was slower).
  /// Rank 0 prints the new plan, or that it kept the first. All of it is warm-up: up to four
  /// more untimed steps than run.warmup.
  void step(core::PhaseTimer& timer) override;
  /// GptModel::parameter_count.
  double params() const override;
  /// 6 N S + 12 L H S^2 FLOP per sample of S tokens (N parameters): a multiply-add per
  /// parameter per token forward and two backward, plus the attention scores and their use
  /// (Chowdhery et al. 2022, "PaLM", appendix B).
  double flops_per_sample() const override;
  /// The larger of what the profile allocated and what the trainer allocated, bytes.
  std::int64_t memory_peak_bytes() const override;
  /// The plan's per-rank batch.
  std::vector<int> per_rank_batch() const override;
  /// layers, hidden, heads, seq_len, vocab, ffn_mult, dropout, learning_rate, rounds (the most
  /// micro-batches of a rank), memory_estimate (the plan's largest rank need, bytes) and
  /// skipped_steps (steps fp16 loss scaling skipped; 0 otherwise), replanned (1 when the warm-up
  /// check changed the plan, else 0).
  std::vector<std::pair<std::string, double>> attributes() const override;
  /// zero_stage (the stage used, e.g. "zero2:memory_proportional"; the swept state_sharding
  /// may be "auto") and plan (describe_plan).
  std::vector<std::pair<std::string, std::string>> text_attributes() const override;
  /// The profiles a proportional or auto split was planned from (the fitted lines, with their
  /// spreads and each rank's capacity; before any warm-up re-plan); empty for other splits.
  std::vector<core::RankProfile> rank_profiles() const override;
  std::optional<core::MemoryModel> profile_memory_model() const override;

  /// Global mean token loss of the latest step (downloads it: waits for the device).
  double last_loss() const { return m_trainer->last_loss(); }
  /// The whole parameter vector after the latest step (collective; for tests).
  std::vector<float> full_parameters() { return m_trainer->full_parameters(); }
  /// The plan every rank follows.
  const TransformerPlan& plan() const { return m_plan; }

 private:
  /// This rank's trainer of m_plan.
  std::unique_ptr<ZeroTrainer> make_trainer() const;
  /// A step's seconds: every rank's forward + backward, and the slowest rank's whole step.
  struct CheckedStep {
    std::vector<double> compute_s;
    double step_s = 0.0;
  };
  /// Runs a step and gathers its CheckedStep (collective).
  CheckedStep checked_step(core::PhaseTimer& timer);
  /// The plan on the profiles corrected by `checked`, when they disagreed beyond the spread and
  /// that changes the plan.
  std::optional<TransformerPlan> replanned(const CheckedStep& checked) const;
  /// Frees the trainer, makes one of `plan` and runs its first (cold, untimed) step.
  void switch_plan(TransformerPlan plan, core::PhaseTimer& timer);
  /// The warm-up check (collective; step's doc): re-plans at most once, and keeps the new plan
  /// only when its step is no slower than the first plan's.
  void check_plan(core::PhaseTimer& timer);
  /// Rank 0 of a run (not a described step) prints "  <config id> <text>".
  void say(const std::string& text) const;

  job::TransformerOptions m_options;
  std::unique_ptr<ops::Backend> m_backend;
  GptShape m_shape;
  TransformerPlan m_plan;
  std::unique_ptr<ZeroTrainer> m_trainer;
  std::int64_t m_profile_bytes = 0;
  std::uint64_t m_iteration = 0;
  core::Communicator* m_comm;
  std::uint64_t m_seed;
  TrainerOptions m_exchange;
  std::string m_config_id;
  TransformerPlanRequest m_request;  ///< what m_plan was made from
  std::uint64_t m_check_step;        ///< the step that checks the plan; none: past every step
  bool m_replanned = false;
};

/// The model of `options` with activations in `dtype` on a `backend` backend (max_micro_batch
/// 1, set per use).
GptShape gpt_shape(const job::TransformerOptions& options, ops::DType dtype,
                   ops::BackendKind backend);

/// Adds kind "transformer" to `registry` (kernels::register_workloads calls it).
void register_transformer(core::WorkloadRegistry& registry);

}  // namespace scaletune::kernels
