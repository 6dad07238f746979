#include "harness/job/job_format.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <variant>

#include "harness/job/batch_split.hpp"
#include "harness/job/detail/text.hpp"
#include "harness/job/detail/workload_kinds.hpp"
#include "harness/job/sweep.hpp"

namespace scaletune::job {
namespace {

using Row = std::vector<std::string>;

bool runs(const Config& config, int world_size) {
  return world_size <= 0 || config.ranks <= world_size;
}

std::string runs_text(const Config& config, int world_size) {
  return runs(config, world_size) ? "yes"
                                  : "skipped (needs " + std::to_string(config.ranks) + " ranks)";
}

/// Left-aligned columns two spaces apart; no trailing spaces.
std::string aligned(const std::vector<Row>& rows) {
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const Row& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  std::string text;
  for (const Row& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(widths[c] - row[c].size() + 2, ' ');
    }
    text += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
  }
  return text;
}

std::string header_line(const JobSpec& job) {
  const std::string options =
      detail::workload_kind(job.workload.kind).describe_options(job.workload);
  return "job " + job.job.name + ": workload " + job.workload.kind + " (" + options + "), output " +
         job.job.output + "\n";
}

std::string total_line(const std::vector<Config>& configs, int world_size) {
  const std::string total =
      "total: " + detail::counted(static_cast<long>(configs.size()), "configuration");
  if (world_size <= 0) return total + "; world size unknown (pass --world N)\n";
  const auto running =
      std::ranges::count_if(configs, [&](const Config& c) { return runs(c, world_size); });
  return total + ", " + std::to_string(running) + " run on " + detail::counted(world_size, "rank") +
         ", " + std::to_string(static_cast<long>(configs.size()) - running) + " skipped\n";
}

/// "devices: memory_gib 16 per rank" or "devices: memory_gib 16,32 (rank 0, 1, ...)"; "" when
/// the job gives no device memory.
std::string devices_line(const JobSpec& job) {
  const std::vector<double>& memory_gib = job.devices.memory_gib;
  if (memory_gib.empty()) return "";
  if (memory_gib.size() == 1)
    return "devices: memory_gib " + detail::format_number(memory_gib.front()) + " per rank\n";
  std::vector<std::string> values;
  for (const double gib : memory_gib) values.push_back(detail::format_number(gib));
  return "devices: memory_gib " + detail::join(values, ",") + " (rank 0, 1, ...)\n";
}

bool any_sharding(const std::vector<Config>& configs) {
  return std::ranges::any_of(
      configs, [](const Config& c) { return !std::holds_alternative<std::monostate>(c.sharding); });
}

}  // namespace

std::string format_plan(const JobSpec& job, const std::vector<Config>& configs, int world_size) {
  const bool sharded = any_sharding(configs);
  Row names = {"#", "id", "ranks", "global_batch", "per_rank_batch", "precision"};
  Row units = {"-", "-", "count", "samples", "samples/rank", "-"};
  if (sharded) {
    names.push_back(sharding_key(job.workload.kind));
    units.push_back("-");
  }
  names.push_back("runs");
  units.push_back("-");
  std::vector<Row> rows = {names, units};
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Config& config = configs[i];
    Row row = {std::to_string(i),
               config.id,
               std::to_string(config.ranks),
               std::to_string(config.global_batch),
               per_rank_batch_text(config.per_rank_batch),
               std::string(data_type_text(config.precision))};
    if (sharded) row.push_back(config_sharding_text(config));
    row.push_back(runs_text(config, world_size));
    rows.push_back(std::move(row));
  }
  return header_line(job) + devices_line(job) + aligned(rows) + total_line(configs, world_size);
}

}  // namespace scaletune::job
