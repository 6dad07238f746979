#pragma once
// Reading MLPerf Training ResNet-50 results (a CSV file, one row per submission; columns in
// shared/data/README.md) into configurations for `scaletune import mlperf`.

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// True for a configuration imported from MLPerf results (its workload starts with "mlperf:").
bool is_mlperf_config(const results::ConfigResult& config);

/// The configurations of one MLPerf CSV file.
struct MlperfImport {
  std::vector<results::ConfigResult> configs;  ///< one per kept row, in file order
  std::size_t duplicates_dropped = 0;  ///< rows whose logs repeat an earlier round's (dropped)
};

/// The columns a file must have (by name, in any order; others are ignored).
const std::vector<std::string>& mlperf_required_columns();

/// The rows of the MLPerf CSV text `in` as configurations; `path` names the file in errors and
/// in each configuration's `source` attribute (its file name only). Line 1 is the header; blank
/// lines are skipped. A row with a non-empty logs_identical_to_round is dropped and counted.
/// Each kept row becomes (results/README.md "Imported MLPerf results"): id
/// "mlperf-ROUND-SUBMITTER-SYSTEM" with characters outside [A-Za-z0-9._-] replaced by '_' and
/// "-2", "-3", ... appended on collisions; workload "mlperf:resnet50"; ranks = total_accelerators;
/// global_batch = global_batch_size (where the runs of a row used different ones, "816|1024",
/// the first, and the text attribute global_batch_size_runs keeps the field); status ok; throughput
/// = approx_throughput_img_s (samples/s); batch_split "even" (MLPerf closed ResNet-50 is
/// synchronous data parallel), precision "unknown" (the file does not say), no per_rank_batch and
/// no per-iteration data; number attributes time_to_train_minutes (min), epochs (epochs_median),
/// nodes, and accelerators_per_node where the column exists and the row has a value; text
/// attributes accelerator, host_processor, framework, round, submitter, system, source, and
/// accelerator_model (canonical_accelerator()) and software_stack (software_stack()). Throws
/// std::invalid_argument "path:1: missing column 'X' ..." for a header without a required column,
/// "path:LINE: expected N fields as in the header, got M" for a short or long row, "path:LINE:
/// column 'X': expected a number, got 'abc'" for a non-numeric or empty numeric value (ranks and
/// global batch must be whole numbers >= 1; throughput, time to train and epochs > 0), "path: no
/// header line" for an empty file, and "path: no row to import (...)" when no row is kept.
MlperfImport parse_mlperf_csv(std::istream& in, const std::string& path);

/// parse_mlperf_csv() of the file `path`; throws std::invalid_argument "path: cannot read the
/// file" when it cannot be opened.
MlperfImport read_mlperf_csv(const std::string& path);

}  // namespace scaletune::autotune
