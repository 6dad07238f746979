#include "hetero_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "memory_budget.hpp"

namespace scaletune::core {

namespace {

constexpr double kTieTolerance = 1e-9;  // relative: step times closer than this are equal

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument("heterogeneous plan: " + message);
}

bool positive(double value) {
  return std::isfinite(value) && value > 0.0;
}

void validate_profile(const RankProfile& profile, const std::string& who) {
  const auto& sizes = profile.micro_batches;
  require(!sizes.empty() && sizes.size() == profile.time_s.size(),
          who + "micro_batches and time_s must have the same length >= 1, got " +
              std::to_string(sizes.size()) + " and " + std::to_string(profile.time_s.size()));
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    require(sizes[k] >= 1 && (k == 0 || sizes[k] > sizes[k - 1]),
            who + "micro_batches must be >= 1 and strictly increasing, got " +
                std::to_string(sizes[k]) + " at index " + std::to_string(k));
    require(positive(profile.time_s[k]), who + "time_s must be finite and > 0 s, got " +
                                             std::to_string(profile.time_s[k]) + " at index " +
                                             std::to_string(k));
  }
  require(std::isfinite(profile.accumulation_overhead_s) && profile.accumulation_overhead_s >= 0,
          who + "accumulation_overhead_s must be finite and >= 0 s, got " +
              std::to_string(profile.accumulation_overhead_s));
}

void validate_model(const MemoryModel& model) {
  const bool ok = std::isfinite(model.state_bytes) && std::isfinite(model.replicated_bytes) &&
                  std::isfinite(model.activation_bytes_per_sample) && model.state_bytes >= 0.0 &&
                  model.replicated_bytes >= 0.0 && model.activation_bytes_per_sample >= 0.0;
  require(ok,
          "memory model: state_bytes, replicated_bytes and activation_bytes_per_sample must "
          "be finite and >= 0");
}

/// Bytes a rank holds besides its state shard: replicated + activation * micro_batch.
double fixed_bytes(const MemoryModel& model, int micro_batch) {
  return model.replicated_bytes + model.activation_bytes_per_sample * micro_batch;
}

/// One rank's time and memory room for micro-batches 1..B (index 0 unused).
struct RankTable {
  std::vector<double> time_s;        // t(m), s
  std::vector<double> max_fraction;  // largest shard fraction that fits (<= 1); < 0: m misfits
  double overhead_s = 0.0;           // added by each micro-batch after the first, s
};

RankTable make_table(const RankProfile& profile, const MemoryModel& model, int global_batch,
                     std::size_t rank) {
  RankTable table{std::vector<double>(global_batch + 1), std::vector<double>(global_batch + 1),
                  profile.accumulation_overhead_s};
  const auto capacity = static_cast<double>(profile.capacity_bytes);
  for (int m = 1; m <= global_batch; ++m) {
    table.time_s[m] = micro_batch_time_s(profile, m);
    require(positive(table.time_s[m]), "profile of rank " + std::to_string(rank) +
                                           ": time of micro-batch " + std::to_string(m) +
                                           " extrapolates to " + std::to_string(table.time_s[m]) +
                                           " s; measure sizes that cover it");
    const double room = capacity - fixed_bytes(model, m);
    table.max_fraction[m] =
        model.state_bytes > 0.0 ? std::min(1.0, room / model.state_bytes) : (room >= 0 ? 1 : -1);
  }
  return table;
}

/// Busy time of `accumulation` micro-batches of `micro_batch` samples, s; the one formula both
/// the candidate times and the feasibility checks use, so equal plans compare equal.
double busy_s(const RankTable& table, int micro_batch, int accumulation) {
  return accumulation * table.time_s[micro_batch] + (accumulation - 1) * table.overhead_s;
}

/// Whether `g` micro-batches are allowed: any count when `accumulation` is 0, else exactly it.
bool allowed_accumulation(int g, int accumulation) {
  return accumulation == 0 || g == accumulation;
}

