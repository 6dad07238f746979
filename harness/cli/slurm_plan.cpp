#include "harness/cli/slurm_plan.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "harness/job/slurm_extras.hpp"
#include "harness/job/slurm_time.hpp"
#include "harness/job/sweep.hpp"
#include "harness/slurm/batch_script.hpp"

namespace scaletune::cli {
namespace {

namespace fs = std::filesystem;

/// The running executable's absolute path (what the scripts run), else "scaletune".
std::string this_executable() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("scaletune") : self.string();
}

void apply_text(const Args& args, const std::string& option, std::string& field) {
  if (!args.options.contains(option)) return;
  field = args.option(option);
  if (field.empty()) throw UsageError(option + " needs a value");
}

/// A Slurm name (partition, account) written into the script as it is.
void apply_word(const Args& args, const std::string& option, std::string& field) {
  apply_text(args, option, field);
  if (args.options.contains(option) && !job::is_slurm_word(field))
    throw UsageError(option + " '" + field + "': expected " +
                     std::string(job::kSlurmWordCharacters));
}

/// A whole number in [min, max] for `option`.
void apply_count(const Args& args, const std::string& option, int min, int max, int& field) {
  if (!args.options.contains(option)) return;
  const std::string text = args.option(option);
  int value = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < min || value > max)
    throw UsageError(option + " takes a whole number from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", got '" + text + "'");
  field = value;
}

/// The blank-separated words of `option`'s value (at least one).
std::vector<std::string> words_of(const Args& args, const std::string& option) {
  std::istringstream text(args.option(option));
  std::vector<std::string> words;
  for (std::string word; text >> word;) words.push_back(word);
  if (words.empty()) throw UsageError(option + " needs a value");
  return words;
}

/// --srun-args or --sbatch-args over the job's list (extra_option_problem).
void apply_options(const Args& args, const std::string& option, job::ExtraOptions kind,
                   std::vector<std::string>& field) {
  if (!args.options.contains(option)) return;
  field = words_of(args, option);
  for (const std::string& word : field)
    if (const std::string problem = job::extra_option_problem(word, kind); !problem.empty())
      throw UsageError(option + " " + problem);
}

/// --env "NAME=value NAME=value": replaces the job's [slurm.env] (environment_problem).
void apply_env(const Args& args, std::vector<std::pair<std::string, std::string>>& env) {
  if (!args.options.contains("--env")) return;
  env.clear();
  for (const std::string& word : words_of(args, "--env")) {
    const std::size_t eq = word.find('=');
    if (eq == std::string::npos)
      throw UsageError("--env '" + job::printable(word) + "': expected NAME=value");
    const std::string name = word.substr(0, eq), value = word.substr(eq + 1);
    if (const std::string problem = job::environment_problem(name, value); !problem.empty())
      throw UsageError("--env " + problem);
    if (std::ranges::any_of(env, [&](const auto& e) { return e.first == name; }))
      throw UsageError("--env " + name + " is given twice; give each variable once");
    env.emplace_back(name, value);
  }
}

/// --container-image, --container-mounts SRC:DST,... and --container-workdir over the job's.
void apply_container(const Args& args, job::SlurmSpec& slurm) {
  apply_text(args, "--container-image", slurm.container_image);
  if (args.options.contains("--container-image") && !job::is_container_image(slurm.container_image))
    throw UsageError("--container-image " + job::printable(slurm.container_image) + ": expected " +
                     std::string(job::kContainerImageCharacters));
  if (args.options.contains("--container-mounts")) {
    slurm.container_mounts = comma_list(args.option("--container-mounts"));
    for (const std::string& mount : slurm.container_mounts)
      if (const std::string problem = job::container_mount_problem(mount); !problem.empty())
        throw UsageError("--container-mounts " + problem);
  }
  apply_text(args, "--container-workdir", slurm.container_workdir);
  if (args.options.contains("--container-workdir") &&
      !job::is_container_path(slurm.container_workdir))
    throw UsageError("--container-workdir " + job::printable(slurm.container_workdir) +
                     ": expected " + std::string(job::kContainerPathForm));
}

/// The job's [slurm] table with the command line's options applied, resolved.
slurm::SlurmSettings settings(const job::JobSpec& spec, const std::string& job_path,
                              const Args& args) {
  job::SlurmSpec slurm = spec.slurm;
  apply_count(args, "--nodes", 1, job::kMaxSlurmNodes, slurm.nodes);
  apply_count(args, "--gpus-per-node", 0, job::kMaxPerNode, slurm.gpus_per_node);
  apply_count(args, "--tasks-per-node", 1, job::kMaxPerNode, slurm.tasks_per_node);
  apply_count(args, "--cpus-per-task", 1, job::kMaxPerNode, slurm.cpus_per_task);
  apply_word(args, "--partition", slurm.partition);
  apply_word(args, "--account", slurm.account);
  apply_text(args, "--time", slurm.time);
  if (!slurm.time.empty() && !job::is_slurm_time(slurm.time))
    throw UsageError("--time " + slurm.time + ": expected " + std::string(job::kSlurmTimeForms));
  apply_text(args, "--launcher", slurm.launcher);
  if (!slurm.launcher.empty() && slurm.launcher != "srun" && slurm.launcher != "mpirun")
    throw UsageError("--launcher " + slurm.launcher + ": expected srun or mpirun");
  apply_env(args, slurm.env);
  apply_options(args, "--srun-args", job::ExtraOptions::srun, slurm.srun_args);
  apply_options(args, "--sbatch-args", job::ExtraOptions::sbatch, slurm.sbatch_args);
  apply_text(args, "--gpus-option", slurm.gpus_option);
  if (!slurm.gpus_option.empty() && slurm.gpus_option != "gpus-per-node" &&
      slurm.gpus_option != "gres")
    throw UsageError("--gpus-option " + slurm.gpus_option + ": expected gpus-per-node or gres");
  apply_count(args, "--cpus-per-node", 1, job::kMaxPerNode, slurm.cpus_per_node);
  apply_container(args, slurm);
  if (const auto conflict = job::slurm_conflict(slurm))
    throw UsageError(conflict->message + " (with the options given, else the job's [slurm])");
  slurm::SlurmSettings s = slurm::resolve(slurm, spec.job);
  if (!s.container_image.empty()) {  // paths as the image sees them: named as given
    s.job_file = job_path;
    return s;
  }
  s.scaletune = this_executable();
  s.job_file = fs::absolute(job_path).string();
  s.out_file = fs::absolute(s.out_file).string();
  return s;
}

/// The job's scripts from an earlier plan in `dir`: "<job>.sbatch" and "<job>-<k>ranks.sbatch".
std::vector<fs::path> earlier_scripts(const fs::path& dir, const std::string& job_name) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (slurm::is_script_of(entry.path().filename().string(), job_name))
      found.push_back(entry.path());
  return found;
}

