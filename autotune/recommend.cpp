#include "autotune/recommend.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>
#include <vector>

#include "autotune/detail/format.hpp"

namespace scaletune::autotune {

namespace {

using detail::counted;
using detail::fixed;
using detail::grouped;
using Candidates = std::vector<const ConfigMetrics*>;

/// A choice: the configuration (empty when none qualifies) and the sentence saying why.
struct Choice {
  std::optional<std::string> id;
  std::string sentence;
};

constexpr std::array kObjectives = {Objective::efficiency_floor, Objective::throughput,
                                    Objective::efficiency};
constexpr double kFloorSlack = 1e-12;

std::string ranks_text(int ranks) {
  return counted(static_cast<std::size_t>(ranks), "rank");
}

std::string samples_per_s(double x) {
  return grouped(x) + " samples/s";
}

/// The candidate with the largest `key`; ties go to fewer ranks, then to the earlier one.
const ConfigMetrics* best_by(const Candidates& candidates, double ConfigMetrics::*key) {
  const ConfigMetrics* best = nullptr;
  for (const ConfigMetrics* m : candidates)
    if (!best || m->*key > best->*key || (m->*key == best->*key && m->ranks < best->ranks))
      best = m;
  return best;
}

Candidates ok_configurations(std::span<const ConfigMetrics> metrics) {
  Candidates ok;
  for (const ConfigMetrics& m : metrics)
    if (m.status == results::Status::ok) ok.push_back(&m);
  return ok;
}

/// "no configuration finished ok (2 failed, 1 skipped)": failed are oom, timeout and error.
std::string none_ok_sentence(std::span<const ConfigMetrics> metrics) {
  const auto skipped = static_cast<std::size_t>(
      std::ranges::count(metrics, results::Status::skipped, &ConfigMetrics::status));
  return "no configuration finished ok (" + std::to_string(metrics.size() - skipped) + " failed, " +
         std::to_string(skipped) + " skipped)";
}

Choice under_floor(const Candidates& ok, double floor) {
  Candidates above;
  for (const ConfigMetrics* m : ok)
    if (m->scaling_efficiency >= floor - kFloorSlack) above.push_back(m);
  const ConfigMetrics* fastest = best_by(ok, &ConfigMetrics::throughput);
  Choice r;
  if (above.empty()) {
    r.sentence = "no ok configuration reaches scaling efficiency " + fixed(floor, 2) +
                 "; the fastest, " + fastest->id + ", is " + fixed(fastest->scaling_efficiency, 2) +
                 " efficient";
    return r;
  }
  const ConfigMetrics* pick = best_by(above, &ConfigMetrics::throughput);
  r.id = pick->id;
  r.sentence = pick->id + " gives " + samples_per_s(pick->throughput) + " at scaling efficiency " +
               fixed(pick->scaling_efficiency, 2) + " (>= " + fixed(floor, 2) + ")";
  r.sentence +=
      fastest->throughput > pick->throughput
          ? "; " + fastest->id + " is faster (" + samples_per_s(fastest->throughput) +
                ") but only " + fixed(fastest->scaling_efficiency, 2) + " efficient."
          : ", the highest throughput of the " + counted(ok.size(), "ok configuration") + ".";
  return r;
}

Choice by_throughput(const Candidates& ok) {
  const ConfigMetrics* pick = best_by(ok, &ConfigMetrics::throughput);
  Candidates rest;
  for (const ConfigMetrics* m : ok)
    if (m != pick) rest.push_back(m);
  Choice r{pick->id, {}};
  r.sentence = pick->id + " gives the highest throughput, " + samples_per_s(pick->throughput) +
               " on " + ranks_text(pick->ranks) + " (scaling efficiency " +
               fixed(pick->scaling_efficiency, 2) + ")";
  const ConfigMetrics* next = best_by(rest, &ConfigMetrics::throughput);
  r.sentence += next ? "; the next, " + next->id + ", gives " + samples_per_s(next->throughput) +
                           " on " + ranks_text(next->ranks) + "."
                     : "; it is the only ok configuration.";
  return r;
}

Choice by_efficiency(const Candidates& ok) {
  const ConfigMetrics* pick = best_by(ok, &ConfigMetrics::throughput_per_rank);
  const ConfigMetrics* fastest = best_by(ok, &ConfigMetrics::throughput);
  Choice r{pick->id, {}};
  r.sentence = pick->id + " gives the highest throughput per rank, " +
               samples_per_s(pick->throughput_per_rank) + " per rank on " +
               ranks_text(pick->ranks) + " (" + samples_per_s(pick->throughput) + " in total)";
  r.sentence += fastest->throughput > pick->throughput
                    ? "; the fastest, " + fastest->id + ", gives " +
                          samples_per_s(fastest->throughput) + " but only " +
                          samples_per_s(fastest->throughput_per_rank) + " per rank."
                    : ", and it is also the fastest.";
  return r;
}

}  // namespace

const char* to_string(Objective objective) {
  switch (objective) {
    case Objective::efficiency_floor:
      return "efficiency_floor";
    case Objective::throughput:
      return "throughput";
    case Objective::efficiency:
      return "efficiency";
  }
  return "efficiency_floor";
}

Objective objective_from_string(std::string_view name) {
  for (Objective o : kObjectives)
    if (name == to_string(o)) return o;
  throw std::invalid_argument("unknown objective '" + std::string(name) +
                              "'; valid names are efficiency_floor, throughput, efficiency");
}

Recommendation recommend(std::span<const ConfigMetrics> metrics, Objective objective,
                         double efficiency_floor) {
  const Candidates ok = ok_configurations(metrics);
  Choice choice;
  if (ok.empty())
    choice = {std::nullopt, none_ok_sentence(metrics)};
  else if (objective == Objective::throughput)
    choice = by_throughput(ok);
  else if (objective == Objective::efficiency)
    choice = by_efficiency(ok);
  else
    choice = under_floor(ok, efficiency_floor);
  return {objective, efficiency_floor, std::move(choice.id), std::move(choice.sentence)};
}

std::vector<const ConfigMetrics*> objective_order(std::span<const ConfigMetrics> metrics,
                                                  Objective objective, double efficiency_floor) {
  Candidates order = ok_configurations(metrics);
  const auto qualifies = [&](const ConfigMetrics* m) {
    return objective != Objective::efficiency_floor ||
           m->scaling_efficiency >= efficiency_floor - kFloorSlack;
  };
  double ConfigMetrics::*key = objective == Objective::efficiency
                                   ? &ConfigMetrics::throughput_per_rank
                                   : &ConfigMetrics::throughput;
  std::ranges::stable_sort(order, [&](const ConfigMetrics* a, const ConfigMetrics* b) {
    if (qualifies(a) != qualifies(b)) return qualifies(a);
    if (a->*key != b->*key) return a->*key > b->*key;
    return a->ranks < b->ranks;
  });
  return order;
}

}  // namespace scaletune::autotune
