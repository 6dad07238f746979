#include "autotune/accelerators.hpp"

#include <algorithm>
#include <cctype>

#include "autotune/mlperf_import.hpp"

namespace scaletune::autotune {
namespace {

bool is_index(std::string_view text) {
  return !text.empty() &&
         std::ranges::all_of(text, [](unsigned char c) { return std::isdigit(c); });
}

/// True for "cuda:0", "host-core:3": a kind, a colon and an index.
bool is_indexed_label(std::string_view token) {
  const std::size_t colon = token.rfind(':');
  return colon != std::string_view::npos && colon > 0 && is_index(token.substr(colon + 1));
}

std::vector<AcceleratorUse> mlperf_accelerators(const results::ConfigResult& config) {
  const auto model = config.text_attrs.find("accelerator_model");
  const auto raw = config.text_attrs.find("accelerator");
  if (model == config.text_attrs.end() || raw == config.text_attrs.end()) return {};
  return {AcceleratorUse{{model->second, raw->second}, config.ranks}};
}

/// The devices of a sweep configuration's ranks: its launch record's, else (files from before
/// launch records) the first `ranks` rows of /system, right when it ran on the world's first
/// ranks of that launch; empty when neither names them.
std::vector<std::string> rank_devices(const results::ConfigResult& config,
                                      const std::optional<results::SystemInfo>& system) {
  std::vector<std::string> devices;
  if (config.launch) {
    for (const results::RankInfo& r : config.launch->ranks) devices.push_back(r.device);
  } else if (system && config.ranks >= 1 &&
             system->ranks.size() >= static_cast<std::size_t>(config.ranks)) {
    for (int r = 0; r < config.ranks; ++r) devices.push_back(system->ranks[r].device);
  }
  return devices;
}

std::vector<AcceleratorUse> sweep_accelerators(const results::ConfigResult& config,
                                               const std::optional<results::SystemInfo>& system) {
  std::vector<AcceleratorUse> uses;
  for (const std::string& device : rank_devices(config, system)) {
    const std::string model = device_model(device);
    auto it = std::ranges::find_if(uses, [&](const auto& u) { return u.names.front() == model; });
    if (it == uses.end()) it = uses.insert(uses.end(), AcceleratorUse{{model}, 0});
    ++it->devices;
  }
  return uses;
}

}  // namespace

std::string device_model(std::string_view device) {
  const std::size_t space = device.find(' ');
  const std::string_view first = device.substr(0, space);
  if (!is_indexed_label(first)) return std::string(device);
  if (space != std::string_view::npos) return std::string(device.substr(space + 1));
  return std::string(first.substr(0, first.rfind(':')));
}

std::vector<AcceleratorUse> accelerators_of(const results::ConfigResult& config,
                                            const std::optional<results::SystemInfo>& system) {
  if (is_mlperf_config(config)) return mlperf_accelerators(config);
  return sweep_accelerators(config, system);
}

std::string accelerator_label(std::span<const AcceleratorUse> uses) {
  if (uses.empty()) return "unknown";
  std::string label;
  for (const AcceleratorUse& u : uses) label += (label.empty() ? "" : " + ") + u.names.front();
  return label;
}

}  // namespace scaletune::autotune
