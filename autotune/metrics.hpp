#pragma once
// Per-configuration metrics (DESIGN.md "Words").

namespace scaletune::autotune {

/// Scaling efficiency E(p) = X(p)·p0 / (p·X(p0)), where X is throughput (samples/s) at p ranks
/// and p0 the baseline rank count. 1 is linear scaling. Throws std::invalid_argument when a rank
/// count or the baseline throughput is not positive.
double scaling_efficiency(double throughput_p, int ranks_p, double throughput_p0, int ranks_p0);

}  // namespace scaletune::autotune
