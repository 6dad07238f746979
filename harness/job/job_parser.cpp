#include "harness/job/job_parser.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include <toml++/toml.h>

#include "harness/job/detail/devices_table.hpp"
#include "harness/job/detail/job_file.hpp"
#include "harness/job/detail/job_info.hpp"
#include "harness/job/detail/slurm_table.hpp"
#include "harness/job/detail/sweep_table.hpp"
#include "harness/job/detail/table_reader.hpp"
#include "harness/job/detail/workload_kinds.hpp"
#include "harness/job/job_error.hpp"
#include "harness/job/toml_keys.hpp"

namespace scaletune::job {
namespace {

using detail::TableReader;
namespace fs = std::filesystem;

constexpr std::array<std::string_view, 8> kTables = {"job",  "workload", "sweep", "run",
                                                     "comm", "devices",  "slurm", "predict"};
constexpr std::array<std::string_view, 5> kRunKeys = {"warmup", "iterations", "timeout_s", "seed",
                                                      "timeline"};
constexpr std::array<std::string_view, 3> kCommKeys = {"backend", "bucket_mib", "overlap"};
constexpr std::array<std::string_view, 1> kPredictKeys = {"model"};
constexpr std::int64_t kMaxIterations = 1'000'000;  // warmup and iterations each
constexpr double kMaxTimeout_s = 1e7;               // about 116 days
constexpr double kMinBucketMib = 1.0 / 1024;        // 1 KiB
constexpr double kMaxBucketMib = 1 << 20;           // 1 TiB
constexpr std::string_view kBucketRange =
    ">= 1/1024 and <= 1048576 (MiB: from 1 KiB to 1 TiB), e.g. 25";

toml::table parse_toml(const std::string& text, const std::string& path) {
  try {
    return toml::parse(std::string_view(text), std::string_view(path));
  } catch (const toml::parse_error& e) {
    const toml::source_position& at = e.source().begin;
    const auto redefined = redefinition(text, e.description(), at.line, at.column);
    if (!redefined)
      throw JobError(path, static_cast<int>(at.line), static_cast<int>(at.column), "",
                     "TOML syntax error: " + std::string(e.description()));
    throw JobError(path, static_cast<int>(redefined->line), static_cast<int>(redefined->column),
                   redefined->key.empty() ? "" : redefined->key.back(),
                   "key defined twice; keep one definition");
  }
}

RunSpec read_run(const TableReader& run) {
  run.reject_unknown_keys(kRunKeys);
  RunSpec spec;
  spec.warmup = static_cast<int>(run.integer("warmup", 0, kMaxIterations).value_or(spec.warmup));
  spec.iterations =
      static_cast<int>(run.integer("iterations", 1, kMaxIterations).value_or(spec.iterations));
  spec.timeout_s = run.positive_number("timeout_s", kMaxTimeout_s).value_or(spec.timeout_s);
  const std::int64_t seed_max = std::numeric_limits<std::int64_t>::max();
  spec.seed = static_cast<std::uint64_t>(
      run.integer("seed", 0, seed_max).value_or(static_cast<std::int64_t>(spec.seed)));
  spec.timeline =
      run.choice("timeline", kTimelineModes, timeline_mode_text).value_or(spec.timeline);
  return spec;
}

/// Reads [comm] of a job whose [devices] kind is `devices`: backend "nccl" needs devices that
/// may be CUDA ones, so not devices.kind = "host".
CommSpec read_comm(const TableReader& comm, DeviceKindRequest devices) {
  comm.reject_unknown_keys(kCommKeys);
  CommSpec spec;
  spec.backend = comm.choice("backend", kCommBackends, comm_backend_text).value_or(spec.backend);
  if (spec.backend == CommBackend::nccl && devices == DeviceKindRequest::host)
    comm.fail(*comm.find("backend"), "backend",
              "comm.backend = \"nccl\" moves device buffers, but devices.kind = \"host\" keeps "
              "every rank on the host; use backend \"mpi\" or \"auto\", or devices.kind = "
              "\"cuda\" or \"auto\"");
  spec.bucket_mib = comm.number_in("bucket_mib", kMinBucketMib, kMaxBucketMib, kBucketRange)
                        .value_or(spec.bucket_mib);
  spec.overlap = comm.boolean("overlap").value_or(spec.overlap);
  return spec;
}

/// Reads [predict]: model, a path ending in ".h5" to a regular file (relative: to the job
/// file's folder).
PredictSpec read_predict(const TableReader& predict) {
  predict.reject_unknown_keys(kPredictKeys);
  PredictSpec spec;
  const std::optional<std::string> written = predict.string("model");
  if (!written) return spec;
  const fs::path path(*written);
  spec.model = path.is_absolute() || path.empty()
                   ? *written
                   : (fs::path(predict.file()).parent_path() / path).string();
  std::error_code error;
  if (!written->ends_with(".h5") || !fs::is_regular_file(spec.model, error))
    predict.fail(*predict.find("model"), "model",
                 "model '" + spec.model +
                     "' is not a readable .h5 file (relative paths are relative to the job "
                     "file's folder); expected a model file written by `scaletune fit`");
  return spec;
}

}  // namespace

std::string read_job_file_text(const std::string& path) {
  return detail::read_job_file_text(path);
}

JobSpec parse_job_file(const std::string& path) {
  return parse_job_text(read_job_file_text(path), path);
}

JobSpec parse_job_text(const std::string& text, const std::string& path) {
  const toml::table root = parse_toml(text, path);
  const TableReader top(&root, "", path);
  top.reject_unknown_keys(kTables);
  JobSpec spec;
  spec.path = path;
  spec.toml_text = text;
  spec.job = detail::read_job_info(top.table("job"));
  spec.workload = detail::read_workload(top.table("workload"));
  const TableReader devices = top.table("devices");
  const DeviceKindRequest device_kind = detail::read_device_kind(devices);
  spec.sweep = detail::read_sweep(top.table("sweep"), spec.workload, device_kind);
  spec.run = read_run(top.table("run"));
  spec.comm = read_comm(top.table("comm"), device_kind);
  spec.devices = detail::read_devices(devices, *std::ranges::max_element(spec.sweep.ranks));
  spec.slurm = detail::read_slurm(top.table("slurm"));
  spec.predict = read_predict(top.table("predict"));
  return spec;
}

}  // namespace scaletune::job
