#include "sweep_runner.hpp"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "harness/mpi/cancel_request.hpp"
#include "harness/mpi/config_kinds.hpp"
#include "harness/mpi/failure_notices.hpp"
#include "harness/mpi/failure_watch.hpp"
#include "harness/mpi/host_names.hpp"
#include "harness/mpi/mpi_error.hpp"
#include "harness/mpi/on_root.hpp"
#include "harness/mpi/progress.hpp"
#include "harness/mpi/result_lock.hpp"
#include "harness/mpi/status_agreement.hpp"
#include "harness/mpi/sub_communicator.hpp"
#include "harness/mpi/system_info.hpp"
#include "harness/mpi/watchdog.hpp"
#include "harness/results/launch_record.hpp"
#include "harness/results/result_file.hpp"

namespace scaletune::mpi {

using results::Status;

namespace {

int rank_of(MPI_Comm comm) {
  int rank = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  return rank;
}

int size_of(MPI_Comm comm) {
  int size = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_size(comm, &size));
  return size;
}

// For each configuration, whether the file already holds it as ok (broadcast from rank 0).
std::vector<char> already_ok(const std::vector<job::Config>& configs,
                             const std::set<std::string>& ok_ids, MPI_Comm world) {
  std::vector<char> done(configs.size(), 0);
  for (std::size_t k = 0; k < configs.size(); ++k) done[k] = ok_ids.contains(configs[k].id);
  SCALETUNE_MPI_CHECK(MPI_Bcast(done.data(), static_cast<int>(done.size()), MPI_CHAR, 0, world));
  return done;
}

results::ConfigResult skipped(const job::Config& config, int world_size) {
  results::ConfigResult r = describe(config);
  r.status = Status::skipped;
  r.error = "needs " + std::to_string(config.ranks) + " ranks; the launch has " +
            std::to_string(world_size);
  return r;
}

// Results already written are never lost: without --resume an existing file is left alone,
// and --resume continues only a file written by the same job file.
void check_output(const SweepOptions& options, const job::JobSpec& job) {
  const std::string& path = options.out_path;
  if (path.empty()) throw OutputError("the result file path is empty; give --out FILE.h5");
  if (!std::filesystem::exists(path)) return;
  if (!options.resume)
    throw OutputError(path + " exists; pass --resume to continue it, or choose another --out " +
                      "(scaletune never overwrites results)");
  const std::string stored = results::read_results(path).provenance.job_toml;
  if (stored != job.toml_text)
    throw OutputError(path + " holds results of a different job file (its stored job_toml " +
                      "differs from " + job.path + "); resume with the same job file, or " +
                      "choose another --out");
}

// Called on rank 0 from a watching thread when a configuration's ranks cannot finish it:
// records it (`described`: its settings and launch) with `status` and `why` unless `recorded`,
// says so, and aborts the launch.
[[noreturn]] void abort_launch(results::ConfigResult described, Status status,
                               const std::string& why, std::optional<results::ResultWriter>& writer,
                               bool recorded, MPI_Comm world) {
  if (writer && !recorded) {
    described.status = status;
    described.error = why;
    try {
      writer->write_config(described);
    } catch (const std::exception& e) {
      std::cerr << "scaletune run: could not record " << described.id << ": " << e.what()
                << std::endl;
    }
  }
  std::cerr << "scaletune run: configuration " << described.id << " " << why
            << "; the configurations before it are stored; rerun with --resume" << std::endl;
  MPI_Abort(world, 1);
  std::_Exit(1);
}

// `seconds` as the shortest decimal ("6", "22.5").
std::string seconds_text(double seconds) {
  std::ostringstream out;
  out << seconds;
  return out.str();
}

// Why the watchdog ended a configuration that outlived its hard limit (a rank stuck inside an
// iteration or a collective).
std::string stuck_reason(double timeout_s) {
  return "still running " + seconds_text(hard_limit_s(timeout_s)) +
         " s after it started (1.25 x run.timeout_s + 10 s): a rank is stuck inside an iteration "
         "or a collective; the launch was aborted";
}

// Why rank 0 ended a configuration whose ranks were left waiting for a failed one.
std::string stranded_reason(const std::string& failure, double grace_s) {
  return "failed (" + failure + "), and the other ranks had not agreed on it " +
         seconds_text(grace_s) +
         " s later (5 s + 0.1 x run.timeout_s + twice the longest step): they were left waiting "
         "for it in a collective; the launch was aborted";
}

// A barrier that ranks with `sleep` set wait in by polling every millisecond instead of spinning:
// a rank outside a configuration must not take CPU time from the ranks measuring it.
void idle_barrier(MPI_Comm world, bool sleep) {
  MPI_Request request = MPI_REQUEST_NULL;
  SCALETUNE_MPI_CHECK(MPI_Ibarrier(world, &request));
  if (!sleep) {
    SCALETUNE_MPI_CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE));
    return;
  }
  for (int done = 0; !done;) {
    SCALETUNE_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// What run_and_record needs besides the configuration.
struct SweepContext {
  const job::JobSpec& job;
  const SweepOptions& options;
  const std::vector<std::string>& hosts;  // every world rank's host (host_names), on every rank
  const results::SystemInfo& system;      // the launch's (every world rank's rows on rank 0)
  const std::string& started_utc;         // when the launch began (its created_utc)
  std::ostream& progress;                 // rank 0's output
  FailureNotices& notices;                // the launch's failure notices
};

// "on <host> device <device>" per rank of `launch` (empty without one), as the collective
// tables print them.
std::vector<std::string> rank_lines(const std::optional<results::LaunchRecord>& launch) {
  std::vector<std::string> lines;
  if (launch)
    for (const results::RankInfo& r : launch->ranks)
      lines.push_back("on " + r.host + " device " + r.device);
  return lines;
}

// Distinct hosts the ranks of `launch` ran on (0 without a launch record): the nodes its
// collective rows record.
int nodes_of(const std::optional<results::LaunchRecord>& launch) {
  std::set<std::string> hosts;
  if (launch)
    for (const results::RankInfo& r : launch->ranks) hosts.insert(r.host);
  return static_cast<int>(hosts.size());
}

// Runs the configuration on this member rank of `sub` by its kind's runner. `launch` is the
// configuration's launch record (rank 0) or empty (other ranks).
KindRun run_member(const SweepContext& ctx, const job::Config& config, const SubCommunicator& sub,
                   const std::optional<results::LaunchRecord>& launch) {
  const RankTarget target{ctx.options.make_communicator, ctx.options.rank_device,
                          ctx.options.device_kind, &ctx.notices};
  const std::vector<std::string> lines = rank_lines(launch);
  return ctx.options.kinds->run(
      {ctx.job, config, sub.get(), sub.parent_ranks(), target, lines, &ctx.progress});
}

// What run_and_record reports, the same on every rank of `world`.
struct Recorded {
  Status status = Status::ok;
  std::optional<DeviceLoss> device_lost;  // rank: in `world`
};

// Rank 0's `recorded` on every rank of `world`.
Recorded broadcast_recorded(const Recorded& recorded, MPI_Comm world) {
  int values[2] = {static_cast<int>(recorded.status),
                   recorded.device_lost ? recorded.device_lost->rank : -1};
  SCALETUNE_MPI_CHECK(MPI_Bcast(values, 2, MPI_INT, 0, world));
  Recorded out{static_cast<Status>(values[0]), std::nullopt};
  if (values[1] < 0) return out;
  const std::string message = recorded.device_lost ? recorded.device_lost->message : "";
  out.device_lost = DeviceLoss{values[1], broadcast_text(world, message, 0)};
  return out;
}

// Runs a configuration that fits the launch under a watchdog and records it on rank 0 (its
// /collectives rows first, so a crash in between repeats rows rather than losing them);
// returns its status and any device loss, the same on every rank. Collective over `world`.
Recorded run_and_record(const SweepContext& ctx, const job::Config& config,
                        std::optional<results::ResultWriter>& writer, MPI_Comm world,
                        results::ConfigResult& result) {
  const job::JobSpec& job = ctx.job;
  const int rank = rank_of(world);
  // The watchdog records only when the main thread is not using the writer (HDF5 is not
  // thread-safe) and has not recorded the configuration already.
  std::mutex writing;
  bool recorded = false;
  std::optional<results::LaunchRecord> launch;  // rank 0's, once the ranks are placed
  const auto abort_with = [&](Status status, const std::string& why) {
    const std::unique_lock lock(writing, std::try_to_lock);
    results::ConfigResult described = describe(config);
    if (lock.owns_lock()) described.launch = launch;
    abort_launch(std::move(described), status, why, writer, recorded || !lock.owns_lock(), world);
  };
  const Watchdog watchdog(hard_limit_s(job.run.timeout_s) + (rank == 0 ? 0.0 : 5.0),
                          [&] { abort_with(Status::timeout, stuck_reason(job.run.timeout_s)); });
  KindRun run;
  {
    const SubCommunicator sub(world, config.ranks, ctx.hosts);
    if (rank == 0) {
      const std::lock_guard lock(writing);
      launch = results::launch_record(ctx.system, ctx.started_utc, sub.parent_ranks());
    }
    if (sub.member()) {
      std::optional<FailureWatch> watch;  // rank 0: a failed rank the others wait for
      if (rank == 0 && ctx.notices.enabled())
        watch.emplace(
            ctx.notices,
            [&] { return stranded_grace_s(job.run.timeout_s, ctx.notices.longest_step_s()); },
            [&](const std::string& failure, double grace_s) {
              abort_with(Status::error, stranded_reason(failure, grace_s));
            });
      run = run_member(ctx, config, sub, launch);
      if (run.device_lost)
        run.device_lost->rank = sub.parent_ranks()[static_cast<std::size_t>(run.device_lost->rank)];
    }
    idle_barrier(world, !sub.member());  // ranks outside the configuration wait here, asleep
  }
  result = std::move(run.result);
  on_root<WriteFailed>(world, [&] {
    const std::lock_guard lock(writing);
    result.launch = launch;
    for (results::CollectiveResult& row : run.rows) row.nodes = nodes_of(launch);
    if (!run.rows.empty()) writer->append_collectives(run.rows);
    writer->write_config(result);
    recorded = true;
  });
  return broadcast_recorded({result.status, std::move(run.device_lost)}, world);
}

// The signal that asked a rank of `world` to stop (the largest number where ranks differ), 0
// while none did. Collective over `world`.
int agreed_cancel_signal(MPI_Comm world) {
  const int mine = cancel_signal();
  int any = 0;
  SCALETUNE_MPI_CHECK(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, world));
  return any;
}

