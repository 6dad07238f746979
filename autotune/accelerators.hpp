#pragma once
// Which accelerators a configuration ran on: the label that groups and describes it and the
// names a price table is searched by.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// The model of a /system device label: the index dropped. "cuda:0 NVIDIA H200" -> "NVIDIA H200",
/// "host-core:3" -> "host-core"; a label without an index is returned as it is.
std::string device_model(std::string_view device);

/// Devices of one accelerator model within a configuration.
struct AcceleratorUse {
  /// Names of the model, the one to show first, then others a price table may use: an MLPerf
  /// submission's {accelerator_model, accelerator} ("H100-SXM-80GB", "NVIDIA H100-SXM5-80GB");
  /// one of our sweeps' {device_model()}. Never empty.
  std::vector<std::string> names;
  int devices = 0;  ///< how many of the configuration's ranks hold one
};

/// The accelerators of `config`, by model in order of first use. An imported MLPerf submission
/// (workload "mlperf:...") uses `ranks` devices of its text attributes accelerator_model and
/// accelerator; a configuration of ours uses the devices of its launch record
/// (/configs/<id>/launch/ranks), or, in files from before launch records, ranks 0..ranks-1 of
/// `system`. Empty when the file does not say (neither a launch record nor enough /system
/// ranks, or an import without the attributes).
std::vector<AcceleratorUse> accelerators_of(const results::ConfigResult& config,
                                            const std::optional<results::SystemInfo>& system);

/// "H100-SXM-80GB" for one model, "NVIDIA H200 + host-core" for several (first names, in
/// order), "unknown" for none.
std::string accelerator_label(std::span<const AcceleratorUse> uses);

}  // namespace scaletune::autotune
