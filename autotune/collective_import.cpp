#include "autotune/collective_import.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace scaletune::autotune {

namespace {

constexpr std::array kKinds = {LogKind::nccl_tests, LogKind::osu};

[[noreturn]] void fail_to_read(const std::string& path, const std::string& reason) {
  throw std::invalid_argument(path + ": cannot read the log: " + reason);
}

/// The whole text of the regular file `path`.
std::string read_text(const std::string& path) {
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  if (type == std::filesystem::file_type::not_found) fail_to_read(path, "no such file");
  if (ec) fail_to_read(path, ec.message());
  if (type != std::filesystem::file_type::regular)
    fail_to_read(path, "not a regular file (give the log file itself)");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in) fail_to_read(path, errno != 0 ? std::strerror(errno) : "read error");
  return text.str();
}

}  // namespace

const char* to_string(LogKind kind) {
  return kind == LogKind::osu ? "osu" : "nccl-tests";
}

std::optional<LogKind> log_kind_from_string(std::string_view name) {
  for (const LogKind kind : kKinds)
    if (name == to_string(kind)) return kind;
  return std::nullopt;
}

std::vector<CollectiveRow> read_collective_log(LogKind kind, const std::string& path,
                                               int osu_collective_ranks) {
  const std::string text = read_text(path);
  return kind == LogKind::osu ? parse_osu_log(text, path, osu_collective_ranks)
                              : parse_nccl_tests_log(text, path);
}

}  // namespace scaletune::autotune
