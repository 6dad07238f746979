#include "harness/slurm/batch_script.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>

#include "harness/job/detail/text.hpp"

namespace scaletune::slurm {
namespace {

constexpr std::string_view kExtension = ".sbatch";
constexpr std::string_view kSplitSuffix = "ranks.sbatch";

/// "<job>.sbatch" for the shared allocation, "<job>-<k>ranks.sbatch" for a split count k.
std::string script_name(const std::string& job_name, std::optional<int> split_count) {
  return job_name + (split_count ? "-" + std::to_string(*split_count) + std::string(kSplitSuffix)
                                 : std::string(kExtension));
}

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

bool whole_nodes(int k, int per_node) {
  return k <= per_node || k % per_node == 0;
}

/// `text` as one shell word: as it is when it holds only safe characters, else single-quoted.
std::string shell_word(const std::string& text) {
  const bool safe = !text.empty() && std::ranges::all_of(text, [](unsigned char c) {
    return std::isalnum(c) ||
           std::string_view("/._-+=:,@%").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (safe) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string join(const std::vector<int>& counts, const std::string& separator) {
  std::string text;
  for (int k : counts) text += (text.empty() ? "" : separator) + std::to_string(k);
  return text;
}

std::string directive(const std::string& option, const std::string& value) {
  return value.empty() ? "" : "#SBATCH --" + option + "=" + value + "\n";
}

/// The GPU request: --gpus-per-node=G or --gres=gpu:G; none for 0.
std::string gpus(const SlurmSettings& s) {
  if (s.gpus_per_node <= 0) return "";
  const std::string count = std::to_string(s.gpus_per_node);
  return s.gres ? directive("gres", "gpu:" + count) : directive("gpus-per-node", count);
}

std::string extra_directives(const SlurmSettings& s) {
  std::string text;
  for (const std::string& option : s.sbatch_args) text += "#SBATCH " + option + "\n";
  return text;
}

std::string directives(const Allocation& a, const SlurmSettings& s, bool several) {
  return "#!/bin/bash\n" + directive("job-name", s.job_name) +
         directive("nodes", std::to_string(a.nodes)) +
         (a.tasks != a.nodes * a.tasks_per_node ? directive("ntasks", std::to_string(a.tasks))
                                                : "") +
         directive("ntasks-per-node", std::to_string(a.tasks_per_node)) + gpus(s) +
         directive("cpus-per-task", std::to_string(s.cpus_per_task)) + "#SBATCH --exclusive\n" +
         directive("output", "%x_%j.out") + directive("partition", s.partition) +
         directive("account", s.account) + directive("time", s.time) +
         (several ? directive("dependency", "singleton") : "") + extra_directives(s);
}

std::string environment(const SlurmSettings& s) {
  std::string text;
  if (!s.nccl_socket_ifname.empty())
    text += "export NCCL_SOCKET_IFNAME=" + shell_word(s.nccl_socket_ifname) + "\n";
  if (!s.nccl_debug.empty()) text += "export NCCL_DEBUG=" + shell_word(s.nccl_debug) + "\n";
  for (const auto& [name, value] : s.env) text += "export " + name + "=" + shell_word(value) + "\n";
  return text +
         "# srun does not inherit --cpus-per-task from sbatch (Slurm 22.05 and later).\n"
         "export SRUN_CPUS_PER_TASK=\"$SLURM_CPUS_PER_TASK\"\n"
         "# CUDA_VISIBLE_DEVICES: set by Slurm for the GPUs it allocates; not overridden.\n";
}

/// One srun task per node printing its host, its GPUs (count x model from nvidia-smi, models
/// joined by " + ", its standard error left out; "no nvidia-smi"; "nvidia-smi failed (exit N):
/// the first line of its standard error, else of its output";
/// "none") and the fabric variables in force (NCCL_*, FI_*, UCX_*, by name; a value with other
/// than letters, digits and ._,:@+/=^%- printed shell-quoted, so a line break cannot fake one;
/// "none"), so a failed sweep can be diagnosed from the job's output. Control characters in
/// nvidia-smi's output print as '?'. The task's own failure is reported, not fatal.
std::string preflight(const SlurmSettings& s) {
  if (!s.preflight) return "";
  return R"sh(# Preflight ([slurm] preflight = false leaves it out): each node's GPUs and fabric variables.
srun --ntasks-per-node=1 --ntasks="$SLURM_JOB_NUM_NODES" bash -o pipefail -c '
printable() { tr -d "\r" | tr -c "[:print:]\n" "?" | grep -v "^ *$"; }
gpus="no nvidia-smi"
if command -v nvidia-smi >/dev/null; then
  if names=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null); then
    gpus=$(printf "%s\n" "$names" | printable | sort | uniq -c |
      sed -E "s/^ *([0-9]+) /\1 x /" | paste -sd "\t" - | sed "s/\t/ + /g")
  else
    status=$?
    reason=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>&1 >/dev/null | printable | head -n 1)
    [ -n "$reason" ] || reason=$(printf "%s\n" "$names" | printable | head -n 1)
    gpus="nvidia-smi failed (exit $status): ${reason:-no output}"
  fi
fi
fabric=""
for name in $(compgen -v | grep -E "^(NCCL|FI|UCX)_" | sort); do
  value=${!name}
  case "$value" in *[!A-Za-z0-9._,:@+/=^%-]*) value=$(printf "%q" "$value") ;; esac
  fabric+=" $name=$value"
done
echo "preflight: $(hostname): GPUs: ${gpus:-none}; fabric:${fabric:- none}"' || echo "preflight: srun failed"
)sh";
}

/// pyxis' srun options for the container, each followed by a blank; "" without one.
std::string container_options(const SlurmSettings& s) {
  if (s.container_image.empty()) return "";
  std::string text = "--container-image=" + s.container_image + " ";
  if (!s.container_mounts.empty())
    text += "--container-mounts=" + job::detail::join(s.container_mounts, ",") + " ";
  if (!s.container_workdir.empty()) text += "--container-workdir=" + s.container_workdir + " ";
  return text;
}

std::string launch(const Allocation& a, const SlurmSettings& s) {
  const std::string run = shell_word(s.scaletune) + " run " + shell_word(s.job_file) + " --out " +
                          shell_word(s.out_file) + " --resume --ranks " + join(a.rank_counts, ",");
  std::string srun = "srun --mpi=pmix " + container_options(s);
  for (const std::string& option : s.srun_args) srun += option + " ";
  return s.launcher == "mpirun" ? "mpirun -np \"$SLURM_NTASKS\" " + run + "\n" : srun + run + "\n";
}

std::string script_text(const Allocation& a, const SlurmSettings& s, bool several) {
  return directives(a, s, several) + "# scaletune sweep '" + s.job_name + "': configurations of " +
         join(a.rank_counts, ", ") + " ranks\n# in one allocation of " + std::to_string(a.nodes) +
         " node(s), at most " + std::to_string(a.tasks_per_node) +
         " ranks per node. Each configuration runs on\n# a sub-communicator that takes whole "
         "nodes first; results are added to the result file.\nset -euo pipefail\n" +
         environment(s) + preflight(s) + launch(a, s);
}

}  // namespace

