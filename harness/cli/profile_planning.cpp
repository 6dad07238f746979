#include "harness/cli/profile_planning.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>
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

constexpr std::size_t kMaxSizes = 64;             // profiled sizes a stored profile may hold
constexpr std::int64_t kMaxMicroBatch = 1 << 20;  // samples
constexpr double kMinTime_s = 1e-9;               // no micro-batch takes less than a nanosecond
constexpr int kMaxPlannedBatch = 16384;           // samples; planning time grows with its square
constexpr double kMaxPlanningWork = 4.0 * kMaxPlannedBatch * kMaxPlannedBatch;  // ranks x batch^2

/// The model keys a profile must share with the job, with the job's values.
std::vector<std::pair<std::string, int>> model_keys(const job::TransformerOptions& o) {
  return {{"layers", o.layers},   {"hidden", o.hidden}, {"heads", o.heads},
          {"seq_len", o.seq_len}, {"vocab", o.vocab},   {"ffn_mult", o.ffn_mult}};
}

/// The model keys a stored configuration has. Throws UsageError naming `source` when one is
/// stored as text.
std::map<std::string, double> model_of(const results::ConfigResult& c, const std::string& source) {
  std::map<std::string, double> model;
  for (const auto& [key, unused] : model_keys({})) {
    if (c.text_attrs.contains(key))
      throw UsageError(source + ": attribute " + key + " is text ('" + c.text_attrs.at(key) +
                       "'); expected a number");
    if (const auto it = c.number_attrs.find(key); it != c.number_attrs.end())
      model[key] = it->second;
  }
  return model;
}

/// The first difference of `stored` from the job's model, "" when none (a key `stored` lacks is
/// not compared).
std::string model_difference(const std::map<std::string, double>& stored,
                             const job::TransformerOptions& job_model) {
  for (const auto& [key, wanted] : model_keys(job_model)) {
    const auto it = stored.find(key);
    if (it == stored.end() || it->second == wanted) continue;
    char value[64];
    std::snprintf(value, sizeof value, "%.17g", it->second);
    return "profiled a model with " + key + " = " + value + "; the job's workload." + key + " is " +
           std::to_string(wanted);
  }
  return "";
}

/// "finite and >= 0" check of an optional term of a profile.
bool non_negative(double value) {
  return std::isfinite(value) && value >= 0;
}

/// Throws UsageError naming `source` unless the overhead and memory model of rank `r` of `table`
/// are finite and >= 0.
void expect_well_formed_terms(const results::ProfileTable& table, std::size_t r,
                              const std::string& source) {
  const auto fail = [&](const std::string& what, double value) {
    throw UsageError(source + ": " + what + " is " + std::to_string(value) +
                     "; expected finite and >= 0");
  };
  if (!table.accumulation_overhead_s.empty() && !non_negative(table.accumulation_overhead_s[r]))
    fail("accumulation_overhead_s", table.accumulation_overhead_s[r]);
  if (!table.memory_model) return;
  const auto& m = *table.memory_model;
  for (const auto& [name, value] :
       {std::pair{"state_bytes", m.state_bytes}, std::pair{"replicated_bytes", m.replicated_bytes},
        std::pair{"activation_bytes_per_sample", m.activation_bytes_per_sample}})
    if (!non_negative(value)) fail(name, value);
}

/// Throws UsageError naming `source` unless rank `r` of `table` is a profile the planner takes.
void expect_well_formed(const results::ProfileTable& table, std::size_t r,
                        const std::string& source) {
  expect_well_formed_terms(table, r, source);
  const std::size_t n = table.micro_batches.size();
  const auto fail = [&](const std::string& what) { throw UsageError(source + ": " + what); };
  if (n < 1 || n > kMaxSizes)
    fail("holds " + std::to_string(n) + " micro-batch sizes; expected 1 to " +
         std::to_string(kMaxSizes));
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t m = table.micro_batches[k];
    if (m < 1 || m > kMaxMicroBatch || (k > 0 && m <= table.micro_batches[k - 1]))
      fail("micro_batches[" + std::to_string(k) + "] is " + std::to_string(m) +
           "; expected increasing sizes from 1 to " + std::to_string(kMaxMicroBatch));
    const double t = table.time_s[r * n + k], s = table.spread[r * n + k];
    if (!std::isfinite(t) || t < kMinTime_s)
      fail("time_s[" + std::to_string(k) + "] is " + std::to_string(t) +
           " s; expected a finite time of at least 1 ns");
    if (!std::isfinite(s) || s < 0)
      fail("spread[" + std::to_string(k) + "] is " + std::to_string(s) +
           "; expected finite and >= 0");
  }
  if (table.capacity_bytes[r] < 0)
    fail("capacity_bytes is " + std::to_string(table.capacity_bytes[r]) + "; expected >= 0");
}

