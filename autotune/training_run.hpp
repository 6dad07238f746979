#pragma once
// Imported MLPerf Training submissions as training runs: the inputs of the time-to-train model
// (ttt_model.hpp).

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// One MLPerf Training submission (one kept row of the MLPerf CSV, mlperf_import.hpp).
struct TrainingRun {
  std::string id;           ///< the configuration's id, "mlperf-v3.1-Dell-XE9680x8H100-SXM-80GB"
  std::string accelerator;  ///< canonical accelerator model, "H100-SXM-80GB"
  std::string stack;        ///< software stack, "mxnet", "pytorch", ...
  std::string round;        ///< MLPerf round, "v1.0" ... "v3.1"
  double devices = 0;       ///< total accelerators, >= 1
  double global_batch = 0;  ///< samples per step, >= 1
  double epochs = 0;        ///< epochs to the target accuracy (median over the runs), > 0
  double time_to_train_min = 0;  ///< the MLPerf score, minutes, > 0
  double throughput = 0;  ///< epochs x samples per epoch / run time, samples/s (incl. evaluation)
};

/// The runs of the imported MLPerf configurations among `configs` (is_mlperf_config(), status
/// ok), in order; other configurations are ignored. Reads ranks, global_batch, throughput,
/// number attributes epochs and time_to_train_minutes, text attributes accelerator_model,
/// software_stack and round. Throws std::invalid_argument "configuration 'ID': missing number
/// attribute 'epochs' (expected a positive number)" (likewise for the other attributes) when one
/// is absent or, for a number, not positive; and when ranks, global_batch or throughput is not
/// positive.
std::vector<TrainingRun> training_runs(std::span<const results::ConfigResult> configs);

}  // namespace scaletune::autotune
