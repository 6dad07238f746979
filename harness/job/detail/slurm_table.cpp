#include "harness/job/detail/slurm_table.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "harness/job/detail/table_reader.hpp"
#include "harness/job/slurm_time.hpp"

namespace scaletune::job::detail {
namespace {

constexpr std::array<std::string_view, 10> kKeys = {
    "nodes",   "gpus_per_node", "tasks_per_node", "cpus_per_task",      "partition",
    "account", "time",          "launcher",       "nccl_socket_ifname", "nccl_debug"};
constexpr std::array<std::string_view, 2> kLaunchers = {"srun", "mpirun"};

int integer_or(const TableReader& t, std::string_view key, int min, int max, int absent) {
  const auto value = t.integer(key, min, max);
  return value ? static_cast<int>(*value) : absent;
}

std::string read_time(const TableReader& t) {
  const auto time = t.string("time");
  if (!time) return {};
  if (!is_slurm_time(*time))
    t.fail(*t.find("time"), "time",
           "time must be " + std::string(kSlurmTimeForms) + " (e.g. \"02:00:00\"), got \"" + *time +
               "\"");
  return *time;
}

/// A string key a batch script writes as it is: letters, digits and ._,:@+- only.
std::string read_word(const TableReader& t, std::string_view key) {
  const auto value = t.string(key);
  if (!value) return {};
  if (!is_slurm_word(*value))
    t.fail(*t.find(key), key,
           std::string(key) + " may hold " + std::string(kSlurmWordCharacters) + ", got \"" +
               *value + "\"");
  return *value;
}

}  // namespace

SlurmSpec read_slurm(const TableReader& slurm) {
  slurm.reject_unknown_keys(kKeys);
  SlurmSpec s;
  s.nodes = integer_or(slurm, "nodes", 1, kMaxSlurmNodes, 0);
  s.gpus_per_node = integer_or(slurm, "gpus_per_node", 0, kMaxPerNode, -1);
  s.tasks_per_node = integer_or(slurm, "tasks_per_node", 1, kMaxPerNode, 0);
  s.cpus_per_task = integer_or(slurm, "cpus_per_task", 1, kMaxPerNode, 0);
  s.partition = read_word(slurm, "partition");
  s.account = read_word(slurm, "account");
  s.time = read_time(slurm);
  s.launcher = slurm.choice("launcher", kLaunchers).value_or("");
  s.nccl_socket_ifname = read_word(slurm, "nccl_socket_ifname");
  s.nccl_debug = read_word(slurm, "nccl_debug");
  return s;
}

}  // namespace scaletune::job::detail
