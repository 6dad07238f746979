#pragma once
// Where the step time of a configuration goes: compute, communication, waiting, other.

#include <string_view>

#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// What a phase spends its time on.
enum class PhaseClass {
  compute,        ///< everything not named below (fwd, bwd, emb_fwd, optimizer, ...)
  communication,  ///< a collective: allreduce*, alltoall*, allgather*, reduce_scatter*,
                  ///< broadcast*, sendrecv*
  wait,           ///< "wait" or "wait*": waiting at a collective for slower ranks (imbalance)
};

/// The class of a phase name (case-sensitive prefixes, as listed on PhaseClass).
PhaseClass classify_phase(std::string_view phase_name);

/// Fractions of the step time; compute + communication + wait + other = 1.
struct PhaseShares {
  double compute = 0;
  double communication = 0;
  double wait = 0;
  double other = 0;  ///< step time no phase covers (1 minus the three above)
};

/// Shares of a configuration's step time. With t[r,i,c] the summed time of rank r's class-c
/// phases in iteration i and T[i] the step time of iteration i (the slowest rank's):
///   share_c = mean over iterations i of ( mean over ranks r of t[r,i,c] ) / T[i],
///   other   = 1 - share_compute - share_communication - share_wait.
/// Returns NaN shares when the configuration has no iterations or no phases.
/// Throws std::invalid_argument naming the file, configuration and dataset when
/// rank_phase_time is not [ranks, iterations, phases] or a step time is not positive.
PhaseShares phase_shares(const results::ConfigResult& config, std::string_view file_path);

}  // namespace scaletune::autotune
