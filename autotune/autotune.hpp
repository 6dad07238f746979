#pragma once
// The autotuner in one include: load a result file, compute metrics, fit scaling laws per
// series, recommend a configuration and report:
//
//   const results::ResultSet rs = load_results(path);
//   const auto metrics = compute_metrics(rs);
//   const auto fits = fit_series(metrics);
//   const auto choice = recommend(metrics, objective_from_string("efficiency_floor"));
//   std::string md = markdown_report(rs, metrics, fits, choice);

#include "autotune/load.hpp"
#include "autotune/metrics.hpp"
#include "autotune/phase_shares.hpp"
#include "autotune/recommend.hpp"
#include "autotune/report.hpp"
#include "autotune/scaling_model.hpp"
#include "autotune/series_fits.hpp"
