#include "harness/job/slurm_extras.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>

namespace scaletune::job {

namespace {

bool only(std::string_view text, std::string_view punctuation) {
  return !text.empty() && std::ranges::all_of(text, [&](unsigned char c) {
    return std::isalnum(c) != 0 || punctuation.find(static_cast<char>(c)) != std::string_view::npos;
  });
}

/// The option of `written` that `name` is or abbreviates (Slurm takes an unambiguous
/// abbreviation of a long option as the option: --nod for --nodes); "" when none.
template <std::size_t N>
std::string_view named_or_abbreviated(std::string_view name,
                                      const std::array<std::string_view, N>& written) {
  if (name.empty()) return "";
  if (const auto exact = std::ranges::find(written, name); exact != written.end()) return *exact;
  const auto longer =
      std::ranges::find_if(written, [&](std::string_view w) { return w.starts_with(name); });
  return longer == written.end() ? "" : *longer;
}

/// "'A' and 'B' both mount onto DST; ..." for the first two mounts onto one destination (compared
/// as normalised paths), "" when there are none.
std::string mounted_twice(const std::vector<std::string>& mounts) {
  std::vector<std::string> destinations;
  for (const std::string& mount : mounts) {
    const std::string destination = split_container_mount(mount).normal_destination();
    const auto earlier = std::ranges::find(destinations, destination);
    if (earlier != destinations.end())
      return "'" + mounts[static_cast<std::size_t>(earlier - destinations.begin())] + "' and '" +
             mount + "' both mount onto " + destination + "; give each destination once";
    destinations.push_back(destination);
  }
  return "";
}

}  // namespace

std::string_view slurm_option_name(std::string_view word) {
  const std::string_view rest = word.starts_with("--") ? word.substr(2) : word;
  return rest.substr(0, rest.find('='));
}

std::string_view written_sbatch_option(std::string_view name) {
  constexpr std::array<std::string_view, 18> written = {
      "job-name",      "nodes",      "ntasks",        "ntasks-per-node", "gpus-per-node",
      "gres",          "gpus",       "tres-per-node", "cpus-per-gpu",    "ntasks-per-gpu",
      "cpus-per-task", "exclusive",  "output",        "partition",       "account",
      "time",          "dependency", "wrap"};
  return named_or_abbreviated(name, written);
}

std::string_view written_srun_option(std::string_view name) {
  constexpr std::array<std::string_view, 8> written = {
      "mpi",   "container-image", "container-mounts", "container-workdir",
      "nodes", "ntasks",          "ntasks-per-node",  "cpus-per-task"};
  return named_or_abbreviated(name, written);
}

bool is_reserved_environment_name(std::string_view name) {
  constexpr std::array<std::string_view, 10> exact = {
      "PATH",     "BASH_ENV",        "ENV",        "IFS",        "SHELLOPTS",
      "BASHOPTS", "POSIXLY_CORRECT", "GLOBIGNORE", "EXECIGNORE", "CUDA_VISIBLE_DEVICES"};
  constexpr std::array<std::string_view, 6> prefixes = {"SLURM_", "SRUN_", "SBATCH_",
                                                        "OMPI_",  "PMIX_", "PMI_"};
  return std::ranges::any_of(prefixes, [&](std::string_view p) { return name.starts_with(p); }) ||
         std::ranges::find(exact, name) != exact.end();
}

std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
      continue;
    }
    constexpr const char* kHex = "0123456789abcdef";
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 0xf];
  }
  return out;
}

bool is_container_image(std::string_view image) {
  return only(image, "._:@+-/#=%");
}

bool is_container_path(std::string_view path) {
  return path.starts_with('/') && only(path, "._+-/");
}

bool ContainerMount::read_only() const {
  return ("+" + flags + "+").find("+ro+") != std::string::npos;
}

