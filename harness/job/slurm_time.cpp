#include "harness/job/slurm_time.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace scaletune::job {
namespace {

bool all_digits(std::string_view field) {
  return !field.empty() &&
         std::ranges::all_of(field, [](unsigned char c) { return std::isdigit(c) != 0; });
}

/// The ':'-separated fields of `text`, each digits, at most `max` of them.
bool digit_fields(std::string_view text, std::size_t max) {
  std::size_t count = 0;
  for (std::size_t begin = 0, end = 0; end != std::string_view::npos; begin = end + 1) {
    end = text.find(':', begin);
    if (!all_digits(text.substr(begin, end - begin)) || ++count > max) return false;
  }
  return true;
}

}  // namespace

bool is_slurm_time(std::string_view time) {
  if (time == "infinite" || time == "UNLIMITED") return true;
  const std::size_t dash = time.find('-');
  if (dash == std::string_view::npos) return digit_fields(time, 3);
  return all_digits(time.substr(0, dash)) && digit_fields(time.substr(dash + 1), 3);
}

namespace {

bool only(std::string_view text, std::string_view punctuation) {
  return !text.empty() && std::ranges::all_of(text, [&](unsigned char c) {
    return std::isalnum(c) != 0 || punctuation.find(static_cast<char>(c)) != std::string_view::npos;
  });
}

}  // namespace

std::string_view slurm_option_name(std::string_view word) {
  const std::string_view rest = word.starts_with("--") ? word.substr(2) : word;
  return rest.substr(0, rest.find('='));
}

bool is_written_sbatch_option(std::string_view name) {
  constexpr std::array<std::string_view, 14> written = {
      "job-name",      "nodes",     "ntasks", "ntasks-per-node", "gpus-per-node", "gres",
      "cpus-per-task", "exclusive", "output", "partition",       "account",       "time",
      "dependency",    "wrap"};
  return std::ranges::find(written, name) != written.end();
}

bool is_written_srun_option(std::string_view name) {
  constexpr std::array<std::string_view, 4> written = {"mpi", "container-image", "container-mounts",
                                                       "container-workdir"};
  return std::ranges::find(written, name) != written.end();
}

bool is_reserved_environment_name(std::string_view name) {
  constexpr std::array<std::string_view, 7> exact = {
      "PATH", "BASH_ENV", "ENV", "IFS", "SHELLOPTS", "BASHOPTS", "CUDA_VISIBLE_DEVICES"};
  return name.starts_with("SLURM_") || name.starts_with("SRUN_") || name.starts_with("SBATCH_") ||
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

bool is_container_mount(std::string_view mount) {
  const std::size_t first = mount.find(':');
  if (first == std::string_view::npos) return false;
  const std::string_view rest = mount.substr(first + 1);
  const std::size_t second = rest.find(':');
  const std::string_view flags = second == std::string_view::npos ? "" : rest.substr(second + 1);
  return is_container_path(mount.substr(0, first)) && is_container_path(rest.substr(0, second)) &&
         (second == std::string_view::npos || only(flags, "+"));
}

bool is_environment_name(std::string_view name) {
  return !name.empty() &&
         (std::isupper(static_cast<unsigned char>(name[0])) != 0 || name[0] == '_') &&
         std::ranges::all_of(name, [](unsigned char c) {
           return std::isupper(c) != 0 || std::isdigit(c) != 0 || c == '_';
         });
}

bool is_environment_value(std::string_view value) {
  return !value.empty() && std::ranges::all_of(value, [](unsigned char c) {
    return std::isalnum(c) != 0 ||
           std::string_view("._,:@+-/=^%").find(static_cast<char>(c)) != std::string_view::npos;
  });
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

bool is_slurm_word(std::string_view value) {
  return !value.empty() && std::ranges::all_of(value, [](unsigned char c) {
    return std::isalnum(c) != 0 ||
           std::string_view("._,:@+-").find(static_cast<char>(c)) != std::string_view::npos;
  });
}

}  // namespace scaletune::job
