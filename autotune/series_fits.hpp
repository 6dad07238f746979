#pragma once
// Scaling-law fits for each series of configurations (one workload at one global batch:
// the same settings at different rank counts, with any batch split).

#include <span>
#include <string>
#include <vector>

#include "autotune/metrics.hpp"
#include "autotune/scaling_model.hpp"

namespace scaletune::autotune {

/// The fits of one series.
struct SeriesFits {
  std::string series;                ///< ConfigMetrics::series
  int max_ranks = 0;                 ///< the largest rank count measured ok in the series
  std::vector<FitAttempt> attempts;  ///< Amdahl, then USL
};

/// Fits Amdahl and the USL to throughput against ranks of the ok configurations of each series,
/// series in order of first appearance; series without an ok configuration are left out.
/// Configurations that differ only in batch split give several points at one rank count, all
/// fitted by least squares on relative errors (Residual::relative: each configuration counts by
/// its relative error, so a series from 8 to 4,000 devices is not fitted to its largest
/// alone); the laws need distinct rank counts (fit_amdahl, fit_usl).
std::vector<SeriesFits> fit_series(std::span<const ConfigMetrics> metrics);

}  // namespace scaletune::autotune
