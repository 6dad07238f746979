#pragma once
// Model files of `scaletune fit` (HDF5, schema_version 1, the root attributes of a result
// file): the op models and collective models fitted on profiles and imported logs, one group
// each, read back by `scaletune predict`. Names, types and units in results/README.md ("Model
// files"). No MPI.

#include <string>
#include <vector>

#include "harness/results/result_types.hpp"

namespace scaletune::results {

/// /op_models/<op>:<dtype>:<device_kind>: one op kind's fitted model (autotune/op_model.hpp).
struct OpModelRecord {
  std::string op, dtype, device_kind;
  std::string form;                           ///< "affine", "power_law" or "power_law_rbf"
  std::vector<std::string> inputs;            ///< [inputs] what the weights multiply
  std::vector<double> weights;                ///< [inputs]
  std::vector<std::string> range_names;       ///< [ranges] shape fields, flops, bytes
  std::vector<double> range_low, range_high;  ///< [ranges] what the fitted points spanned
  int points = 0;
  double cv_mape = 0;        ///< cross-validated mean absolute percentage error, fraction
  double other_cv_mape = 0;  ///< the best other form's
  std::string other_form;    ///< that form; "" in files written before it was stored
  /// power_law_rbf only (autotune/rbf_residual.hpp), else empty and 0: [d] offset and scale of
  /// the inputs but "1" (d = inputs - 1), [n * d] centers, [n] dual weights, the kernel width
  std::vector<double> kernel_offset, kernel_scale, kernel_centers, kernel_alpha;
  double kernel_gamma = 0;
};

/// /collective_models/<op>:<ranks> (a curve at one rank count) or <op>:ranks (a model across
/// rank counts): autotune/collective_curve.hpp and rank_count_model.hpp.
struct CollectiveModelRecord {
  std::string op;
  std::string form;  ///< "curve" or "rank_count"
  int ranks = 0;     ///< the curve's rank count; 0 for a rank_count model
  int nodes = 1;     ///< the nodes the curve's rows ran on (1 also when unknown); 1 for rank_count
  /// curve: bus_factor, floor_us, peak_gbps, slope, mid_log2, fit_rms_log; rank_count: alpha0,
  /// alpha1, beta0, beta1
  std::vector<double> parameters;
  std::vector<double> log2_sizes, residuals;  ///< the curve's correction; empty otherwise
  int points = 0;
  /// curve: MAPE on the sizes left out when fitted on every other size; rank_count: MAPE of
  /// each rank count left out in turn (0 with fewer than 3 rank counts); fraction
  double held_out_mape = 0;
  double min_bytes = 0, max_bytes = 0;  ///< the sizes fitted
  int min_ranks = 0, max_ranks = 0;     ///< the rank counts fitted
  std::string sources;                  ///< where the rows came from (their source fields)
};

/// A whole model file.
struct ModelSet {
  Provenance provenance;
  std::vector<std::string> inputs;  ///< the files it was fitted on
  std::vector<OpModelRecord> ops;
  std::vector<CollectiveModelRecord> collectives;
};

/// Creates `path` (never over an existing file) with `models`. Throws ResultError naming the
/// path when it exists or cannot be written.
void write_model_file(const std::string& path, const ModelSet& models);

/// Whether `path` is a model file (a scaletune file with /op_models and /collective_models).
/// Throws ResultError naming the path when it is missing or not a scaletune HDF5 file,
/// DamagedFileError when opening it crashed or hung a child process (detail/child_probe.hpp).
bool is_model_file(const std::string& path);

/// Reads a model file. Throws ResultError naming the path and the group or attribute when it is
/// missing, not HDF5, not schema_version 1, has no /op_models and /collective_models (not a
/// model file: "fitted by scaletune fit"), or a model lacks a field; DamagedFileError when
/// reading it in a child process first crashed or hung there (detail/child_probe.hpp).
ModelSet read_model_file(const std::string& path);

}  // namespace scaletune::results