std::string ContainerMount::normal_destination() const {
  std::string normal = std::filesystem::path(destination).lexically_normal().string();
  if (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

ContainerMount split_container_mount(std::string_view mount) {
  const std::size_t first = mount.find(':');
  const std::string_view rest = mount.substr(first + 1);
  const std::size_t second = rest.find(':');
  return ContainerMount{
      .source = std::string(mount.substr(0, first)),
      .destination = std::string(rest.substr(0, second)),
      .flags = second == std::string_view::npos ? "" : std::string(rest.substr(second + 1))};
}

bool is_container_mount(std::string_view mount) {
  if (mount.find(':') == std::string_view::npos) return false;
  const ContainerMount m = split_container_mount(mount);
  const bool has_flags = std::ranges::count(mount, ':') > 1;
  return is_container_path(m.source) && is_container_path(m.destination) &&
         (!has_flags || only(m.flags, "+"));
}

bool is_environment_name(std::string_view name) {
  return !name.empty() &&
         (std::isupper(static_cast<unsigned char>(name[0])) != 0 || name[0] == '_') &&
         std::ranges::all_of(name, [](unsigned char c) {
           return std::isupper(c) != 0 || std::isdigit(c) != 0 || c == '_';
         });
}

bool is_environment_value(std::string_view value) {
  return only(value, "._,:@+-/=^%");
}

bool is_slurm_option(std::string_view word) {
  if (!word.starts_with("--")) return false;
  const std::string_view rest = word.substr(2);
  const std::size_t equals = rest.find('=');
  const std::string_view name = rest.substr(0, equals);
  const bool name_ok = !name.empty() && std::islower(static_cast<unsigned char>(name[0])) != 0 &&
                       std::ranges::all_of(name, [](unsigned char c) {
                         return std::islower(c) != 0 || std::isdigit(c) != 0 || c == '-';
                       });
  return name_ok &&
         (equals == std::string_view::npos || is_environment_value(rest.substr(equals + 1)));
}

std::string environment_problem(std::string_view name, std::string_view value) {
  const std::string shown = printable(name);
  if (!is_environment_name(name))
    return "variable name '" + shown + "' is not of the form " + std::string(kEnvironmentNameForm);
  if (is_reserved_environment_name(name))
    return shown +
           ": the batch script, Slurm or the MPI launcher sets or relies on it (SLURM_*, SRUN_*, "
           "SBATCH_*, OMPI_*, PMIX_*, PMI_*, PATH, CUDA_VISIBLE_DEVICES, shell settings); it "
           "cannot be exported";
  if (!is_environment_value(value))
    return shown + " may hold " + std::string(kEnvironmentValueCharacters) + ", got \"" +
           printable(value) + "\"";
  return "";
}

std::string extra_option_problem(std::string_view word, ExtraOptions kind) {
  const std::string shown = "'" + printable(word) + "'";
  if (!is_slurm_option(word)) return shown + ": expected " + std::string(kSlurmOptionForm);
  const std::string_view name = slurm_option_name(word);
  const std::string_view written =
      kind == ExtraOptions::srun ? written_srun_option(name) : written_sbatch_option(name);
  if (written.empty()) return "";
  return shown + ": " +
         (written == name ? "" : "Slurm takes it as --" + std::string(written) + ", and ") +
         "the script sets --" + std::string(written) +
         " itself or from its allocation; set it through its own [slurm] key or option";
}

std::string container_mount_problem(std::string_view mount) {
  if (is_container_mount(mount)) return "";
  return "'" + printable(mount) + "': expected " + std::string(kContainerMountForm);
}

std::optional<SlurmConflict> slurm_conflict(const SlurmSpec& s) {
  if (s.container_image.empty()) {
    if (!s.container_mounts.empty())
      return SlurmConflict{"container_mounts", "container_mounts needs container_image"};
    if (!s.container_workdir.empty())
      return SlurmConflict{"container_workdir", "container_workdir needs container_image"};
  }
  if (const std::string twice = mounted_twice(s.container_mounts); !twice.empty())
    return SlurmConflict{"container_mounts", twice};
  if (s.launcher != "mpirun") return std::nullopt;
  if (!s.container_image.empty())
    return SlurmConflict{"container_image",
                         "container_image applies to launcher = \"srun\" (pyxis' srun "
                         "--container-*); the launcher is mpirun"};
  if (!s.srun_args.empty())
    return SlurmConflict{"srun_args",
                         "srun_args apply to launcher = \"srun\"; the launcher is mpirun"};
  return std::nullopt;
}

}  // namespace scaletune::job
