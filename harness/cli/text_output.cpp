#include "harness/cli/text_output.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "harness/cli/args.hpp"
#include "harness/results/result_error.hpp"

namespace scaletune::cli {
namespace {

// True when `path` starts with the HDF5 signature (HDF5 spec, "Format Signature").
bool is_hdf5_file(const std::filesystem::path& path) {
  static constexpr char kSignature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  char head[8] = {};
  std::ifstream in(path, std::ios::binary);
  return in.read(head, sizeof head) && std::equal(head, head + 8, kSignature);
}

// Throws UsageError unless the output's folder (or, where it does not exist yet, the nearest
// folder above it that does) can be written.
void expect_writable_folder(const TextOutput& output, const std::string& path) {
  std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
  while (!std::filesystem::exists(folder) && folder.has_parent_path() &&
         folder != folder.parent_path())
    folder = folder.parent_path();
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw UsageError("cannot write the " + output.noun + " " + path + ": " + folder.string() +
                     " is not writable (" + std::strerror(errno) + ")");
}

}  // namespace

void check_output_path(const TextOutput& output, const std::string& path) {
  const std::filesystem::path target(path);
  if (path.empty() || !target.has_filename())
    throw UsageError(output.option + " needs a file name, e.g. " + output.option + " " +
                     output.example);
  if (std::filesystem::is_directory(target))
    throw UsageError(output.option + " " + path + " is a directory; give a file name inside it");
  if (is_hdf5_file(target))
    throw UsageError(output.option + " " + path + " is an HDF5 file; a " + output.noun +
                     " never replaces results");
  expect_writable_folder(output, path);
}

void write_text_output(const TextOutput& output, const std::string& path, const std::string& text) {
  const std::filesystem::path target(path);
  const std::filesystem::path tmp = target.string() + ".tmp";
  std::error_code ec;
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  {
    errno = 0;
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) ec = std::error_code(errno != 0 ? errno : EIO, std::generic_category());
  }
  if (!ec) std::filesystem::rename(tmp, target, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    const std::string what = "cannot write the " + output.noun + " " + path + ": " + ec.message();
    if (results::is_out_of_room(ec.value())) throw results::WriteError(what, ec.value());
    throw UsageError(what);
  }
}

}  // namespace scaletune::cli