/// Writes every script to a temporary file first; only when all are written are the earlier
/// scripts of the job removed and the new ones renamed into place. Throws UsageError (removing
/// the temporary files) when a file cannot be written.
void write_all(const fs::path& dir, const std::string& job_name,
               const std::vector<slurm::BatchScript>& scripts) {
  std::vector<fs::path> written;
  const auto fail = [&](const fs::path& path, const std::string& why) {
    std::error_code ignored;
    for (const auto& tmp : written) fs::remove(tmp, ignored);
    throw UsageError("cannot write " + path.string() + why + "; nothing written");
  };
  for (const auto& script : scripts) {
    const fs::path tmp = dir / ("." + script.file_name + ".tmp");
    std::ofstream(tmp, std::ios::binary | std::ios::trunc) << script.text;
    written.push_back(tmp);
    std::error_code ec;
    if (fs::file_size(tmp, ec) != script.text.size() || ec) fail(dir / script.file_name, "");
    if (fs::is_directory(dir / script.file_name))
      fail(dir / script.file_name, ": a folder is there");
  }
  std::error_code ec;
  for (const auto& old : earlier_scripts(dir, job_name)) fs::remove(old, ec);
  for (std::size_t k = 0; k < scripts.size(); ++k) {
    fs::rename(written[k], dir / scripts[k].file_name, ec);
    if (ec)  // the earlier scripts are gone: say so rather than "nothing written"
      throw UsageError("cannot move " + written[k].string() + " to " +
                       (dir / scripts[k].file_name).string() + ": " + ec.message() +
                       "; the job's scripts in " + dir.string() + " are incomplete, plan again");
  }
}

/// The mount of `s` whose destination holds `in_image` (absolute, normalised), the innermost
/// where several do; nullptr when none does.
const std::string* holding_mount(const slurm::SlurmSettings& s, const fs::path& in_image) {
  const std::string* holder = nullptr;
  std::ptrdiff_t depth = 0;
  for (const std::string& mount : s.container_mounts) {
    const fs::path dst = job::split_container_mount(mount).normal_destination();
    const fs::path relative = in_image.lexically_relative(dst);
    const std::ptrdiff_t parts = std::distance(dst.begin(), dst.end());
    if (!relative.empty() && *relative.begin() != ".." && (holder == nullptr || parts > depth)) {
      holder = &mount;
      depth = parts;
    }
  }
  return holder;
}

