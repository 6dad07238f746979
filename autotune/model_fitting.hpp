#pragma once
// `scaletune fit`: op models from the /ops tables of profiles and collective models from the
// /collectives tables of profiles, benchmark runs and imported nccl-tests or OSU logs, each
// with the error it makes on what it was not fitted on.

#include <optional>
#include <string>
#include <vector>

#include "harness/results/model_file.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// One line of fit's report: a model, or a group of rows no model could be fitted to.
struct FitLine {
  std::string what;   ///< "gemm fp32 host", "all_reduce on 2 ranks", "all_reduce across ranks"
  int points = 0;     ///< rows fitted
  std::string model;  ///< "affine", "power_law", "curve", "rank_count"; empty when none
  /// Held-out MAPE (op models: cross-validated), fraction; none when nothing could be held out
  std::optional<double> error;
  std::string note;  ///< the other form's error, or why nothing was fitted
};

/// The fitted models and the report.
struct FitResult {
  results::ModelSet models;  ///< provenance left to the caller; inputs = the files' paths
  std::vector<FitLine> report;
};

/// Device kind of a /system/ranks or /ops device name: "cuda" for "cuda:...", else "host".
std::string device_kind_of(const std::string& device);

/// Fits every op kind and dtype per device kind with at least 4 timed shapes (op_model.hpp),
/// every collective op, rank count and node count (rows of unknown nodes counted as one node:
/// rows of one rank count measured on other nodes are other curves) with at least 4 sizes
/// (three-region curve: fitted on every other size, its error on the rest, then refitted on
/// all) and, for ops with a bus factor measured on at least 2 rank counts >= 2, the model
/// across rank counts (its error: each rank count left out in turn, when there are 3 or more),
/// fitted either on scaletune's own rows or on imported logs, never both (the family with more
/// rank counts; ties: the imported logs; the report's note names what was left out). Rows that
/// were wrong (wrong > 0), in place, or of no bytes or time are left out; where a curve's rows
/// come from both, the imported logs' are left out. Throws std::invalid_argument when the
/// inputs hold no /ops and no /collectives rows at all, or no model could be fitted.
FitResult fit_models(const std::vector<results::ResultSet>& inputs);

}  // namespace scaletune::autotune