/// Rank `r`'s row of `table` (checked by expect_well_formed).
core::RankProfile rank_profile(const results::ProfileTable& table, std::size_t r) {
  const std::size_t sizes = table.micro_batches.size();
  core::RankProfile p;
  for (const std::int64_t m : table.micro_batches) p.micro_batches.push_back(static_cast<int>(m));
  const auto first = static_cast<long>(r * sizes), last = static_cast<long>((r + 1) * sizes);
  p.time_s.assign(table.time_s.begin() + first, table.time_s.begin() + last);
  p.spread.assign(table.spread.begin() + first, table.spread.begin() + last);
  p.capacity_bytes = table.capacity_bytes[r];
  if (!table.accumulation_overhead_s.empty())
    p.accumulation_overhead_s = table.accumulation_overhead_s[r];
  return p;
}

/// The memory model to plan `c`'s profile with: the stored one of an imported profile (no launch
/// record); none for a run's, whose stored terms are those of its own stage: the planner
/// computes a run's memory from the job's model for the stage it plans.
std::optional<core::MemoryModel> memory_model_of(const results::ConfigResult& c) {
  if (c.launch || !c.profile->memory_model) return std::nullopt;
  const auto& m = *c.profile->memory_model;
  return core::MemoryModel{m.state_bytes, m.replicated_bytes, m.activation_bytes_per_sample};
}

/// The device type rank `r` of `c` profiled: the profile's own, else its launch record's.
std::string profiled_device(const results::ConfigResult& c, std::size_t r) {
  if (!c.profile->devices.empty()) return c.profile->devices[r];
  return device_type(c.launch->ranks[r].device);
}

bool same_kind(const StoredProfile& a, const StoredProfile& b) {
  return a.device == b.device && a.model == b.model && a.precision == b.precision;
}

/// Keeps `candidate` unless a kept profile of the same device, model and precision reaches a
/// larger micro-batch.
void keep(std::vector<StoredProfile>& kept, StoredProfile candidate) {
  const auto same =
      std::ranges::find_if(kept, [&](const StoredProfile& s) { return same_kind(s, candidate); });
  if (same == kept.end())
    kept.push_back(std::move(candidate));
  else if (candidate.profile.micro_batches.back() > same->profile.micro_batches.back())
    *same = std::move(candidate);
}

/// Adds the ranks of every profiled configuration of `set` (read from `path`); true when it had
/// one.
bool add_profiles(const results::ResultSet& set, const std::string& path, StoredProfiles& out) {
  bool found = false;
  for (const results::ConfigResult& c : set.configs) {
    if (!c.profile || (!c.launch && c.profile->devices.empty())) continue;
    const bool first = out.profiles.empty();
    for (std::size_t r = 0; r < static_cast<std::size_t>(c.ranks); ++r) {
      const std::string source = path + " /configs/" + c.id + " rank " + std::to_string(r);
      expect_well_formed(*c.profile, r, source);
      StoredProfile s{profiled_device(c, r),
                      rank_profile(*c.profile, r),
                      source,
                      model_of(c, source),
                      c.precision,
                      c.device_kind,
                      memory_model_of(c)};
      if (first) out.first_ranks.push_back(s.device);
      keep(out.profiles, std::move(s));
    }
    found = true;
  }
  return found;
}

