#pragma once
// Canonical names for MLPerf submissions, so that one accelerator or one software stack spelled
// several ways by different submitters ("NVIDIA A100-SXM4-80GB (400W)", "A100-SXM-80GB") forms
// one group for scaling efficiency, clustering and the time-to-train model.

#include <string>
#include <string_view>

namespace scaletune::autotune {

/// The accelerator model of an MLPerf `accelerator` field: a leading vendor ("NVIDIA ",
/// "Habana ", "Intel ": Habana Labs is Intel's, and its Gaudi2 is submitted under both) dropped, a
/// trailing power rating in parentheses ("(400W)") and a trailing " CTS" (custom thermal
/// solution) dropped, "SXM4"/"SXM5" read as "SXM" (the only SXM generation of A100 and of H100),
/// upper case, blanks trimmed; then the names of one model spelled two ways made one: "TPU" ->
/// "TPU-V4" (MLPerf v1.0's Google TPU systems are TPU v4), "A30-PCIE-24GB" -> "A30" (the only
/// A30), "H100-PCIE" -> "H100-PCIE-80GB" (the only H100 PCIe), "GAUDI HL-205" -> "GAUDI" (the
/// Gaudi card). "NVIDIA A100-SXM4-80GB (400W)" -> "A100-SXM-80GB",
/// "NVIDIA A100-PCIe-80GB" -> "A100-PCIE-80GB", "Habana Gaudi2" and "Intel Gaudi2" -> "GAUDI2".
/// Empty -> "".
std::string canonical_accelerator(std::string_view accelerator);

/// The framework family of an MLPerf `framework` field, lower case: "mxnet" when MXNet is named
/// (NVIDIA's ResNet-50 submissions list all their containers, "NGC MXNet 22.09, NGC PyTorch
/// 22.09, ...", and run MXNet), else the first named of "pytorch", "tensorflow", "mindspore",
/// "paddlepaddle", "jax"; "unspecified" when none is named ("CUDA 12.0", "NGC MLPerf Training
/// v3.1", ""). Versions are left out: one accelerator and framework across container releases is
/// one stack, so its scaling is measured against its smallest configuration in any round.
std::string software_stack(std::string_view framework);

}  // namespace scaletune::autotune
