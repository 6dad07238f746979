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
/// the configuration table (id, ranks, global batch, batch split, per-rank batch, status,
/// throughput samples/s, step time median and p95 in ms, scaling efficiency,
/// compute/communication/wait/other shares in %); the configurations that did not finish, with
/// status and error; the scaling fits (model, parameters, RMSE, MAPE, points, prediction at
/// twice the largest measured rank count, USL peak); and the recommendation ("Recommended:
/// `<id>`. <sentence>", or "No recommendation: <sentence>."). Configurations appear by series
/// (in order of first appearance in `metrics`), then ranks, then global batch, then id.
/// `metrics` from compute_metrics(results), `fits` from fit_series(metrics).
std::string markdown_report(const results::ResultSet& results,
                            std::span<const ConfigMetrics> metrics,
                            std::span<const SeriesFits> fits, const Recommendation& recommendation);

/// The console table of `scaletune inspect`: a line with the file and what it holds ("<path>:
/// <n> configurations", then ", <k> collective benchmark configurations" and ", <m>
/// /collectives rows" where there are any), the configuration table of markdown_report() (same
/// columns and order) with a units row when `metrics` is not empty, one line per configuration
/// that did not finish ("<id> (<n> ranks): <status>: <error>"), then one line per configuration
/// of the collective benchmark ("collective benchmark <id> (<n> ranks): <status>[: <error>]").
/// The /collectives rows themselves: collectives_table().
std::string inspect_table(const results::ResultSet& results,
                          std::span<const ConfigMetrics> metrics);

/// The lines `scaletune autotune` prints: "objective: ...", then "recommended: <id>" and
/// "why: <sentence>", or, when nothing qualifies, "recommended: none" and
/// "no recommendation: <sentence>" (e.g. "no configuration finished ok (2 failed, 1 skipped)").
std::string recommendation_text(const Recommendation& recommendation);

}  // namespace scaletune::autotune
