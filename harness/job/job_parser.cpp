#include "harness/job/job_parser.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>

#include <toml++/toml.h>

#include "harness/job/detail/sweep_table.hpp"
#include "harness/job/detail/table_reader.hpp"
#include "harness/job/detail/workload_kinds.hpp"
#include "harness/job/job_error.hpp"

namespace scaletune::job {
namespace {

using detail::TableReader;

constexpr std::array<std::string_view, 5> kTables = {"job", "workload", "sweep", "run", "comm"};
constexpr std::array<std::string_view, 2> kJobKeys = {"name", "output"};
constexpr std::array<std::string_view, 4> kRunKeys = {"warmup", "iterations", "timeout_s", "seed"};
constexpr std::array<std::string_view, 2> kCommKeys = {"backend", "bucket_mib"};
constexpr std::array<std::string_view, 3> kBackends = {"mpi", "nccl", "auto"};

/// TOML++ reports a repeated key as "... cannot redefine existing integer 'iterations'".
std::string redefined_key(std::string_view description) {
  if (description.find("cannot redefine existing") == std::string_view::npos) return {};
  const std::size_t close = description.rfind('\'');
  if (close == std::string_view::npos || close == 0) return {};
  const std::size_t open = description.rfind('\'', close - 1);
  if (open == std::string_view::npos) return {};
  return std::string(description.substr(open + 1, close - open - 1));
}

toml::table parse_toml(const std::string& text, const std::string& path) {
  try {
    return toml::parse(std::string_view(text), std::string_view(path));
  } catch (const toml::parse_error& e) {
    const std::string key = redefined_key(e.description());
    const std::string message = key.empty() ? "TOML syntax error: " + std::string(e.description())
                                            : "key defined twice; keep one definition";
    throw JobError(path, static_cast<int>(e.source().begin.line),
                   static_cast<int>(e.source().begin.column), key, message);
  }
}

JobInfo read_job_info(const TableReader& job) {
  job.reject_unknown_keys(kJobKeys);
  job.require("name", "a non-empty string");
  JobInfo info;
  info.name = job.string("name").value();
  info.output = job.string("output").value_or("results/" + info.name + ".h5");
  return info;
}

RunSpec read_run(const TableReader& run) {
  run.reject_unknown_keys(kRunKeys);
  RunSpec spec;
  spec.warmup = static_cast<int>(run.integer("warmup", 0).value_or(spec.warmup));
  spec.iterations = static_cast<int>(run.integer("iterations", 1).value_or(spec.iterations));
  spec.timeout_s = run.positive_number("timeout_s").value_or(spec.timeout_s);
  const std::int64_t seed_max = std::numeric_limits<std::int64_t>::max();
  spec.seed = static_cast<std::uint64_t>(
      run.integer("seed", 0, seed_max).value_or(static_cast<std::int64_t>(spec.seed)));
  return spec;
}

CommSpec read_comm(const TableReader& comm) {
  comm.reject_unknown_keys(kCommKeys);
  CommSpec spec;
  spec.backend = comm.choice("backend", kBackends).value_or(spec.backend);
  if (spec.backend == "nccl")
    comm.fail(*comm.find("backend"), "backend",
              "backend 'nccl' is not available in this version (no NCCL communicator yet); use "
              "\"mpi\" or \"auto\"");
  spec.bucket_mib = comm.positive_number("bucket_mib").value_or(spec.bucket_mib);
  return spec;
}

std::string read_text(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status))
    throw JobError(path, 0, 0, "", "job file not found; expected the path of a TOML job file");
  if (fs::is_directory(status))
    throw JobError(path, 0, 0, "", "is a directory; expected the path of a TOML job file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw JobError(path, 0, 0, "", "job file cannot be opened for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw JobError(path, 0, 0, "", "job file cannot be read");
  return text.str();
}

}  // namespace

JobSpec parse_job_file(const std::string& path) {
  return parse_job_text(read_text(path), path);
}

JobSpec parse_job_text(const std::string& text, const std::string& path) {
  const toml::table root = parse_toml(text, path);
  const TableReader top(&root, "", path);
  top.reject_unknown_keys(kTables);
  JobSpec spec;
  spec.path = path;
  spec.toml_text = text;
  spec.job = read_job_info(top.table("job"));
  spec.workload = detail::read_workload(top.table("workload"));
  spec.sweep = detail::read_sweep(top.table("sweep"));
  spec.run = read_run(top.table("run"));
  spec.comm = read_comm(top.table("comm"));
  return spec;
}

}  // namespace scaletune::job
