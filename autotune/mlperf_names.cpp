#include "autotune/mlperf_names.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace scaletune::autotune {
namespace {

std::string upper(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(), [](unsigned char ch) { return std::toupper(ch); });
  return out;
}

std::string trim(std::string text) {
  const auto blank = [](unsigned char ch) { return std::isspace(ch) != 0; };
  while (!text.empty() && blank(text.back())) text.pop_back();
  const auto first = std::ranges::find_if_not(text, blank);
  return std::string(first, text.end());
}

bool remove_suffix(std::string& text, std::string_view suffix) {
  if (!text.ends_with(suffix)) return false;
  text.erase(text.size() - suffix.size());
  text = trim(std::move(text));
  return true;
}

/// Drops "(...W)" at the end: a power rating.
void drop_power_rating(std::string& text) {
  if (!text.ends_with("W)")) return;
  const std::size_t open = text.rfind('(');
  if (open != std::string::npos) text = trim(text.substr(0, open));
}

/// One model under two names in the MLPerf results: (name, the name used for both).
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kAliases = {{
    {"TPU", "TPU-V4"},                // v1.0's Google TPU systems are tpu-v4 (family TPU-v4)
    {"A30-PCIE-24GB", "A30"},         // the A30 is made only as a 24 GB PCIe card
    {"H100-PCIE", "H100-PCIE-80GB"},  // the H100 PCIe is made only with 80 GB
    {"GAUDI HL-205", "GAUDI"},        // HL-205 is the Gaudi mezzanine card
}};

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at))
    text.replace(at, from.size(), to);
}

}  // namespace

std::string canonical_accelerator(std::string_view accelerator) {
  std::string name = trim(upper(accelerator));
  for (std::string_view vendor : {"NVIDIA ", "HABANA ", "INTEL "})
    if (name.starts_with(vendor)) name = trim(name.substr(vendor.size()));
  drop_power_rating(name);
  remove_suffix(name, " CTS");
  replace_all(name, "SXM4", "SXM");
  replace_all(name, "SXM5", "SXM");
  for (const auto& [alias, model] : kAliases)
    if (name == alias) return std::string(model);
  return name;
}

std::string software_stack(std::string_view framework) {
  const std::string text = upper(framework);
  if (text.find("MXNET") != std::string::npos) return "mxnet";
  static constexpr std::array<std::string_view, 5> kOthers = {"PYTORCH", "TENSORFLOW", "MINDSPORE",
                                                              "PADDLEPADDLE", "JAX"};
  std::size_t first = std::string::npos;
  std::string_view found;
  for (std::string_view name : kOthers)
    if (const std::size_t at = text.find(name); at < first) {
      first = at;
      found = name;
    }
  if (found.empty()) return "unspecified";
  std::string lower(found);
  std::ranges::transform(lower, lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return lower;
}

}  // namespace scaletune::autotune
