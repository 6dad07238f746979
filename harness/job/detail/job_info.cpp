#include "harness/job/detail/job_info.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <optional>
#include <string_view>

#include "harness/job/detail/table_reader.hpp"

namespace scaletune::job::detail {
namespace {

constexpr std::array<std::string_view, 2> kKeys = {"name", "output"};
constexpr std::size_t kMaxNameLength = 128;

bool name_character(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
}

bool control_character(char c) {
  return std::iscntrl(static_cast<unsigned char>(c)) != 0;
}

std::string read_name(const TableReader& job) {
  job.require("name", "a non-empty string");
  std::string name = job.string("name").value();
  if (!valid_name(name))
    job.fail(*job.find("name"), "name",
             "name must be 1 to 128 characters of A-Z a-z 0-9 . _ - and must not start with '.' "
             "or '-' (it names the result file results/<name>.h5), e.g. \"resnet50-scaling\"");
  return name;
}

std::string read_output(const TableReader& job, const std::string& name) {
  const std::optional<std::string> output = job.string("output");
  if (!output) return "results/" + name + ".h5";
  if (std::ranges::any_of(*output, control_character))
    job.fail(*job.find("output"), "output",
             "output must not contain control characters such as NUL or newline");
  if (std::filesystem::path(*output).extension() != ".h5")
    job.fail(*job.find("output"), "output",
             "output must be the path of a file ending in \".h5\" (an HDF5 result file), e.g. "
             "\"results/" +
                 name + ".h5\"");
  return *output;
}

}  // namespace

bool valid_name(std::string_view name) {
  return !name.empty() && name.size() <= kMaxNameLength && name.front() != '.' &&
         name.front() != '-' && std::ranges::all_of(name, name_character);
}

JobInfo read_job_info(const TableReader& job) {
  job.reject_unknown_keys(kKeys);
  JobInfo info;
  info.name = read_name(job);
  info.output = read_output(job, info.name);
  return info;
}

}  // namespace scaletune::job::detail
