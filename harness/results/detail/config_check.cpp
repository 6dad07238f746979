#include "harness/results/detail/config_check.hpp"

#include <numeric>
#include <set>

#include "harness/results/detail/config_io.hpp"
#include "harness/results/launch_record.hpp"

namespace scaletune::results::detail {
namespace {

void check_id(const ConfigResult& config, const H5Where& configs) {
  const std::string& id = config.id;
  if (id.empty() || id == "." || id == ".." || id.find('/') != std::string::npos)
    configs.fail("configuration id '" + id + "' is not a group name (non-empty, no '/')");
}

void check_batch(const ConfigResult& config, const H5Where& at) {
  if (config.ranks < 1) at.fail("ranks is " + std::to_string(config.ranks) + "; expected >= 1");
  if (config.per_rank_batch.empty()) return;  // a workload without batches (collectives)
  if (config.per_rank_batch.size() != static_cast<std::size_t>(config.ranks))
    at.fail("per_rank_batch has " + std::to_string(config.per_rank_batch.size()) +
            " entries; expected one per rank (" + std::to_string(config.ranks) + ")");
  const long long sum =
      std::accumulate(config.per_rank_batch.begin(), config.per_rank_batch.end(), 0LL);
  if (sum != config.global_batch)
    at.fail("per_rank_batch sums to " + std::to_string(sum) + "; expected global_batch " +
            std::to_string(config.global_batch));
}

/// Throws ResultError naming dataset `name` unless it holds `expected` values.
void check_size(std::size_t size, std::size_t expected, const char* name, const char* shape,
                const H5Where& at) {
  if (size != expected)
    at.fail(std::string(name) + " holds " + std::to_string(size) + " values; expected " + shape +
            " = " + std::to_string(expected));
}

void check_per_iteration(const ConfigResult& config, const H5Where& at) {
  const auto ranks = static_cast<std::size_t>(config.ranks);
  if (config.step_time.empty()) {
    if (!config.rank_phase_time.empty() || !config.phase_names.empty() ||
        !config.rank_memory_peak.empty())
      at.fail("rank_phase_time, phase_names or rank_memory_peak given without step_time");
    return;
  }
  check_size(config.rank_phase_time.size(), ranks * config.iterations() * config.phase_names.size(),
             "rank_phase_time", "ranks * iterations * phases", at);
  check_size(config.rank_memory_peak.size(), ranks, "rank_memory_peak", "ranks", at);
}

void check_embedding(const ConfigResult& config, const H5Where& at) {
  if (!config.embedding) return;
  const EmbeddingStats& stats = *config.embedding;
  if (stats.ranks != config.ranks)
    at.fail("embedding.ranks is " + std::to_string(stats.ranks) +
            "; expected the configuration's ranks (" + std::to_string(config.ranks) + ")");
  const std::size_t cells = stats.table_names.size() * static_cast<std::size_t>(config.ranks);
  check_size(stats.lookups.size(), cells, "embedding.lookups", "tables * ranks", at);
  check_size(stats.bytes_touched.size(), cells, "embedding.bytes_touched", "tables * ranks", at);
  check_size(stats.reuse_histogram.size(), cells * EmbeddingStats::reuse_bins,
             "embedding.reuse_histogram", "tables * ranks * reuse_bins", at);
}

void check_profile(const ConfigResult& config, const H5Where& at) {
  if (!config.profile) return;
  const ProfileTable& profile = *config.profile;
  if (profile.ranks != config.ranks)
    at.fail("profile.ranks is " + std::to_string(profile.ranks) +
            "; expected the configuration's ranks (" + std::to_string(config.ranks) + ")");
  const std::size_t cells = profile.micro_batches.size() * static_cast<std::size_t>(config.ranks);
  check_size(profile.time_s.size(), cells, "profile.time_s", "ranks * sizes", at);
  check_size(profile.spread.size(), cells, "profile.spread", "ranks * sizes", at);
  check_size(profile.capacity_bytes.size(), static_cast<std::size_t>(config.ranks),
             "profile.capacity_bytes", "ranks", at);
  if (!profile.devices.empty())
    check_size(profile.devices.size(), static_cast<std::size_t>(config.ranks), "profile.device",
               "ranks", at);
  if (!profile.accumulation_overhead_s.empty())
    check_size(profile.accumulation_overhead_s.size(), static_cast<std::size_t>(config.ranks),
               "profile.accumulation_overhead_s", "ranks", at);
}

/// Throws ResultError naming the launch field whose value breaks results/README.md.
void check_launch_fields(const LaunchRecord& launch, const H5Where& at) {
  if (!is_utc_timestamp(launch.started_utc))
    at.fail("launch.started_utc is '" + launch.started_utc +
            "'; expected an ISO 8601 UTC time like 2026-11-30T03:00:00Z");
  if (!is_launcher_name(launch.launcher))
    at.fail("launch.launcher is '" + launch.launcher + "'; expected mpirun, srun or singleton");
  if (!launch.slurm_step_id.empty() && launch.launcher != "srun")
    at.fail("launch.slurm_step_id is set for launcher " + launch.launcher +
            "; expected it only for srun");
}

/// Throws ResultError naming launch.ranks unless it holds one row per configuration rank, each
/// naming a distinct world rank in [0, launch.world_size).
void check_launch_rows(const LaunchRecord& launch, int ranks, const H5Where& at) {
  check_size(launch.ranks.size(), static_cast<std::size_t>(ranks), "launch.ranks", "ranks", at);
  std::set<int> seen;
  for (const RankInfo& r : launch.ranks) {
    if (r.rank < 0 || r.rank >= launch.world_size)
      at.fail("launch.ranks names world rank " + std::to_string(r.rank) +
              "; expected one in [0, launch.world_size = " + std::to_string(launch.world_size) +
              ")");
    if (!seen.insert(r.rank).second)
      at.fail("launch.ranks names world rank " + std::to_string(r.rank) + " twice");
  }
}

void check_device_kind(const ConfigResult& config, const H5Where& at) {
  if (!is_device_kind_name(config.device_kind))
    at.fail("device_kind is '" + config.device_kind + "'; expected host or cuda");
}

void check_extra_names(const ConfigResult& config, const H5Where& at) {
  const auto check = [&](const std::string& name) {
    if (name.empty()) at.fail("an extra attribute has an empty name");
    if (is_fixed_config_attribute(name))
      at.fail("extra attribute '" + name + "' would replace the fixed attribute of that name");
  };
  for (const auto& entry : config.number_attrs) check(entry.first);
  for (const auto& entry : config.text_attrs) {
    check(entry.first);
    if (config.number_attrs.contains(entry.first))
      at.fail("'" + entry.first + "' is in both number_attrs and text_attrs");
  }
}

}  // namespace

void check_attributes(const ConfigResult& config, const H5Where& configs) {
  check_id(config, configs);
  const H5Where at = configs.child(config.id);
  check_batch(config, at);
  check_device_kind(config, at);
  check_extra_names(config, at);
}

void check_storable(const ConfigResult& config, const H5Where& configs) {
  check_attributes(config, configs);
  const H5Where at = configs.child(config.id);
  check_per_iteration(config, at);
  check_embedding(config, at);
  check_profile(config, at);
  check_launch(config, configs);
}

void check_launch(const ConfigResult& config, const H5Where& configs) {
  if (!config.launch) return;
  const H5Where at = configs.child(config.id);
  if (config.status == Status::skipped)
    at.fail("a skipped configuration has a launch record; expected none (it never started)");
  check_launch_fields(*config.launch, at);
  check_launch_rows(*config.launch, config.ranks, at);
}

}  // namespace scaletune::results::detail
