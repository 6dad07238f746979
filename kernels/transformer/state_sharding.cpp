#include "kernels/transformer/state_sharding.hpp"

#include <array>
#include <stdexcept>

namespace scaletune::kernels {

namespace {

constexpr std::array<std::string_view, 4> kStageNames = {"replicated", "zero1", "zero2", "zero3"};
constexpr std::string_view kProportionalSuffix = ":memory_proportional";

}  // namespace

std::string_view stage_name(ZeroStage stage) {
  return kStageNames.at(static_cast<std::size_t>(stage));
}

StateSharding parse_state_sharding(std::string_view text) {
  if (text == "auto") return {ZeroStage::zero3, true, true};
  StateSharding sharding;
  std::string_view stage = text;
  if (stage.ends_with(kProportionalSuffix)) {
    stage.remove_suffix(kProportionalSuffix.size());
    sharding.memory_proportional = true;
  }
  for (std::size_t i = 0; i < kStageNames.size(); ++i)
    if (stage == kStageNames[i] && !(i == 0 && sharding.memory_proportional)) {
      sharding.stage = static_cast<ZeroStage>(i);
      return sharding;
    }
  throw std::invalid_argument("state sharding '" + std::string(text) +
                              "' is not replicated, zero1, zero2 or zero3 (optionally with "
                              ":memory_proportional) or auto");
}

std::string state_sharding_text(const StateSharding& sharding) {
  std::string text(stage_name(sharding.stage));
  if (sharding.memory_proportional && sharding.stage != ZeroStage::replicated)
    text += kProportionalSuffix;
  return text;
}

}  // namespace scaletune::kernels
