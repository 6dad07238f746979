#pragma once
// Choosing one configuration under an objective, with a sentence that says why.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/metrics.hpp"

namespace scaletune::autotune {

/// What "best" means.
enum class Objective {
  /// The highest throughput among ok configurations with scaling efficiency >= a floor
  /// (default 0.7; a series baseline has efficiency 1).
  efficiency_floor,
  throughput,  ///< the highest throughput
  efficiency,  ///< the highest throughput per rank
};

inline constexpr double kDefaultEfficiencyFloor = 0.7;

/// "efficiency_floor", "throughput", "efficiency".
const char* to_string(Objective objective);

/// Inverse of to_string. Throws std::invalid_argument naming the text and listing the valid
/// names for anything else.
Objective objective_from_string(std::string_view name);

/// The chosen configuration and why.
struct Recommendation {
  Objective objective = Objective::efficiency_floor;
  double efficiency_floor = kDefaultEfficiencyFloor;  ///< used by Objective::efficiency_floor
  std::optional<std::string> id;  ///< empty when nothing qualifies (e.g. no ok configuration)
  /// One sentence with the numbers behind the choice. When `id` is empty it says why there is
  /// none, in lower case and without a full stop, to follow "no recommendation: ", e.g. "no
  /// configuration finished ok (2 failed, 1 skipped)".
  std::string sentence;
};

/// Chooses among the ok configurations of `metrics` by `objective`. Ties go to fewer ranks,
/// then to the earlier configuration. Efficiencies within 1e-12 below the floor count as on it.
/// Never throws for lack of candidates: `id` is then empty and `sentence` says why. Without
/// an ok configuration that is "no configuration finished ok (N failed, M skipped)", failed
/// counting oom, timeout and error.
Recommendation recommend(std::span<const ConfigMetrics> metrics, Objective objective,
                         double efficiency_floor = kDefaultEfficiencyFloor);

/// The ok configurations of `metrics`, best first by `objective`: by throughput (per rank for
/// Objective::efficiency), those reaching the floor before the rest for
/// Objective::efficiency_floor; ties as recommend(), whose pick, when it makes one, comes first.
std::vector<const ConfigMetrics*> objective_order(
    std::span<const ConfigMetrics> metrics, Objective objective,
    double efficiency_floor = kDefaultEfficiencyFloor);

}  // namespace scaletune::autotune
