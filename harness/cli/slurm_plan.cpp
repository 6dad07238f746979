#include "harness/cli/slurm_plan.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <vector>

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

/// The blank-separated words of `option`'s value, each checked by `valid` (`form` in the
/// message); the job's list when the option is absent.
void apply_words(const Args& args, const std::string& option, bool (*valid)(std::string_view),
                 std::string_view form, std::vector<std::string>& field) {
  if (!args.options.contains(option)) return;
  std::istringstream words(args.option(option));
  field.clear();
  for (std::string word; words >> word;) {
    if (!valid(word))
      throw UsageError(option + " '" + job::printable(word) + "': expected " + std::string(form));
    field.push_back(word);
  }
  if (field.empty()) throw UsageError(option + " needs a value");
}

/// --srun-args or --sbatch-args over the job's list; an option the script writes itself
/// (`written`) is refused.
void apply_options(const Args& args, const std::string& option, bool (*written)(std::string_view),
                   std::vector<std::string>& field) {
  apply_words(args, option, job::is_slurm_option, job::kSlurmOptionForm, field);
  if (!args.options.contains(option)) return;
  for (const std::string& word : field)
    if (written(job::slurm_option_name(word)))
      throw UsageError(option + " '" + word + "': the script writes --" +
                       std::string(job::slurm_option_name(word)) +
                       " itself; use its own option or [slurm] key");
}

/// --env "NAME=value NAME=value": replaces the job's [slurm.env].
void apply_env(const Args& args, std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> words;
  apply_words(
      args, "--env",
      [](std::string_view w) {
        const std::size_t eq = w.find('=');
        return eq != std::string_view::npos && job::is_environment_name(w.substr(0, eq)) &&
               job::is_environment_value(w.substr(eq + 1));
      },
      "NAME=value, NAME of the form [A-Z_][A-Z0-9_]* and value of letters, digits and "
      "._,:@+-/=^%",
      words);
  if (words.empty()) return;
  env.clear();
  for (const std::string& w : words) {
    const std::string name = w.substr(0, w.find('='));
    if (job::is_reserved_environment_name(name))
      throw UsageError("--env " + name +
                       ": the batch script itself relies on it (SLURM_*, SRUN_*, SBATCH_*, PATH, "
                       "CUDA_VISIBLE_DEVICES, ...)");
    if (std::ranges::any_of(env, [&](const auto& e) { return e.first == name; }))
      throw UsageError("--env " + name + " is given twice; give each variable once");
    env.emplace_back(name, w.substr(w.find('=') + 1));
  }
}

/// --container-image, --container-mounts SRC:DST,... and --container-workdir over the job's.
void apply_container(const Args& args, job::SlurmSpec& slurm) {
  apply_text(args, "--container-image", slurm.container_image);
  if (args.options.contains("--container-image") && !job::is_container_image(slurm.container_image))
    throw UsageError("--container-image " + slurm.container_image + ": expected " +
                     std::string(job::kContainerImageCharacters));
  if (args.options.contains("--container-mounts")) {
    slurm.container_mounts = comma_list(args.option("--container-mounts"));
    for (const std::string& mount : slurm.container_mounts)
      if (!job::is_container_mount(mount))
        throw UsageError("--container-mounts '" + mount + "': expected " +
                         std::string(job::kContainerMountForm));
  }
  apply_text(args, "--container-workdir", slurm.container_workdir);
  if (args.options.contains("--container-workdir") &&
      !job::is_container_path(slurm.container_workdir))
    throw UsageError("--container-workdir " + slurm.container_workdir + ": expected " +
                     std::string(job::kContainerPathForm));
  const bool container = !slurm.container_image.empty() || !slurm.container_mounts.empty() ||
                         !slurm.container_workdir.empty();
  if (container && slurm.container_image.empty())
    throw UsageError(
        "container mounts or a workdir need a container image (--container-image, "
        "else [slurm] container_image)");
  if (container && slurm.launcher == "mpirun")
    throw UsageError("a container (pyxis' srun --container-*) needs the srun launcher, not mpirun");
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
  apply_options(args, "--srun-args", job::is_written_srun_option, slurm.srun_args);
  apply_options(args, "--sbatch-args", job::is_written_sbatch_option, slurm.sbatch_args);
  apply_text(args, "--gpus-option", slurm.gpus_option);
  if (!slurm.gpus_option.empty() && slurm.gpus_option != "gpus-per-node" &&
      slurm.gpus_option != "gres")
    throw UsageError("--gpus-option " + slurm.gpus_option + ": expected gpus-per-node or gres");
  apply_count(args, "--cpus-per-node", 1, job::kMaxPerNode, slurm.cpus_per_node);
  apply_container(args, slurm);
  if (!slurm.srun_args.empty() && slurm.launcher == "mpirun")
    throw UsageError(
        "srun arguments (--srun-args, else [slurm] srun_args) apply to the srun "
        "launcher, not mpirun");
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

/// "" or a warning when a container's result file is on no mount (it would stay in the
/// container): the file's path in the container (relative ones under the workdir) against each
/// mount's DST.
std::string unmounted_result_warning(const slurm::SlurmSettings& s) {
  if (s.container_image.empty()) return "";
  const fs::path out =
      fs::path(s.container_workdir.empty() ? "." : s.container_workdir) / s.out_file;
  const fs::path in_image = out.lexically_normal();
  for (const std::string& mount : s.container_mounts) {
    const std::string rest = mount.substr(mount.find(':') + 1);
    const fs::path dst = fs::path(rest.substr(0, rest.find(':'))).lexically_normal();
    const fs::path relative = in_image.lexically_relative(dst);
    if (in_image.is_absolute() && !relative.empty() && *relative.begin() != "..") return "";
  }
  if (!in_image.is_absolute())
    return "the result file " + s.out_file +
           " is relative and no container workdir is given (--container-workdir, else [slurm] "
           "container_workdir): where it lands depends on the image; give a workdir on a mount";
  return "the result file " + in_image.string() +
         " is on no container mount (--container-mounts, else [slurm] container_mounts): it "
         "would stay inside the container; give a mount that holds it";
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
  if (const std::string warning = unmounted_result_warning(s); !warning.empty())
    std::cerr << "scaletune plan: warning: " << warning << "\n";
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
