#include "harness/job/detail/job_file.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "harness/job/job_error.hpp"

namespace scaletune::job::detail {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw JobError(path, 0, 0, "", message);
}

void check_regular_file(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) fail(path, "job file not found; expected the path of a TOML job file");
  if (fs::is_directory(status)) fail(path, "is a directory; expected the path of a TOML job file");
  if (!fs::is_regular_file(status))
    fail(path,
         "is not a regular file (a device, FIFO or socket); expected the path of a TOML job file");
}

}  // namespace

std::string read_job_file_text(const std::string& path) {
  check_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "job file cannot be opened for reading");
  // Read one byte past the limit, so a file that grew after the check is still caught.
  std::string text(kMaxJobFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) fail(path, "job file cannot be read");
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxJobFileBytes)
    fail(path, "job file is larger than 1 MiB; is it a job file?");
  return text;
}

}  // namespace scaletune::job::detail
