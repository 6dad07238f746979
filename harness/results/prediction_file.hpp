#pragma once
// Prediction files of `scaletune predict --out` (HDF5, schema_version 1, the root attributes of
// a result file): /predictions, one row per predicted configuration, with the configuration as
// `run` would record it and the composed step's spans. Names, types and units in
// results/README.md ("Prediction files"). No MPI.

#include <string>
#include <vector>

#include "harness/results/result_types.hpp"
#include "harness/trace/timeline_span.hpp"

namespace scaletune::results {

/// One row of /predictions: a configuration's predicted step.
struct PredictionRow {
  std::string config;  ///< the id `scaletune run` gives it
  int ranks = 0;
  double step_time = 0;                ///< s, the latest rank's end
  double throughput = 0;               ///< samples/s = global_batch / step_time
  double compute_s = 0;                ///< the critical rank's compute, s
  double exposed_communication_s = 0;  ///< the critical rank's, s
  double waiting_s = 0;                ///< the critical rank's wait for the others, s
  int critical_rank = 0;
  double measured_step_time = 0;  ///< median measured (--compare), s; NaN when not measured
  /// The composed step's spans (kind op or collective, iteration 0), every rank; stored as
  /// /predictions/timeline/<config>
  std::vector<trace::TimelineSpan> timeline;
  /// The configuration as `run` records it (its settings and the workload's attributes, no
  /// per-iteration data), status ok, step_time_median = step_time_p95 = step_time and
  /// throughput; stored as /predictions/configs/<config>. id empty in files written before
  /// these groups (read_prediction_file leaves it so).
  ConfigResult described;
  /// What the prediction rests on: one line per collective model it used (the files it was
  /// fitted on, and the rank counts it extrapolates to) and per op kind that extrapolates;
  /// stored as /predictions/basis [configs], the lines joined by newlines.
  std::vector<std::string> basis;
};

/// Creates `path` (never over an existing file) with the root attributes and /predictions.
/// Throws ResultError naming the path when it exists or cannot be written, and naming
/// /predictions/configs/<id> when a row's described configuration breaks the result-file rules
/// (results/README.md) or its id is not the row's.
void write_prediction_file(const std::string& path, const Provenance& provenance,
                           const std::vector<PredictionRow>& rows);
/// Whether `path` holds /predictions (a file of scaletune predict --out). Throws ResultError
/// naming the path when it is missing or not HDF5, DamagedFileError when opening it crashed or
/// hung a child process (detail/child_probe.hpp).
bool is_prediction_file(const std::string& path);
/// /predictions of `path`, with each row's timeline, described configuration and basis where
/// they are stored. Throws ResultError naming the path when it is missing, not a result file or
/// has no /predictions, naming the dataset whose length differs from the configs', and naming a
/// timeline or configuration group as the result-file reader does; DamagedFileError as
/// is_prediction_file.
std::vector<PredictionRow> read_prediction_file(const std::string& path);

}  // namespace scaletune::results