void count(SweepSummary& s, Status status) {
  ++s.ran;
  if (status == Status::ok) ++s.ok;
  if (status == Status::oom || status == Status::timeout || status == Status::error) ++s.failed;
}

}  // namespace

SweepCancelled::SweepCancelled(int signal, const std::string& config_id, bool during)
    : std::runtime_error("cancelled by " + signal_name(signal) +
                         (during ? " during " : " before ") + config_id +
                         (during ? " (recorded as cancelled)" : "") +
                         "; the configurations before it are stored; rerun with --resume") {}

SweepStopped::SweepStopped(std::string config_id, int world_rank, std::string message)
    : std::runtime_error("stopped after " + config_id + ": the CUDA context of rank " +
                         std::to_string(world_rank) + " is unusable (" + message +
                         "); the configurations before it are stored; rerun with --resume"),
      m_config_id(std::move(config_id)),
      m_world_rank(world_rank),
      m_device_error(std::move(message)) {}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

SweepSummary run_sweep(const job::JobSpec& job, const std::vector<job::Config>& configs,
                       const SweepOptions& options, MPI_Comm world, std::ostream& progress) {
  const int rank = rank_of(world);
  const int world_size = size_of(world);
  results::Provenance provenance = options.provenance;
  provenance.created_utc = utc_now();
  provenance.job_toml = job.toml_text;
  results::SystemInfo system = gather_system_info(world, options.blas, options.device);
  system.cuda_runtime = options.cuda_runtime;
  system.nccl_version = options.nccl_version;
  // Ranks bound to a device (today: the collective benchmark on NCCL) ran on CUDA.
  system.device_kind = job::device_kind_text(options.device_kind);
  const std::vector<std::string> hosts = host_names(world);
  FailureNotices notices(world);
  const SweepContext ctx{job, options, hosts, system, provenance.created_utc, progress, notices};

  std::optional<ResultLock> lock;
  std::optional<results::ResultWriter> writer;
  std::set<std::string> ok_ids;
  std::string no_room;  // the file could not be put on disk for want of room: not bad input
  on_root<OutputError>(world, [&] {
    lock.emplace(options.out_path);
    check_output(options, job);
    try {
      writer = options.resume
                   ? results::ResultWriter::open_for_resume(options.out_path, provenance, system)
                   : results::ResultWriter::create(options.out_path, provenance, system);
    } catch (const results::WriteError& e) {
      if (!e.out_of_room()) throw;
      no_room = e.what();
      return;
    }
    for (const auto& id : writer->ok_config_ids()) ok_ids.insert(id);
  });
  on_root<WriteFailed>(world, [&] {
    if (!no_room.empty()) throw WriteFailed(no_room + "; nothing was run");
  });
  const std::vector<char> done = already_ok(configs, ok_ids, world);
  if (rank == 0)
    progress << "scaletune run: job '" << job.job.name << "', " << configs.size()
             << (configs.size() == 1 ? " configuration" : " configurations") << ", results in "
             << options.out_path << std::endl;

  SweepSummary summary;
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed_s = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  int runnable_left = 0;
  for (std::size_t k = 0; k < configs.size(); ++k)
    runnable_left += !done[k] && configs[k].ranks <= world_size;

  const int total = static_cast<int>(configs.size());
  for (int k = 0; k < total; ++k) {
    const job::Config& config = configs[static_cast<std::size_t>(k)];
    if (done[static_cast<std::size_t>(k)]) {
      ++summary.resumed;
      if (rank == 0)
        progress << "[" << k + 1 << "/" << total << "] " << config.id
                 << "  already stored as ok, not run again (--resume)" << std::endl;
      continue;
    }
    if (const int signal = agreed_cancel_signal(world); signal != 0)
      throw SweepCancelled(signal, config.id, false);
    results::ConfigResult result;
    std::optional<DeviceLoss> device_lost;
    bool cancelled = false;
    if (config.ranks > world_size) {
      result = skipped(config, world_size);
      on_root<WriteFailed>(world, [&] { writer->write_config(result); });
      ++summary.skipped;
    } else {
      notices.begin(k);
      const Recorded recorded = run_and_record(ctx, config, writer, world, result);
      count(summary, recorded.status);
      --runnable_left;
      device_lost = recorded.device_lost;
      cancelled = recorded.status == Status::cancelled;
    }
    if (rank == 0) {
      const double per_config = summary.ran > 0 ? elapsed_s() / summary.ran : 0.0;
      progress << progress_line(k + 1, total, result, elapsed_s(), per_config * runnable_left)
               << std::endl;
    }
    // Nothing more can run on that rank's device in this process (STYLE.md "Errors").
    if (device_lost) throw SweepStopped(config.id, device_lost->rank, device_lost->message);
    if (cancelled) throw SweepCancelled(agreed_cancel_signal(world), config.id, true);
  }
  return summary;
}

}  // namespace scaletune::mpi
