#pragma once
// The Pareto front of two costs, e.g. time-to-train against device-minutes.

#include <cstddef>
#include <vector>

namespace scaletune::autotune {

/// Indices of the points (a[i], b[i]) that no other point dominates when both a and b are
/// minimised; p dominates q when a_p <= a_q and b_p <= b_q with at least one strict.
/// a, b: [points], each in its own unit (e.g. time-to-train s, device-minutes).
/// Returns indices sorted by a ascending (then b, then index); exact duplicates of a front
/// point are all kept. Empty input gives an empty front.
/// Throws std::invalid_argument when a and b differ in length or a value is not finite.
std::vector<std::size_t> pareto_front(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace scaletune::autotune