/// Every busy time g * t_i(m) + (g - 1) * overhead_i with g * m <= B, g allowed and m fitting,
/// sorted and unique, s.
std::vector<double> candidate_times(const std::vector<RankTable>& tables, int global_batch,
                                    int accumulation) {
  std::vector<double> times;
  for (const auto& table : tables)
    for (int m = 1; m <= global_batch; ++m)
      if (table.max_fraction[m] >= 0)
        for (int g = 1; g * m <= global_batch; ++g)
          if (allowed_accumulation(g, accumulation)) times.push_back(busy_s(table, m, g));
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

/// For each batch b in 0..B: the fitting micro-batch dividing b (with an allowed accumulation)
/// that finishes within `limit_s` with the most memory room; 0 when none.
std::vector<int> micro_for_batch(const RankTable& table, int global_batch, double limit_s,
                                 int accumulation) {
  std::vector<int> best(global_batch + 1, 0);
  for (int m = 1; m <= global_batch; ++m) {
    if (table.max_fraction[m] < 0) continue;
    for (int g = 1; g * m <= global_batch && busy_s(table, m, g) <= limit_s; ++g) {
      if (!allowed_accumulation(g, accumulation)) continue;
      const int b = g * m;
      if (best[b] == 0 || table.max_fraction[m] > table.max_fraction[best[b]]) best[b] = m;
    }
  }
  return best;
}

/// Per-rank (batch, micro-batch) summing to B, each within `limit_s`, whose largest shard
/// fractions sum to >= 1; nullopt when none exists. Dynamic program over ranks and samples
/// maximising the sum of the largest shard fractions.
std::optional<std::vector<std::pair<int, int>>> assign(const std::vector<RankTable>& tables,
                                                       int global_batch, double limit_s,
                                                       int accumulation) {
  const std::size_t n = tables.size();
  std::vector<std::vector<int>> micro(n);
  std::vector<std::vector<int>> taken(n, std::vector<int>(global_batch + 1, 0));
  std::vector<double> room(global_batch + 1, -std::numeric_limits<double>::infinity());
  room[0] = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    micro[i] = micro_for_batch(tables[i], global_batch, limit_s, accumulation);
    std::vector<double> next(global_batch + 1, -std::numeric_limits<double>::infinity());
    for (int s = 0; s < global_batch; ++s) {
      if (std::isinf(room[s])) continue;
      for (int b = 1; s + b <= global_batch; ++b) {
        if (micro[i][b] == 0) continue;
        const double value = room[s] + tables[i].max_fraction[micro[i][b]];
        if (value > next[s + b]) {
          next[s + b] = value;
          taken[i][s + b] = b;
        }
      }
    }
    room = std::move(next);
  }
  if (!(room[global_batch] >= 1.0)) return std::nullopt;
  std::vector<std::pair<int, int>> choice(n);
  for (std::size_t i = n, s = global_batch; i-- > 0;) {
    const int b = taken[i][s];
    choice[i] = {b, micro[i][b]};
    s -= b;
  }
  return choice;
}

/// Gives each rank, in turn, the micro-batch dividing its batch with the least busy time (ties
/// to the larger) that keeps the step within `limit_s`, the accumulation allowed and the state
/// fitting.
void polish(const std::vector<RankTable>& tables, double limit_s, int accumulation,
            std::vector<std::pair<int, int>>& choice) {
  for (std::size_t i = 0; i < tables.size(); ++i) {
    double others = 0.0;
    for (std::size_t j = 0; j < tables.size(); ++j)
      if (j != i) others += tables[j].max_fraction[choice[j].second];
    const int batch = choice[i].first;
    int best = choice[i].second;
    for (int m = 1; m <= batch; ++m) {
      if (batch % m != 0 || tables[i].max_fraction[m] < 0 ||
          !allowed_accumulation(batch / m, accumulation))
        continue;
      const double busy = busy_s(tables[i], m, batch / m);
      const double best_busy = busy_s(tables[i], best, batch / best);
      const bool allowed = busy <= limit_s && others + tables[i].max_fraction[m] >= 1.0;
      if (allowed && (busy < best_busy || (busy == best_busy && m > best))) best = m;
    }
    choice[i].second = best;
  }
}

