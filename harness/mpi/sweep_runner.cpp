#include "sweep_runner.hpp"

#include <chrono>
#include <ctime>
#include <optional>
#include <ostream>
#include <set>

#include "harness/mpi/config_runner.hpp"
#include "harness/mpi/mpi_error.hpp"
#include "harness/mpi/progress.hpp"
#include "harness/mpi/status_agreement.hpp"
#include "harness/mpi/sub_communicator.hpp"
#include "harness/mpi/system_info.hpp"
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

// Runs `fn` on rank 0 only; an exception there is rethrown on every rank as an Error.
template <typename Error = std::runtime_error, typename Fn>
void on_root(MPI_Comm world, Fn&& fn) {
  Status local = Status::ok;
  std::string message;
  if (rank_of(world) == 0) {
    try {
      fn();
    } catch (const std::exception& e) {
      local = Status::error;
      message = e.what();
    }
  }
  const AgreedStatus agreed = agree_status(world, local, message);
  if (agreed.status != Status::ok) throw Error(agreed.error);
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

void count(SweepSummary& s, Status status) {
  ++s.ran;
  if (status == Status::ok) ++s.ok;
  if (status == Status::oom || status == Status::timeout || status == Status::error) ++s.failed;
}

}  // namespace

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
  const results::SystemInfo system = gather_system_info(world, options.blas);

  std::optional<results::ResultWriter> writer;
  std::set<std::string> ok_ids;
  on_root<OutputError>(world, [&] {
    writer = options.resume
                 ? results::ResultWriter::open_for_resume(options.out_path, provenance, system)
                 : results::ResultWriter::create(options.out_path, provenance, system);
    for (const auto& id : writer->ok_config_ids()) ok_ids.insert(id);
  });
  const std::vector<char> done = already_ok(configs, ok_ids, world);

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
    results::ConfigResult result;
    if (config.ranks > world_size) {
      result = skipped(config, world_size);
      ++summary.skipped;
    } else {
      const SubCommunicator sub(world, config.ranks);
      if (sub.member()) result = run_config(job, config, sub.get());
      SCALETUNE_MPI_CHECK(MPI_Barrier(world));  // ranks outside the configuration wait here
      int status = static_cast<int>(result.status);
      SCALETUNE_MPI_CHECK(MPI_Bcast(&status, 1, MPI_INT, 0, world));
      count(summary, static_cast<Status>(status));
      --runnable_left;
    }
    on_root(world, [&] { writer->write_config(result); });
    if (rank == 0) {
      const double per_config = summary.ran > 0 ? elapsed_s() / summary.ran : 0.0;
      progress << progress_line(k + 1, total, result, elapsed_s(), per_config * runnable_left)
               << std::endl;
    }
  }
  return summary;
}

}  // namespace scaletune::mpi
