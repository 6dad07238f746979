#include "harness/cli/slurm_plan.hpp"

#include <filesystem>
#include <fstream>
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

void apply_count(const Args& args, const std::string& option, int& field) {
  if (args.options.contains(option)) field = parse_rank_count(option, args.option(option));
}

/// The [slurm] settings with the command line's options applied.
slurm::SlurmSettings settings(const job::JobSpec& spec, const std::string& job_path,
                              const Args& args) {
  slurm::SlurmSettings s = slurm::resolve(spec);
  apply_count(args, "--nodes", s.nodes);
  if (args.options.contains("--gpus-per-node")) {
    const std::string text = args.option("--gpus-per-node");
    s.gpus_per_node = text == "0" ? 0 : parse_rank_count("--gpus-per-node", text);
    if (spec.slurm.tasks_per_node == 0) s.tasks_per_node = std::max(1, s.gpus_per_node);
  }
  apply_count(args, "--tasks-per-node", s.tasks_per_node);
  apply_count(args, "--cpus-per-task", s.cpus_per_task);
  apply_text(args, "--partition", s.partition);
  apply_text(args, "--account", s.account);
  apply_text(args, "--time", s.time);
  if (!job::is_slurm_time(s.time) && !s.time.empty())
    throw UsageError("--time " + s.time +
                     ": expected one of Slurm's forms: minutes, MM:SS, "
                     "HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS");
  apply_text(args, "--launcher", s.launcher);
  if (s.launcher != "srun" && s.launcher != "mpirun")
    throw UsageError("--launcher " + s.launcher + ": expected srun or mpirun");
  s.scaletune = this_executable();
  s.job_file = fs::absolute(job_path).string();
  s.out_file = fs::absolute(s.out_file).string();
  return s;
}

/// Writes `text` to `path` through a temporary file and a rename.
void write_file(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  std::ofstream(tmp, std::ios::binary | std::ios::trunc) << text;
  std::error_code ec;
  if (!fs::exists(tmp) || fs::file_size(tmp, ec) != text.size()) {
    fs::remove(tmp, ec);
    throw UsageError("cannot write " + path.string());
  }
  fs::rename(tmp, path, ec);
  if (ec) throw UsageError("cannot write " + path.string() + ": " + ec.message());
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
  const fs::path dir(args.option("--slurm"));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw UsageError("--slurm " + dir.string() + ": cannot create the folder" +
                     (ec ? ": " + ec.message() : ""));
  for (const auto& script : scripts) write_file(dir / script.file_name, script.text);
  out << "scaletune plan: " << scripts.size() << " batch script" << (scripts.size() == 1 ? "" : "s")
      << " for job '" << s.job_name << "' in " << dir.string() << "\n";
  for (const auto& script : scripts)
    out << "  " << (dir / script.file_name).string() << ": " << script.allocation.nodes
        << " node(s), " << script.allocation.tasks << " ranks\n";
  out << "submit with:" << (scripts.size() > 1 ? " (they run one after another)" : "") << "\n";
  for (const auto& script : scripts)
    out << "  sbatch " << (dir / script.file_name).string() << "\n";
}

}  // namespace scaletune::cli