std::string lower(std::string text) {
  for (char& ch : text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return text;
}

/// The distinct device types of `stored`, in the order read.
std::vector<std::string> device_types(const StoredProfiles& stored) {
  std::vector<std::string> types;
  for (const StoredProfile& s : stored.profiles)
    if (std::ranges::find(types, s.device) == types.end()) types.push_back(s.device);
  return types;
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

/// The stored type `device` names: itself (case-insensitively), else the one type whose name
/// contains it.
std::string matching_type(const std::vector<std::string>& types, const std::string& device) {
  for (const std::string& type : types)
    if (lower(type) == lower(device)) return type;
  const std::string* match = nullptr;
  for (const std::string& type : types) {
    if (lower(type).find(lower(device)) == std::string::npos) continue;
    if (match != nullptr)
      throw UsageError("--devices: '" + device + "' names more than one profiled device (" +
                       *match + ", " + type + "); give the whole name");
    match = &type;
  }
  if (match == nullptr)
    throw UsageError("--devices: no profile of a device '" + device +
                     "'; the profiles hold: " + joined(types));
  return *match;
}

/// Throws UsageError when the job's per-rank memory_gib list has fewer entries than `ranks`.
void expect_memory_for_each_rank(const job::JobSpec& job, std::size_t ranks) {
  const std::size_t listed = job.devices.memory_gib.size();
  if (listed <= 1 || listed >= ranks) return;
  throw UsageError("the job's [devices] memory_gib lists " + std::to_string(listed) +
                   " ranks; the cluster has " + std::to_string(ranks) +
                   ": give one value, one per rank, or none (the profiles' capacities)");
}

/// The profile of `device` that timed the job's model in `precision`. Throws UsageError naming
/// a profile of the device and how it differs when there is none.
const StoredProfile& profile_for(const StoredProfiles& stored, const std::string& device,
                                 const job::TransformerOptions& job_model,
                                 const std::string& precision) {
  const StoredProfile* other = nullptr;
  for (const StoredProfile& s : stored.profiles) {
    if (s.device != device) continue;
    const std::string difference = model_difference(s.model, job_model);
    if (difference.empty() && s.precision == precision) return s;
    if (other == nullptr) other = &s;
  }
  const std::string difference = model_difference(other->model, job_model);
  throw UsageError("no profile of " + device + " timed the job's model in " + precision + ": " +
                   other->source + " " +
                   (difference.empty() ? "profiled precision " + other->precision : difference));
}

/// "FILE /configs/<id> rank R, ..." of the distinct profiles of `cluster`.
std::string sources(const std::vector<const StoredProfile*>& cluster) {
  std::vector<std::string> named;
  for (const StoredProfile* s : cluster)
    if (std::ranges::find(named, s->source) == named.end()) named.push_back(s->source);
  return joined(named);
}

bool same_memory_model(const std::optional<core::MemoryModel>& a,
                       const std::optional<core::MemoryModel>& b) {
  if (!a || !b) return !a && !b;
  return a->state_bytes == b->state_bytes && a->replicated_bytes == b->replicated_bytes &&
         a->activation_bytes_per_sample == b->activation_bytes_per_sample;
}

/// Throws UsageError when the profiles of `cluster` (the last one new) cannot be planned
/// together: different device kinds or memory models.
void expect_compatible(const std::vector<const StoredProfile*>& cluster) {
  const StoredProfile& first = *cluster.front();
  const StoredProfile& last = *cluster.back();
  if (last.device_kind != first.device_kind)
    throw UsageError("the cluster mixes " + first.device_kind + " and " + last.device_kind +
                     " profiles; their memory models differ: plan each kind alone");
  if (!same_memory_model(first.memory_model, last.memory_model))
    throw UsageError("the profiles " + first.source + " and " + last.source +
                     " hold different memory models (or one holds none): plan profiles of one "
                     "import, or of runs, alone");
}

/// The cluster's profiles for `config`; throws UsageError when the cluster mixes device kinds.
std::vector<const StoredProfile*> config_profiles(const job::JobSpec& job,
                                                  const job::Config& config,
                                                  const StoredProfiles& stored,
                                                  const std::vector<std::string>& devices) {
  const std::string precision(job::data_type_text(config.precision));
  std::vector<const StoredProfile*> cluster;
  for (const std::string& device : devices) {
    cluster.push_back(&profile_for(stored, device, job.workload.transformer, precision));
    expect_compatible(cluster);
  }
  const auto& sharding = std::get<job::StateSharding>(config.sharding);
  if (cluster.front()->memory_model &&
      (sharding.automatic || sharding.stage != job::ZeroStage::zero3))
    throw UsageError("the profiles " + sources(cluster) +
                     " hold an imported memory model of fully sharded training state (FSDP): the "
                     "job's sweep.state_sharding must be zero3 or zero3:memory_proportional, not " +
                     job::state_sharding_text(sharding));
  return cluster;
}

/// The plan request of `config` on `cluster` (auto split; capacities the profiles', or the job's
/// memory_gib).
kernels::TransformerPlanRequest plan_request(const job::JobSpec& job, const job::Config& config,
                                             const std::vector<const StoredProfile*>& cluster) {
  kernels::TransformerPlanRequest r;
  const bool cuda = cluster.front()->device_kind == "cuda";
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
    r.capacity_bytes.push_back(configured > 0 ? configured : cluster[i]->profile.capacity_bytes);
    r.profiles.push_back(cluster[i]->profile);
  }
  r.memory_model = cluster.front()->memory_model;
  return r;
}

/// The predicted step time of `plan`: its slowest rank's step_time_s (plan_transformer predicts
/// each from the rank's profile), s.
double predicted_step_s(const kernels::TransformerPlan& plan) {
  double step = 0;
  for (const core::RankPlan& r : plan.ranks) step = std::max(step, r.step_time_s);
  return step;
}

/// The auto plan of `config` on `cluster` against the even split's.
void print_plans(const kernels::TransformerPlanRequest& request, std::ostream& out) {
  const kernels::TransformerPlan planned = kernels::plan_transformer(request);
  kernels::TransformerPlanRequest even = request;
  even.per_rank_batch = job::weighted_split(
      request.global_batch, std::vector<double>(request.capacity_bytes.size(), 1.0));
  const kernels::TransformerPlan even_plan = kernels::plan_transformer(even);
  out << "  auto: " << kernels::describe_plan(planned) << "\n";
  if (!planned.fits) return;
  const double auto_s = predicted_step_s(planned), even_s = predicted_step_s(even_plan);
  char line[160];
  if (even_plan.fits)
    std::snprintf(line, sizeof line, "  predicted step %.4g s; even %.4g s: %.3fx\n", auto_s,
                  even_s, even_s / auto_s);
  else
    std::snprintf(line, sizeof line, "  predicted step %.4g s; even does not fit\n", auto_s);
  out << line;
  if (!even_plan.fits) out << "  even: " << even_plan.why << "\n";
}

/// " (model keys it does not record, not compared: heads, vocab)", or "".
std::string unrecorded_keys(const StoredProfile& s) {
  std::vector<std::string> missing;
  for (const auto& [key, unused] : model_keys({}))
    if (!s.model.contains(key)) missing.push_back(key);
  return missing.empty()
             ? ""
             : " (model keys it does not record, not compared: " + joined(missing) + ")";
}

/// Why a global batch `batch` is not planned on `ranks` ranks, "" when it is: smaller than the
/// ranks, above 16384 samples, or ranks x batch^2 (the planner's time) above 4 x 16384^2.
std::string unplanned(int batch, int ranks) {
  if (batch < ranks) return "the global batch is smaller than " + std::to_string(ranks) + " ranks";
  if (batch > kMaxPlannedBatch) return "the global batch is larger than 16384 samples";
  if (static_cast<double>(ranks) * batch * batch > kMaxPlanningWork)
    return "ranks x global batch^2 is above 4 x 16384^2 (the planner's time grows with it)";
  return "";
}

/// One configuration's block: its heading, where its profiles came from, its plans.
void print_config(const job::JobSpec& job, const job::Config& config, const StoredProfiles& stored,
                  const std::vector<std::string>& devices, std::ostream& out) {
  const auto n = static_cast<int>(devices.size());
  out << "# global batch " << config.global_batch << ", "
      << job::state_sharding_text(std::get<job::StateSharding>(config.sharding)) << ", "
      << job::data_type_text(config.precision) << " on " << n << (n == 1 ? " rank\n" : " ranks\n");
  const std::vector<const StoredProfile*> cluster = config_profiles(job, config, stored, devices);
  std::set<std::string> named;
  for (const StoredProfile* s : cluster)
    if (named.insert(s->device).second)
      out << "# " << s->device << ": " << s->source << unrecorded_keys(*s) << "\n";
  if (const std::string why = unplanned(config.global_batch, n); !why.empty()) {
    out << "  not planned: " << why << "\n";
    return;
  }
  try {
    print_plans(plan_request(job, config, cluster), out);
  } catch (const std::invalid_argument& e) {
    throw UsageError("the profiles " + sources(cluster) + " cannot be planned with: " + e.what());
  }
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

std::vector<std::string> cluster_devices(const StoredProfiles& stored,
                                         const std::vector<std::string>& devices) {
  const std::vector<std::string> types = device_types(stored);
  std::vector<std::string> cluster;
  for (const std::string& device : devices.empty() ? stored.first_ranks : devices)
    cluster.push_back(matching_type(types, device));
  return cluster;
}

void print_profiled_plans(const job::JobSpec& job, const StoredProfiles& stored,
                          const std::vector<std::string>& devices, std::ostream& out) {
  if (job.workload.kind != "transformer")
    throw UsageError("--profiles plans the batch split of workload kind transformer, not " +
                     job.workload.kind);
  expect_memory_for_each_rank(job, devices.size());
  std::ostringstream text;  // written only when every configuration could be planned
  text << "# cluster:";
  for (std::size_t i = 0; i < devices.size(); ++i)
    text << " r" << i << " " << devices[i] << (i + 1 < devices.size() ? "," : "\n");
  std::set<std::tuple<int, std::string, job::DataType>> seen;
  for (const job::Config& config : job::expand_sweep(job)) {
    const std::string sharding =
        job::state_sharding_text(std::get<job::StateSharding>(config.sharding));
    if (seen.insert({config.global_batch, sharding, config.precision}).second)
      print_config(job, config, stored, devices, text);
  }
  out << text.str();
}

}  // namespace scaletune::cli
