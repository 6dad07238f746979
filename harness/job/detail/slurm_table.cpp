#include "harness/job/detail/slurm_table.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/job/detail/table_reader.hpp"
#include "harness/job/slurm_extras.hpp"
#include "harness/job/slurm_time.hpp"

namespace scaletune::job::detail {
namespace {

constexpr std::array<std::string_view, 19> kKeys = {"nodes",
                                                    "gpus_per_node",
                                                    "tasks_per_node",
                                                    "cpus_per_task",
                                                    "partition",
                                                    "account",
                                                    "time",
                                                    "launcher",
                                                    "nccl_socket_ifname",
                                                    "nccl_debug",
                                                    "env",
                                                    "srun_args",
                                                    "sbatch_args",
                                                    "gpus_option",
                                                    "cpus_per_node",
                                                    "preflight",
                                                    "container_image",
                                                    "container_mounts",
                                                    "container_workdir"};
constexpr std::array<std::string_view, 2> kLaunchers = {"srun", "mpirun"};
constexpr std::array<std::string_view, 2> kGpusOptions = {"gpus-per-node", "gres"};

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
               printable(*value) + "\"");
  return *value;
}

/// [slurm.env]: every key an environment variable name, every value a string exported as it is
/// (environment_problem).
std::vector<std::pair<std::string, std::string>> read_env(const TableReader& slurm) {
  const toml::node* node = slurm.find("env");
  if (node == nullptr) return {};
  if (!node->is_table()) slurm.fail_type(*node, "env", "a table of NAME = \"value\"");
  const TableReader env = slurm.table("env");
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string_view name : env.keys()) {
    const toml::node& value = *env.find(name);
    const std::string text = env.as_string(value, name);
    if (const std::string problem = environment_problem(name, text); !problem.empty())
      env.fail(value, printable(name), problem);
    out.emplace_back(name, text);
  }
  return out;
}

/// The list of strings `key`, each without a `problem` ("" for none); `example` shows an entry.
std::vector<std::string> read_list(const TableReader& slurm, std::string_view key,
                                   std::string_view example,
                                   const std::function<std::string(std::string_view)>& problem) {
  const toml::node* node = slurm.find(key);
  if (node == nullptr) return {};
  const toml::array* list = node->as_array();
  if (list == nullptr)
    slurm.fail_type(*node, key, "a list of entries such as \"" + std::string(example) + "\"");
  std::vector<std::string> out;
  for (const toml::node& item : *list) {
    const std::string text = slurm.as_string(item, key);
    if (const std::string why = problem(text); !why.empty())
      slurm.fail(item, key, std::string(key) + " " + why);
    out.push_back(text);
  }
  return out;
}

/// The extra options `key` of `kind` (extra_option_problem).
std::vector<std::string> read_options(const TableReader& slurm, std::string_view key,
                                      ExtraOptions kind) {
  return read_list(slurm, key, "--cpu-bind=none",
                   [kind](std::string_view word) { return extra_option_problem(word, kind); });
}

/// A string key checked by `valid`; `form` says what was expected.
std::string read_checked(const TableReader& t, std::string_view key,
                         bool (*valid)(std::string_view), std::string_view form) {
  const auto value = t.string(key);
  if (!value) return {};
  if (!valid(*value))
    t.fail(
        *t.find(key), key,
        std::string(key) + " must be " + std::string(form) + ", got \"" + printable(*value) + "\"");
  return *value;
}

/// The container keys.
void read_container(const TableReader& slurm, SlurmSpec& s) {
  s.container_image =
      read_checked(slurm, "container_image", is_container_image, kContainerImageCharacters);
  s.container_mounts = read_list(slurm, "container_mounts", "/fsx:/fsx", container_mount_problem);
  s.container_workdir =
      read_checked(slurm, "container_workdir", is_container_path, kContainerPathForm);
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
  s.env = read_env(slurm);
  s.srun_args = read_options(slurm, "srun_args", ExtraOptions::srun);
  s.sbatch_args = read_options(slurm, "sbatch_args", ExtraOptions::sbatch);
  s.gpus_option = slurm.choice("gpus_option", kGpusOptions).value_or("");
  s.cpus_per_node = integer_or(slurm, "cpus_per_node", 1, kMaxPerNode, 0);
  s.preflight = slurm.boolean("preflight").value_or(true);
  read_container(slurm, s);
  if (const auto conflict = slurm_conflict(s))
    slurm.fail(*slurm.find(conflict->key), conflict->key, conflict->message);
  return s;
}

}  // namespace scaletune::job::detail