/// "" or a warning when `what` (the job file or the result file, at `path` as the script names it
/// in the container; relative ones under the workdir) is on no container mount, so the
/// container would not see it or would keep it, or, when it is `written`, on a read-only one.
std::string unmounted_warning(const slurm::SlurmSettings& s, const std::string& what,
                              const std::string& path, const std::string& consequence,
                              bool written) {
  const fs::path in_image =
      (fs::path(s.container_workdir.empty() ? "." : s.container_workdir) / path).lexically_normal();
  if (!in_image.is_absolute())
    return what + " " + path +
           " is relative and no container workdir is given (--container-workdir, else [slurm] "
           "container_workdir): where it is depends on the image; give a workdir on a mount";
  const std::string* mount = holding_mount(s, in_image);
  if (mount == nullptr)
    return what + " " + in_image.string() +
           " is on no container mount (--container-mounts, else [slurm] container_mounts): " +
           consequence + "; give a mount that holds it";
  if (written && job::split_container_mount(*mount).read_only())
    return what + " " + in_image.string() + " is on the read-only mount " + *mount +
           ": the sweep cannot write it; mount it without ro";
  return "";
}

/// The warnings of a container's script: its job file or result file on no mount, its result
/// file on a read-only one.
std::vector<std::string> container_warnings(const slurm::SlurmSettings& s) {
  if (s.container_image.empty()) return {};
  return {unmounted_warning(s, "the job file", s.job_file, "the container would not see it", false),
          unmounted_warning(s, "the result file", s.out_file, "it would stay inside the container",
                            true)};
}

/// "" or a warning when the CPUs the fullest node of `scripts` asks for (its --ntasks-per-node x
/// cpus_per_task) exceed the node's stated cpus_per_node: Slurm then refuses the allocation, or
/// ranks share cores.
std::string oversubscribed_node_warning(const slurm::SlurmSettings& s,
                                        const std::vector<slurm::BatchScript>& scripts) {
  if (s.cpus_per_node == 0) return "";
  const slurm::BatchScript& fullest = *std::ranges::max_element(
      scripts, {}, [](const slurm::BatchScript& b) { return b.allocation.tasks_per_node; });
  const int ranks = fullest.allocation.tasks_per_node, asked = ranks * s.cpus_per_task;
  if (asked <= s.cpus_per_node) return "";
  return fullest.file_name + " puts " + std::to_string(ranks) + " rank(s) on a node x " +
         std::to_string(s.cpus_per_task) + " CPU(s) per task = " + std::to_string(asked) +
         " CPUs, more than the node's " + std::to_string(s.cpus_per_node) +
         " (cpus_per_node): Slurm refuses the allocation, or ranks share cores; lower the ranks "
         "per node (tasks_per_node) or cpus_per_task";
}

}  // namespace

void write_slurm_scripts(const job::JobSpec& spec, const std::string& job_path, const Args& args,
                         std::ostream& out) {
  const slurm::SlurmSettings s = settings(spec, job_path, args);
  std::vector<int> counts;
  for (const job::Config& c : job::expand_sweep(spec)) counts.push_back(c.ranks);
  std::vector<slurm::BatchScript> scripts;
  try {
    scripts = slurm::batch_scripts(counts, s);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  std::vector<std::string> warnings = container_warnings(s);
  warnings.push_back(oversubscribed_node_warning(s, scripts));
  for (const std::string& warning : warnings)
    if (!warning.empty()) std::cerr << "scaletune plan: warning: " << warning << "\n";
  const fs::path dir(args.option("--slurm"));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw UsageError("--slurm " + dir.string() + ": cannot create the folder" +
                     (ec ? ": " + ec.message() : ""));
  const std::size_t replaced = earlier_scripts(dir, s.job_name).size();
  write_all(dir, s.job_name, scripts);
  out << "scaletune plan: " << scripts.size() << " batch script" << (scripts.size() == 1 ? "" : "s")
      << " for job '" << s.job_name << "' in " << dir.string()
      << (replaced > 0 ? " (replacing " + std::to_string(replaced) + " earlier)" : "") << "\n";
  for (const auto& script : scripts)
    out << "  " << (dir / script.file_name).string() << ": " << script.allocation.nodes
        << " node(s), " << script.allocation.tasks << " ranks\n";
  out << "submit with:" << (scripts.size() > 1 ? " (they run one after another)" : "") << "\n";
  for (const auto& script : scripts)
    out << "  sbatch " << (dir / script.file_name).string() << "\n";
}

}  // namespace scaletune::cli