/// The HeteroPlan of per-rank (batch, micro-batch), with memory-proportional shard fractions.
HeteroPlan build_plan(const std::vector<RankProfile>& profiles,
                      const std::vector<RankTable>& tables, const MemoryModel& model,
                      const std::vector<std::pair<int, int>>& choice) {
  std::vector<std::int64_t> capacity;
  std::vector<int> micro;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    capacity.push_back(profiles[i].capacity_bytes);
    micro.push_back(choice[i].second);
  }
  const std::vector<double> fraction = memory_proportional_fractions(capacity, model, micro);
  HeteroPlan plan;
  plan.fits = true;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    RankPlan rank;
    rank.batch = choice[i].first;
    rank.micro_batch = choice[i].second;
    rank.accumulation = rank.batch / rank.micro_batch;
    rank.shard_fraction = fraction[i];
    rank.step_time_s = busy_s(tables[i], rank.micro_batch, rank.accumulation);
    rank.memory_bytes =
        std::llround(model.state_bytes * fraction[i] + fixed_bytes(model, rank.micro_batch));
    plan.step_time_s = std::max(plan.step_time_s, rank.step_time_s);
    plan.fits = plan.fits && rank.memory_bytes <= capacity[i];
    plan.ranks.push_back(rank);
  }
  return plan;
}

/// Index of the rank i maximising key(i).
template <typename Key>
std::size_t arg_max(const HeteroPlan& plan, Key key) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < plan.ranks.size(); ++i)
    if (key(i) > key(best)) best = i;
  return best;
}

std::string explain_fit(const HeteroPlan& plan, const std::vector<RankProfile>& profiles) {
  const std::size_t slow = arg_max(plan, [&](std::size_t i) { return plan.ranks[i].step_time_s; });
  const std::size_t full = arg_max(plan, [&](std::size_t i) {
    return static_cast<double>(plan.ranks[i].memory_bytes) /
           static_cast<double>(profiles[i].capacity_bytes);
  });
  const RankPlan& s = plan.ranks[slow];
  const RankPlan& f = plan.ranks[full];
  std::ostringstream why;
  why.precision(4);
  why << "Rank " << slow << " limits the step: " << s.accumulation << " x " << s.micro_batch
      << "-sample micro-batches take " << s.step_time_s << " s. Rank " << full
      << " uses the largest share of its memory: " << format_bytes(f.memory_bytes) << " of "
      << format_bytes(profiles[full].capacity_bytes) << " with micro-batch " << f.micro_batch
      << " and shard fraction " << f.shard_fraction << ".";
  return why.str();
}

/// The least over-capacity plan: micro-batch 1 everywhere, batches by speed at micro-batch 1.
HeteroPlan overflow_plan(const std::vector<RankProfile>& profiles,
                         const std::vector<RankTable>& tables, const MemoryModel& model,
                         int global_batch) {
  std::vector<double> speed;
  for (const auto& table : tables) speed.push_back(1.0 / table.time_s[1]);
  const std::vector<int> batch = proportional_split(global_batch, speed);
  std::vector<std::pair<int, int>> choice;
  for (const int b : batch) choice.emplace_back(b, 1);
  HeteroPlan plan = build_plan(profiles, tables, model, choice);
  const auto over = [&](std::size_t i) {
    return plan.ranks[i].memory_bytes - profiles[i].capacity_bytes;
  };
  const std::size_t worst = arg_max(plan, over);
  plan.why = "No plan fits: rank " + std::to_string(worst) + " is short by " +
             format_bytes(over(worst)) + " (" + std::to_string(over(worst)) +
             " bytes) even with micro-batch 1 and shard fraction " +
             std::to_string(plan.ranks[worst].shard_fraction) + ", needing " +
             format_bytes(plan.ranks[worst].memory_bytes) + " of " +
             format_bytes(profiles[worst].capacity_bytes) + ".";
  return plan;
}

