#pragma once
// The state sharding of a transformer configuration ([sweep] state_sharding): which ZeRO stage
// (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter
// Models") and whether shards are even or sized by each rank's memory.

#include <string>
#include <string_view>

namespace scaletune::kernels {

/// What each rank keeps whole and what it shards. replicated: everything whole, gradients
/// all-reduced (DDP); zero1: optimizer state sharded; zero2: + gradients (reduce-scatter);
/// zero3: + parameters (all-gathered per layer before use, dropped after).
enum class ZeroStage { replicated, zero1, zero2, zero3 };

/// A [sweep] state_sharding value: "replicated", "zero1" .. "zero3", each zero stage optionally
/// with ":memory_proportional" (shard fractions by each rank's memory instead of even), or
/// "auto" (the planner picks the first stage, in the order above, that fits every rank, with
/// memory-proportional shards).
struct StateSharding {
  ZeroStage stage = ZeroStage::replicated;
  bool memory_proportional = false;
  bool automatic = false;
};

/// Parses a state_sharding value (the job layer has checked it). Throws std::invalid_argument
/// naming the value when it is none of the forms above.
StateSharding parse_state_sharding(std::string_view text);

/// "replicated", "zero1", "zero2", "zero3".
std::string_view stage_name(ZeroStage stage);

/// The value as a job file writes it: "zero2:memory_proportional", "replicated", ...; a chosen
/// automatic sharding prints as the stage it chose.
std::string state_sharding_text(const StateSharding& sharding);

}  // namespace scaletune::kernels
