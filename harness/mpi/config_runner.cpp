#include "config_runner.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "harness/core/memory_budget.hpp"
#include "harness/core/stats.hpp"
#include "harness/core/workload_registry.hpp"
#include "harness/job/sweep.hpp"
#include "harness/mpi/mpi_communicator.hpp"
#include "harness/mpi/mpi_error.hpp"
#include "harness/mpi/node_placement.hpp"
#include "harness/mpi/outcome.hpp"
#include "harness/mpi/status_agreement.hpp"
#include "harness/mpi/table_stats_gather.hpp"

namespace scaletune::mpi {

using results::Status;
using Clock = std::chrono::steady_clock;

namespace {

// The job file's devices.memory_gib for world rank `world_rank`, else this rank's share of the
// host's available memory; bytes.
std::int64_t memory_budget_bytes(const job::DevicesSpec& devices, int world_rank, MPI_Comm native) {
  const std::vector<double>& gib = devices.memory_gib;
  if (gib.empty()) return core::host_memory_budget_bytes(node_placement(native).local_size);
  const double value = gib.size() == 1 ? gib.front() : gib.at(static_cast<std::size_t>(world_rank));
  return static_cast<std::int64_t>(value * static_cast<double>(1LL << 30));
}

core::RankContext rank_context(const job::JobSpec& job, const job::Config& config,
                               core::Communicator& comm, MPI_Comm native, int world_rank) {
  const auto r = static_cast<std::size_t>(comm.rank());
  const auto& prb = config.per_rank_batch;
  core::RankContext ctx;
  ctx.comm = &comm;
  // An empty split (batch_split proportional/auto) is left to the workload: 0 and 0.
  ctx.per_rank_batch = prb.empty() ? 0 : prb.at(r);
  ctx.global_batch = config.global_batch;
  ctx.sample_offset =
      prb.empty() ? 0 : std::accumulate(prb.begin(), prb.begin() + static_cast<long>(r), 0);
  ctx.bucket_bytes = job.comm.bucket_mib * (1 << 20);
  ctx.seed = job.run.seed;
  ctx.memory_budget_bytes = memory_budget_bytes(job.devices, world_rank, native);
  return ctx;
}

// Per-rank measurements of the timed loop.
struct Timings {
  std::vector<std::string> phase_names;
  std::vector<double> iteration_s;
  std::vector<double> phase_s;
  double loop_wall_s = 0;
  std::int64_t memory_peak_bytes = 0;
};

// True while every rank of `comm` is still ok (one small allreduce).
bool all_ok(MPI_Comm comm, const Outcome& out) {
  return worst_status(comm, out.status) == Status::ok;
}

// Warm-up and timed iterations; each iteration ends with the ranks agreeing on the status.
Timings iterate(core::Workload& workload, const job::RunSpec& run, const Deadline& deadline,
                MPI_Comm comm, Outcome& out) {
  const auto iterations = static_cast<std::size_t>(run.iterations);
  core::PhaseTimer timer(workload.phase_names(), iterations, [] { Kokkos::fence(); });
  bool ok = true;
  for (int i = 0; i < run.warmup && ok; ++i) {
    guarded(out, [&] { workload.step(timer); });
    deadline.check(out);
    ok = all_ok(comm, out);
  }
  const auto loop_start = Clock::now();
  for (std::size_t i = 0; i < iterations && ok; ++i) {
    guarded(out, [&] {
      timer.begin_iteration(i);
      workload.step(timer);
      timer.end_iteration();
    });
    deadline.check(out);
    ok = all_ok(comm, out);
  }
  const double loop_wall_s = std::chrono::duration<double>(Clock::now() - loop_start).count();
  return {timer.phase_names(), timer.iteration_times(), timer.phase_times(), loop_wall_s,
          workload.memory_peak_bytes()};
}

// Collects every rank's timings on rank 0 of `comm`.
void gather(const Timings& t, MPI_Comm comm, results::ConfigResult& r) {
  const auto start = Clock::now();
  int rank = 0, size = 1;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  SCALETUNE_MPI_CHECK(MPI_Comm_size(comm, &size));
  const auto n = static_cast<int>(t.iteration_s.size());
  const auto per_rank = static_cast<int>(t.phase_s.size());
  const auto all = static_cast<std::size_t>(rank == 0 ? size : 0);
  r.step_time.assign(static_cast<std::size_t>(n), 0.0);
  r.rank_phase_time.assign(all * t.phase_s.size(), 0.0);
  r.rank_memory_peak.assign(all, 0);
  SCALETUNE_MPI_CHECK(
      MPI_Reduce(t.iteration_s.data(), r.step_time.data(), n, MPI_DOUBLE, MPI_MAX, 0, comm));
  SCALETUNE_MPI_CHECK(MPI_Gather(t.phase_s.data(), per_rank, MPI_DOUBLE, r.rank_phase_time.data(),
                                 per_rank, MPI_DOUBLE, 0, comm));
  SCALETUNE_MPI_CHECK(MPI_Gather(&t.memory_peak_bytes, 1, MPI_INT64_T, r.rank_memory_peak.data(), 1,
                                 MPI_INT64_T, 0, comm));
  r.phase_names = t.phase_names;
  if (rank != 0) return;
  fill_step_statistics(r);
  const double in_iterations = std::accumulate(t.iteration_s.begin(), t.iteration_s.end(), 0.0);
  const double measured_s =
      t.loop_wall_s + std::chrono::duration<double>(Clock::now() - start).count();
  r.harness_overhead_fraction = (measured_s - in_iterations) / measured_s;
}

}  // namespace

void fill_step_statistics(results::ConfigResult& r) {
  r.step_time_median = core::median(r.step_time);
  r.step_time_p95 = core::quantile(r.step_time, 0.95);
  r.throughput = r.global_batch / r.step_time_median;
}

results::ConfigResult describe(const job::Config& config) {
  results::ConfigResult r;
  r.id = config.id;
  r.workload = config.workload;
  r.ranks = config.ranks;
  r.global_batch = config.global_batch;
  r.per_rank_batch = config.per_rank_batch;
  r.batch_split = config.batch_split;
  r.precision = config.precision;
  if (!config.sharding.empty()) r.text_attrs[job::sharding_key(config.workload)] = config.sharding;
  return r;
}

ConfigRun run_config(const job::JobSpec& job, const job::Config& config, MPI_Comm comm,
                     std::span<const int> world_ranks) {
  results::ConfigResult result = describe(config);
  const Deadline deadline(job.run.timeout_s);
  MpiCommunicator communicator(comm);
  const core::RankContext ctx = rank_context(
      job, config, communicator, comm, world_ranks[static_cast<std::size_t>(communicator.rank())]);
  Outcome out;
  std::unique_ptr<core::Workload> workload;
  guarded(out, [&] {
    if (const auto& describe = core::config_describer(config.workload))
      for (const auto& [key, value] : describe(job.workload, config))
        result.text_attrs[key] = value;
    workload = core::workload_factory(config.workload)(job.workload, config, ctx);
  });
  deadline.check(out);
  Timings timings;
  if (all_ok(comm, out)) timings = iterate(*workload, job.run, deadline, comm, out);
  const AgreedStatus agreed = agree_status(comm, out.status, out.error, out.fatal_device);
  result.status = agreed.status;
  result.error = agreed.error;
  result.text_attrs["comm_backend"] = communicator.backend();
  result.number_attrs["bucket_mib"] = job.comm.bucket_mib;
  if (workload) {
    result.params = workload->params();
    result.flops_per_sample = workload->flops_per_sample();
    if (std::vector<int> batch = workload->per_rank_batch(); !batch.empty())
      result.per_rank_batch = std::move(batch);
    for (const auto& [key, value] : workload->attributes()) result.number_attrs[key] = value;
    for (const auto& [key, value] : workload->text_attributes()) result.text_attrs[key] = value;
  }
  if (result.status == Status::ok) {
    gather(timings, comm, result);
    gather_table_stats(workload->table_stats(), comm, result);
  }
  return {std::move(result), agreed.device_lost};
}

}  // namespace scaletune::mpi
