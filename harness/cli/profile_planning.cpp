#include "harness/cli/profile_planning.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <set>
#include <stdexcept>
#include <tuple>
#include <variant>

#include "harness/cli/args.hpp"
#include "harness/cli/result_reading.hpp"
#include "harness/core/dtype.hpp"
#include "harness/core/rank_context.hpp"
#include "harness/job/batch_split.hpp"
#include "harness/job/sweep.hpp"
#include "kernels/transformer/transformer.hpp"
#include "kernels/transformer/transformer_plan.hpp"

namespace scaletune::cli {

namespace {

/// The model keys a profile must share with the job, with their values in `o`.
std::vector<std::pair<std::string, int>> model_keys(const job::TransformerOptions& o) {
  return {{"layers", o.layers},   {"hidden", o.hidden}, {"heads", o.heads},
          {"seq_len", o.seq_len}, {"vocab", o.vocab},   {"ffn_mult", o.ffn_mult}};
}

/// The model a stored configuration timed, from its attributes (0 where one is missing).
job::TransformerOptions model_of(const results::ConfigResult& c) {
  const auto value = [&](const char* key) {
    const auto it = c.number_attrs.find(key);
    return it == c.number_attrs.end() ? 0 : static_cast<int>(it->second);
  };
  job::TransformerOptions o;
  o.layers = value("layers"), o.hidden = value("hidden"), o.heads = value("heads");
  o.seq_len = value("seq_len"), o.vocab = value("vocab"), o.ffn_mult = value("ffn_mult");
  return o;
}

/// Rank `r`'s row of `table`.
core::RankProfile rank_profile(const results::ProfileTable& table, std::size_t r) {
  const std::size_t sizes = table.micro_batches.size();
  core::RankProfile p;
  for (const std::int64_t m : table.micro_batches) p.micro_batches.push_back(static_cast<int>(m));
  const auto first = static_cast<long>(r * sizes), last = static_cast<long>((r + 1) * sizes);
  p.time_s.assign(table.time_s.begin() + first, table.time_s.begin() + last);
  p.spread.assign(table.spread.begin() + first, table.spread.begin() + last);
  p.capacity_bytes = table.capacity_bytes[r];
  return p;
}

/// Throws UsageError naming `source` unless `p` is a profile the planner takes: sizes >= 1 and
/// strictly increasing, times finite and > 0 (micro_batch_time_s's rules), spreads finite and
/// >= 0, capacity >= 0.
void expect_well_formed(const core::RankProfile& p, const std::string& source) {
  try {
    core::micro_batch_time_s(p, 1);
  } catch (const std::invalid_argument& e) {
    throw UsageError(source + ": " + e.what());
  }
  for (const double s : p.spread)
    if (!std::isfinite(s) || s < 0)
      throw UsageError(source + ": spread must be finite and >= 0, got " + std::to_string(s));
  if (p.capacity_bytes < 0)
    throw UsageError(source + ": capacity_bytes must be >= 0, got " +
                     std::to_string(p.capacity_bytes));
}

/// Keeps `candidate` for its device type unless a kept one reaches a larger micro-batch.
void keep(std::vector<StoredProfile>& types, StoredProfile candidate) {
  const auto same = std::ranges::find(types, candidate.device, &StoredProfile::device);
  if (same == types.end()) {
    types.push_back(std::move(candidate));
    return;
  }
  if (candidate.profile.micro_batches.back() > same->profile.micro_batches.back())
    *same = std::move(candidate);
}

/// Adds the ranks of every profiled configuration of `set` (read from `path`); true when it had
/// one.
bool add_profiles(const results::ResultSet& set, const std::string& path, StoredProfiles& out) {
  bool found = false;
  for (const results::ConfigResult& c : set.configs) {
    if (!c.profile || !c.launch) continue;
    const bool first = out.types.empty();
    for (std::size_t r = 0; r < static_cast<std::size_t>(c.ranks); ++r) {
      StoredProfile s{device_type(c.launch->ranks[r].device),
                      rank_profile(*c.profile, r),
                      path + " /configs/" + c.id + " rank " + std::to_string(r),
                      model_of(c),
                      c.precision,
                      c.device_kind};
      expect_well_formed(s.profile, s.source);
      if (first) out.first_ranks.push_back(s.device);
      keep(out.types, std::move(s));
    }
    found = true;
  }
  return found;
}

std::string lower(std::string text) {
  for (char& ch : text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return text;
}

std::string type_list(const std::vector<StoredProfile>& types) {
  std::string text;
  for (const StoredProfile& s : types) text += (text.empty() ? "" : ", ") + s.device;
  return text;
}

/// The stored type `device` names: itself, else the one type whose name contains it.
const StoredProfile& matching_type(const std::vector<StoredProfile>& types,
                                   const std::string& device) {
  const auto exact = std::ranges::find(types, device, &StoredProfile::device);
  if (exact != types.end()) return *exact;
  const StoredProfile* match = nullptr;
  for (const StoredProfile& s : types) {
    if (lower(s.device).find(lower(device)) == std::string::npos) continue;
    if (match != nullptr)
      throw UsageError("--devices: '" + device + "' names more than one profiled device (" +
                       match->device + ", " + s.device + "); give the whole name");
    match = &s;
  }
  if (match == nullptr)
    throw UsageError("--devices: no profile of a device '" + device +
                     "'; the profiles hold: " + type_list(types));
  return *match;
}

/// Throws UsageError unless `s` timed the job's model in `precision`.
void expect_job_model(const StoredProfile& s, const job::TransformerOptions& job_model,
                      const std::string& precision) {
  const auto stored = model_keys(s.model), wanted = model_keys(job_model);
  for (std::size_t k = 0; k < wanted.size(); ++k)
    if (stored[k].second != wanted[k].second)
      throw UsageError(s.source + " profiled a model with " + stored[k].first + " = " +
                       std::to_string(stored[k].second) + "; the job's workload." +
                       wanted[k].first + " is " + std::to_string(wanted[k].second));
  if (s.precision != precision)
    throw UsageError(s.source + " profiled precision " + s.precision +
                     "; this configuration of the job trains in " + precision);
}

/// Throws UsageError when the job's per-rank memory_gib list has fewer entries than `cluster`.
void expect_memory_for_each_rank(const job::JobSpec& job,
                                 const std::vector<StoredProfile>& cluster) {
  const std::size_t listed = job.devices.memory_gib.size();
  if (listed <= 1 || listed >= cluster.size()) return;
  throw UsageError("the job's [devices] memory_gib lists " + std::to_string(listed) +
                   " ranks; the cluster has " + std::to_string(cluster.size()) +
                   ": give one value, one per rank, or none (the profiles' capacities)");
}

/// The plan request of `config` on `cluster` (auto split; capacities the profiles', or the job's
/// memory_gib).
kernels::TransformerPlanRequest plan_request(const job::JobSpec& job, const job::Config& config,
                                             const std::vector<StoredProfile>& cluster) {
  kernels::TransformerPlanRequest r;
  const bool cuda = cluster.front().device_kind == "cuda";
  r.shape = kernels::gpt_shape(job.workload.transformer, core::dtype_of(config.precision),
                               cuda ? ops::BackendKind::cuda : ops::BackendKind::host);
  r.global_batch = config.global_batch;
  r.auto_split = true;
  r.sharding = std::get<job::StateSharding>(config.sharding);
  for (std::size_t i = 0; i < cluster.size(); ++i) {
    const std::int64_t configured =
        job.devices.memory_gib.empty()
            ? 0
            : core::configured_memory_bytes(job.devices, static_cast<int>(i));
    r.capacity_bytes.push_back(configured > 0 ? configured : cluster[i].profile.capacity_bytes);
    r.profiles.push_back(cluster[i].profile);
  }
  return r;
}

/// The predicted step time of `plan` on `profiles`: the slowest rank's accumulation x its
/// micro-batch's time, s.
double predicted_step_s(const kernels::TransformerPlan& plan,
                        const std::vector<core::RankProfile>& profiles) {
  double step = 0;
  for (std::size_t i = 0; i < plan.ranks.size(); ++i)
    step = std::max(step, plan.ranks[i].accumulation *
                              core::micro_batch_time_s(profiles[i], plan.ranks[i].micro_batch));
  return step;
}

/// The auto plan of `config` on `cluster` against the even split's, to `out`.
void print_one(const job::JobSpec& job, const job::Config& config,
               const std::vector<StoredProfile>& cluster, std::ostream& out) {
  const std::string precision(job::data_type_text(config.precision));
  out << "# global batch " << config.global_batch << ", "
      << job::state_sharding_text(std::get<job::StateSharding>(config.sharding)) << ", "
      << precision << " on " << cluster.size() << " ranks\n";
  const auto n = static_cast<int>(cluster.size());
  if (config.global_batch < n) {
    out << "  not planned: the global batch is smaller than the " << n << " ranks\n";
    return;
  }
  kernels::TransformerPlanRequest request = plan_request(job, config, cluster);
  const kernels::TransformerPlan planned = kernels::plan_transformer(request);
  request.per_rank_batch =
      job::weighted_split(config.global_batch, std::vector<double>(cluster.size(), 1.0));
  const kernels::TransformerPlan even = kernels::plan_transformer(request);
  out << "  auto: " << kernels::describe_plan(planned) << "\n";
  if (!planned.fits) return;
  const double auto_s = predicted_step_s(planned, request.profiles);
  char line[160];
  if (even.fits) {
    const double even_s = predicted_step_s(even, request.profiles);
    std::snprintf(line, sizeof line, "  predicted step %.4g s; even %.4g s: %.3fx\n", auto_s,
                  even_s, even_s / auto_s);
  } else {
    std::snprintf(line, sizeof line, "  predicted step %.4g s; even does not fit: %s\n", auto_s,
                  even.why.c_str());
  }
  out << line;
}

}  // namespace

std::string device_type(const std::string& device) {
  if (device.rfind("cuda:", 0) != 0) return device;
  const std::size_t space = device.find(' ');
  return space == std::string::npos ? device : device.substr(space + 1);
}

StoredProfiles read_stored_profiles(const std::vector<std::string>& paths) {
  StoredProfiles out;
  for (const std::string& path : paths)
    if (!add_profiles(read_result_file("plan", path), path, out))
      throw UsageError(path +
                       " holds no stored profile (/configs/<id>/profile with its launch record): "
                       "run a transformer configuration with batch_split proportional or auto to "
                       "make one");
  return out;
}

std::vector<StoredProfile> cluster_profiles(const StoredProfiles& stored,
                                            const std::vector<std::string>& devices) {
  std::vector<StoredProfile> cluster;
  for (const std::string& device : devices.empty() ? stored.first_ranks : devices)
    cluster.push_back(matching_type(stored.types, device));
  return cluster;
}

void print_profiled_plans(const job::JobSpec& job, const std::vector<StoredProfile>& cluster,
                          std::ostream& out) {
  if (job.workload.kind != "transformer")
    throw UsageError("--profiles plans the batch split of workload kind transformer, not " +
                     job.workload.kind);
  expect_memory_for_each_rank(job, cluster);
  out << "# cluster:";
  for (std::size_t i = 0; i < cluster.size(); ++i)
    out << " r" << i << " " << cluster[i].device << (i + 1 < cluster.size() ? "," : "\n");
  std::set<std::string> named;
  for (const StoredProfile& s : cluster)
    if (named.insert(s.device).second) out << "# " << s.device << ": " << s.source << "\n";
  std::set<std::tuple<int, std::string, job::DataType>> seen;
  for (const job::Config& config : job::expand_sweep(job)) {
    const std::string sharding =
        job::state_sharding_text(std::get<job::StateSharding>(config.sharding));
    if (!seen.insert({config.global_batch, sharding, config.precision}).second) continue;
    for (const StoredProfile& s : cluster)
      expect_job_model(s, job.workload.transformer,
                       std::string(job::data_type_text(config.precision)));
    try {
      print_one(job, config, cluster, out);
    } catch (const std::invalid_argument& e) {  // a stored line that extrapolates to <= 0
      throw UsageError("the stored profiles cannot be planned with: " + std::string(e.what()));
    }
  }
}

}  // namespace scaletune::cli