std::vector<RankTable> checked_tables(const std::vector<RankProfile>& profiles,
                                      const MemoryModel& model, int global_batch) {
  require(!profiles.empty(), "no ranks to plan");
  require(global_batch >= static_cast<int>(profiles.size()),
          "global batch " + std::to_string(global_batch) + " must be >= the number of ranks " +
              std::to_string(profiles.size()));
  validate_model(model);
  std::vector<RankTable> tables;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    validate_profile(profiles[i], "profile of rank " + std::to_string(i) + ": ");
    require(profiles[i].capacity_bytes > 0,
            "profile of rank " + std::to_string(i) + ": capacity_bytes must be > 0");
    tables.push_back(make_table(profiles[i], model, global_batch, i));
  }
  return tables;
}

/// The fastest per-rank (batch, micro-batch) choice with `accumulation` (0: free) and its step
/// time limit, or nullopt when nothing fits: the smallest feasible candidate time (feasibility
/// only grows with the limit), found by binary search.
std::optional<std::pair<std::vector<std::pair<int, int>>, double>> solve(
    const std::vector<RankTable>& tables, int global_batch, int accumulation) {
  const std::vector<double> times = candidate_times(tables, global_batch, accumulation);
  if (times.empty() || !assign(tables, global_batch, times.back(), accumulation))
    return std::nullopt;
  std::size_t lo = 0;
  std::size_t hi = times.size() - 1;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (assign(tables, global_batch, times[mid], accumulation))
      hi = mid;
    else
      lo = mid + 1;
  }
  std::vector<std::pair<int, int>> choice = *assign(tables, global_batch, times[lo], accumulation);
  polish(tables, times[lo], accumulation, choice);
  return std::make_pair(std::move(choice), times[lo]);
}

HeteroPlan finished_plan(const std::vector<RankProfile>& profiles,
                         const std::vector<RankTable>& tables, const MemoryModel& model,
                         const std::vector<std::pair<int, int>>& choice) {
  HeteroPlan plan = build_plan(profiles, tables, model, choice);
  plan.why = explain_fit(plan, profiles);
  return plan;
}

}  // namespace

double micro_batch_time_s(const RankProfile& profile, int micro_batch) {
  validate_profile(profile, "micro-batch time: ");
  require(micro_batch >= 1, "micro-batch must be >= 1, got " + std::to_string(micro_batch));
  const auto& size = profile.micro_batches;
  const auto& time = profile.time_s;
  if (size.size() == 1) return time[0] * micro_batch / size[0];
  // The segment [lo, hi] whose upper end is the first measured size >= micro_batch, clamped
  // to the first and last segments (which then extrapolate).
  const auto hi = static_cast<std::size_t>(
      std::lower_bound(size.begin() + 1, size.end() - 1, micro_batch) - size.begin());
  const std::size_t lo = hi - 1;
  const double slope = (time[hi] - time[lo]) / (size[hi] - size[lo]);
  return time[lo] + slope * (micro_batch - size[lo]);
}

double step_time_s(const RankProfile& profile, int micro_batch, int accumulation) {
  require(accumulation >= 1, "accumulation must be >= 1, got " + std::to_string(accumulation));
  const double t = micro_batch_time_s(profile, micro_batch);
  return accumulation * t + (accumulation - 1) * profile.accumulation_overhead_s;
}

