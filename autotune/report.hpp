#pragma once
// What `scaletune inspect` and `scaletune autotune` print and write.

#include <span>
#include <string>

#include "autotune/metrics.hpp"
#include "autotune/recommend.hpp"
#include "autotune/series_fits.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// The autotune report in Markdown: a title with the job name (from the stored job file, else
/// the file name) and provenance (scaletune version, git sha, creation time, world size, BLAS);
/// the configuration table (id, ranks, global and per-rank batch, status, throughput samples/s,
/// step time median and p95 in ms, scaling efficiency, compute/communication/wait/other shares
/// in %); the configurations that did not finish, with status and error; the scaling fits
/// (model, parameters, RMSE, MAPE, points, prediction at twice the largest measured rank
/// count, USL peak); and the recommendation. `metrics` from compute_metrics(results), `fits`
/// from fit_series(metrics).
std::string markdown_report(const results::ResultSet& results,
                            std::span<const ConfigMetrics> metrics,
                            std::span<const SeriesFits> fits, const Recommendation& recommendation);

/// The console table of `scaletune inspect`: the file and its configuration count, the
/// configuration table of markdown_report() with a units row, then one line per configuration
/// that did not finish ("<id>: <status>: <error>").
std::string inspect_table(const results::ResultSet& results,
                          std::span<const ConfigMetrics> metrics);

/// The lines `scaletune autotune` prints: the objective, the recommended id (or "none"), and
/// the sentence saying why.
std::string recommendation_text(const Recommendation& recommendation);

}  // namespace scaletune::autotune