SlurmSettings resolve(const job::SlurmSpec& j, const job::JobInfo& job) {
  SlurmSettings s;
  s.nodes = j.nodes;
  s.gpus_per_node = j.gpus_per_node >= 0 ? j.gpus_per_node : 8;
  s.tasks_per_node = j.tasks_per_node > 0 ? j.tasks_per_node : std::max(1, s.gpus_per_node);
  s.cpus_per_task = j.cpus_per_task > 0   ? j.cpus_per_task
                    : j.cpus_per_node > 0 ? std::max(1, j.cpus_per_node / s.tasks_per_node)
                                          : 1;
  s.cpus_per_node = j.cpus_per_node;
  s.partition = j.partition;
  s.account = j.account;
  s.time = j.time;
  s.launcher = j.launcher.empty() ? "srun" : j.launcher;
  s.nccl_socket_ifname = j.nccl_socket_ifname;
  s.nccl_debug = j.nccl_debug;
  s.env = j.env;
  s.srun_args = j.srun_args;
  s.sbatch_args = j.sbatch_args;
  s.gres = j.gpus_option == "gres";
  s.preflight = j.preflight;
  s.container_image = j.container_image;
  s.container_mounts = j.container_mounts;
  s.container_workdir = j.container_workdir;
  s.job_name = job.name;
  s.out_file = job.output;
  return s;
}

std::vector<Allocation> allocations(std::span<const int> rank_counts, const SlurmSettings& s) {
  if (rank_counts.empty()) throw std::invalid_argument("no rank count to allocate for");
  const int per_node = s.tasks_per_node;
  const std::set<int> counts(rank_counts.begin(), rank_counts.end());
  Allocation shared{.nodes = 0, .tasks_per_node = per_node, .tasks = 0, .rank_counts = {}};
  std::vector<Allocation> split;
  for (int k : counts) {
    const int nodes = ceil_div(k, per_node);
    if (s.nodes > 0 && nodes > s.nodes)
      throw std::invalid_argument(
          std::to_string(k) + " ranks need " + std::to_string(nodes) + " nodes of " +
          std::to_string(per_node) + (per_node == 1 ? " rank" : " ranks") + "; " +
          std::to_string(s.nodes) + (s.nodes == 1 ? " node" : " nodes") +
          " (--nodes, else [slurm] nodes)" + (s.nodes == 1 ? " holds " : " hold ") +
          std::to_string(s.nodes * per_node));
    if (whole_nodes(k, per_node)) {
      shared.rank_counts.push_back(k);
      shared.nodes = std::max(shared.nodes, nodes);
    } else {
      split.push_back({nodes, ceil_div(k, nodes), k, {k}});
    }
  }
  std::vector<Allocation> all;
  if (!shared.rank_counts.empty()) {
    shared.nodes = std::max(shared.nodes, s.nodes);
    shared.tasks_per_node = std::min(per_node, shared.rank_counts.back());
    shared.tasks = shared.nodes * shared.tasks_per_node;
    all.push_back(shared);
  }
  all.insert(all.end(), split.begin(), split.end());
  return all;
}

bool is_script_of(std::string_view file_name, std::string_view job_name) {
  if (!file_name.starts_with(job_name)) return false;
  const std::string_view rest = file_name.substr(job_name.size());
  if (rest == kExtension) return true;
  if (!rest.starts_with('-') || !rest.ends_with(kSplitSuffix)) return false;
  const std::string_view count = rest.substr(1, rest.size() - 1 - kSplitSuffix.size());
  return !count.empty() &&
         std::ranges::all_of(count, [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::vector<BatchScript> batch_scripts(std::span<const int> rank_counts, const SlurmSettings& s) {
  const std::vector<Allocation> all = allocations(rank_counts, s);
  std::vector<BatchScript> scripts;
  for (const Allocation& a : all) {
    const bool shared = scripts.empty() && whole_nodes(a.rank_counts.front(), s.tasks_per_node);
    const std::string name =
        script_name(s.job_name, shared ? std::nullopt : std::optional(a.rank_counts.front()));
    scripts.push_back({name, script_text(a, s, all.size() > 1), a});
  }
  return scripts;
}

}  // namespace scaletune::slurm