std::vector<double> memory_proportional_fractions(const std::vector<std::int64_t>& capacity,
                                                  const MemoryModel& model,
                                                  const std::vector<int>& micro_batch) {
  const std::size_t n = capacity.size();
  require(n > 0 && micro_batch.size() == n,
          "shard fractions need one capacity and one micro-batch per rank, got " +
              std::to_string(n) + " and " + std::to_string(micro_batch.size()));
  validate_model(model);
  for (std::size_t i = 0; i < n; ++i)
    require(capacity[i] > 0 && micro_batch[i] >= 1,
            "rank " + std::to_string(i) + ": capacity_bytes must be > 0 and micro-batch >= 1");
  if (model.state_bytes == 0.0) return std::vector<double>(n, 1.0 / static_cast<double>(n));
  std::vector<double> fraction(n, 0.0);
  std::vector<bool> active(n, true);
  for (bool clamped = true; clamped;) {
    double fixed_sum = 0.0;
    double capacity_sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!active[i]) continue;
      fixed_sum += fixed_bytes(model, micro_batch[i]);
      capacity_sum += static_cast<double>(capacity[i]);
    }
    const double used = (model.state_bytes + fixed_sum) / capacity_sum;
    clamped = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (!active[i]) continue;
      fraction[i] = (used * static_cast<double>(capacity[i]) - fixed_bytes(model, micro_batch[i])) /
                    model.state_bytes;
      if (fraction[i] >= 0.0) continue;
      fraction[i] = 0.0;
      active[i] = false;
      clamped = true;
    }
  }
  return fraction;
}

std::vector<int> proportional_split(int global_batch, const std::vector<double>& speed) {
  const std::size_t n = speed.size();
  require(n > 0 && static_cast<std::size_t>(std::max(global_batch, 0)) >= n,
          "global batch " + std::to_string(global_batch) + " must be >= the number of ranks " +
              std::to_string(n) + " (>= 1)");
  for (std::size_t i = 0; i < n; ++i)
    require(positive(speed[i]), "speed of rank " + std::to_string(i) +
                                    " must be finite and > 0 samples/s, got " +
                                    std::to_string(speed[i]));
  const double total = std::accumulate(speed.begin(), speed.end(), 0.0);
  std::vector<double> quota(n);
  std::vector<int> share(n);
  int given = 0;
  for (std::size_t i = 0; i < n; ++i) {
    quota[i] = global_batch * speed[i] / total;
    share[i] = static_cast<int>(std::floor(quota[i]));
    given += share[i];
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return quota[a] - share[a] > quota[b] - share[b];
  });
  for (std::size_t k = 0; given < global_batch; ++k, ++given) ++share[order[k % n]];
  for (std::size_t i = 0; i < n; ++i) {
    if (share[i] > 0) continue;
    std::size_t donor = n;
    for (std::size_t j = 0; j < n; ++j)
      if (share[j] > 1 && (donor == n || share[j] - quota[j] > share[donor] - quota[donor]))
        donor = j;
    --share[donor];
    share[i] = 1;
  }
  return share;
}

HeteroPlan plan_heterogeneous(const std::vector<RankProfile>& profiles, const MemoryModel& model,
                              int global_batch) {
  const std::vector<RankTable> tables = checked_tables(profiles, model, global_batch);
  const auto best = solve(tables, global_batch, 0);
  if (!best) return overflow_plan(profiles, tables, model, global_batch);
  return finished_plan(profiles, tables, model, best->first);
}

HeteroPlan plan_heterogeneous_lockstep(const std::vector<RankProfile>& profiles,
                                       const MemoryModel& model, int global_batch) {
  const std::vector<RankTable> tables = checked_tables(profiles, model, global_batch);
  const int ranks = static_cast<int>(profiles.size());
  std::optional<std::pair<std::vector<std::pair<int, int>>, double>> best;
  for (int g = 1; g * ranks <= global_batch; ++g) {
    if (global_batch % g != 0) continue;
    auto found = solve(tables, global_batch, g);
    // A larger G must be better by more than rounding: at constant speed every G takes the
    // same time, up to the last bits of G x t(m), and the smaller G has the larger micro-batches.
    if (found && (!best || found->second < best->second * (1 - kTieTolerance)))
      best = std::move(found);
  }
  if (!best) {
    HeteroPlan plan = plan_heterogeneous(profiles, model, global_batch);
    plan.why = "No plan with the same number of micro-batches on every rank fits. " + plan.why;
    return plan;
  }
  HeteroPlan plan = finished_plan(profiles, tables, model, best->first);
  plan.why = "Every rank runs " + std::to_string(plan.ranks.front().accumulation) +
             " micro-batches (lockstep gradient exchange). " + plan.why;
  return plan;
}

}  // namespace scaletune::core
