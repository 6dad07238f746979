#include "config_runner.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/host_device.hpp"
#include "harness/core/memory_budget.hpp"
#include "harness/core/rank_context.hpp"
#include "harness/core/recording_communicator.hpp"
#include "harness/core/stats.hpp"
#include "harness/core/timeline_recorder.hpp"
#include "harness/job/device_selection.hpp"
#include "harness/job/sweep.hpp"
#include "harness/mpi/mpi_error.hpp"
#include "harness/mpi/node_placement.hpp"
#include "harness/mpi/outcome.hpp"
#include "harness/mpi/status_agreement.hpp"
#include "harness/mpi/table_stats_gather.hpp"
#include "harness/mpi/timeline_gather.hpp"

namespace scaletune::mpi {

using results::Status;
using Clock = std::chrono::steady_clock;

namespace {

// The job file's devices.memory_gib for world rank `world_rank`, else 90% of the device's free
// memory (cuda) or this rank's share of the host's available memory; bytes.
std::int64_t memory_budget_bytes(const job::DevicesSpec& devices, int world_rank, MPI_Comm native,
                                 const RankTarget& target) {
  if (const std::int64_t configured = core::configured_memory_bytes(devices, world_rank))
    return configured;
  if (target.device_kind == core::DeviceKind::cuda && target.device != nullptr)
    return target.device->memory_free_bytes() / 10 * 9;
  return core::host_memory_budget_bytes(node_placement(native).local_size);
}

core::RankContext rank_context(const job::JobSpec& job, const job::Config& config,
                               core::Communicator& comm, MPI_Comm native, int world_rank,
                               const RankTarget& target) {
  core::RankContext ctx = core::rank_context(job, config, comm);
  ctx.memory_budget_bytes = memory_budget_bytes(job.devices, world_rank, native, target);
  ctx.device = target.device;
  return ctx;
}

// A duplicate of the configuration's communicator for the workload's collectives: a rank that
// left a step part-way (an exception) goes to agree on the configuration's own communicator,
// where its agreement can never be matched against a collective of the step the others are
// still in (MPI matches collectives by order within a communicator).
class StepComm {
 public:
  explicit StepComm(MPI_Comm comm) { SCALETUNE_MPI_CHECK(MPI_Comm_dup(comm, &m_comm)); }
  ~StepComm() { static_cast<void>(MPI_Comm_free(&m_comm)); }
  StepComm(const StepComm&) = delete;
  StepComm& operator=(const StepComm&) = delete;
  MPI_Comm get() const { return m_comm; }

 private:
  MPI_Comm m_comm = MPI_COMM_NULL;
};

// The communicator a configuration's step goes through: the launch's own, wrapped in a recording
// communicator that reports to the timeline unless run.timeline is "none".
struct StepCommunicator {
  std::unique_ptr<core::Communicator> inner;
  std::unique_ptr<core::TimelineRecorder> timeline;
  std::unique_ptr<core::RecordingCommunicator> recording;

  StepCommunicator(std::unique_ptr<core::Communicator> comm, job::TimelineMode mode)
      : inner(std::move(comm)) {
    if (mode == job::TimelineMode::none) return;
    timeline = std::make_unique<core::TimelineRecorder>(inner->timer(), inner->memory_space());
    recording = std::make_unique<core::RecordingCommunicator>(*inner, *timeline);
  }
  core::Communicator& step() { return recording ? *recording : *inner; }
};

int rank_of(MPI_Comm comm) {
  int rank = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  return rank;
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

// Tells world rank 0 at once that this rank's workload threw ("rank R: <what>"): the other
// ranks may be waiting for it inside a collective of the step it left.
void announce_failure(const RankTarget& target, const Outcome& out, int rank) {
  if (out.status == Status::ok || target.notices == nullptr) return;
  target.notices->announce("rank " + std::to_string(rank) + ": " + out.error);
}

// Runs one step (`step`, through guarded), notes its length for the failure watch's grace and
// announces a failure.
template <class Step>
void run_step(const RankTarget& target, Outcome& out, int rank, Step&& step) {
  const auto start = Clock::now();
  guarded(out, std::forward<Step>(step));
  if (target.notices != nullptr)
    target.notices->note_step(std::chrono::duration<double>(Clock::now() - start).count());
  announce_failure(target, out, rank);
}

// Warm-up and timed iterations; each iteration ends with the ranks agreeing on the status.
// The phase timer's fence: the rank's communicator (whose wait gives up on a stopped peer),
// then the device (every stream). A rank whose step threw announces it (announce_failure).
Timings iterate(core::Workload& workload, const RankTarget& target, const job::RunSpec& run,
                const Deadline& deadline, MPI_Comm comm, core::Device& device,
                StepCommunicator& communicator, Outcome& out) {
  const auto iterations = static_cast<std::size_t>(run.iterations);
  const int rank = communicator.inner->rank();
  core::PhaseTimer timer(workload.phase_names(), iterations, [&] {
    communicator.inner->synchronize();
    device.fence();
  });
  timer.set_timeline(communicator.timeline.get());
  bool ok = true;
  for (int i = 0; i < run.warmup && ok; ++i) {
    run_step(target, out, rank, [&] { workload.step(timer); });
    deadline.check(out);
    ok = all_ok(comm, out);
  }
  const auto loop_start = Clock::now();
  for (std::size_t i = 0; i < iterations && ok; ++i) {
    run_step(target, out, rank, [&] {
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

// A precision the kind cannot train in on the host (devices.kind "auto" lets the parser pass it)
// fails the configuration of a host launch instead of running in another precision under its
// name.
void require_host_precision(const job::Config& config, core::DeviceKind kind) {
  if (kind != core::DeviceKind::host || config.precision == job::DataType::fp32 ||
      job::precision_supported_on_host(config.workload, config.precision))
    return;
  throw std::invalid_argument(job::unsupported_on_host_message(config.workload, config.precision) +
                              "; this launch runs on the host");
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
  r.precision = job::data_type_text(config.precision);
  if (const std::string sharding = job::config_sharding_text(config); !sharding.empty())
    r.text_attrs[job::sharding_key(config.workload)] = sharding;
  return r;
}

void record_workload(results::ConfigResult& r, const trace::WorkloadAttributes& w) {
  r.params = w.params;
  r.flops_per_sample = w.flops_per_sample;
  if (!w.per_rank_batch.empty()) r.per_rank_batch = w.per_rank_batch;
  for (const auto& [key, value] : w.numbers) r.number_attrs[key] = value;
  for (const auto& [key, value] : w.texts) r.text_attrs[key] = value;
}

void record_profile(results::ConfigResult& r, const std::vector<core::RankProfile>& profiles,
                    const std::optional<core::MemoryModel>& memory_model) {
  if (profiles.empty()) return;
  results::ProfileTable table;
  table.ranks = static_cast<int>(profiles.size());
  table.micro_batches.assign(profiles.front().micro_batches.begin(),
                             profiles.front().micro_batches.end());
  for (const core::RankProfile& p : profiles) {
    table.time_s.insert(table.time_s.end(), p.time_s.begin(), p.time_s.end());
    if (p.spread.empty())
      table.spread.insert(table.spread.end(), p.time_s.size(), 0.0);
    else
      table.spread.insert(table.spread.end(), p.spread.begin(), p.spread.end());
    table.capacity_bytes.push_back(p.capacity_bytes);
  }
  if (memory_model)
    table.memory_model = results::ProfileTable::MemoryTerms{
        memory_model->state_bytes, memory_model->replicated_bytes,
        memory_model->activation_bytes_per_sample};
  r.profile = std::move(table);
}

void record_comm(results::ConfigResult& r, const job::CommSpec& comm, const std::string& backend) {
  if (!backend.empty()) r.text_attrs["comm_backend"] = backend;
  r.number_attrs["overlap"] = comm.overlap ? 1.0 : 0.0;
  r.number_attrs["bucket_mib"] = comm.bucket_mib;
}

ConfigRun run_config(const job::JobSpec& job, const job::Config& config, MPI_Comm comm,
                     std::span<const int> world_ranks, const RankTarget& target,
                     const core::WorkloadEntry& workload) {
  results::ConfigResult result = describe(config);
  result.device_kind = job::device_kind_text(target.device_kind);
  const Deadline deadline(job.run.timeout_s);
  core::HostDevice host;
  core::Device& device = target.device != nullptr ? *target.device : host;
  Outcome out;
  const StepComm step_comm(comm);  // outlives the communicator and the workload made over it
  std::unique_ptr<StepCommunicator> communicator;
  std::unique_ptr<core::Workload> trainer;
  guarded(out, [&] {
    communicator = std::make_unique<StepCommunicator>(target.make_communicator(step_comm.get()),
                                                      job.run.timeline);
    const int rank = communicator->inner->rank();
    const core::RankContext ctx = rank_context(job, config, communicator->step(), step_comm.get(),
                                               world_ranks[static_cast<std::size_t>(rank)], target);
    require_host_precision(config, target.device_kind);
    if (workload.describe)
      for (const auto& [key, value] : workload.describe(job.workload, config))
        result.text_attrs[key] = value;
    trainer = workload.factory(job.workload, config, ctx);
  });
  announce_failure(target, out, rank_of(comm));
  deadline.check(out);
  Timings timings;
  if (all_ok(comm, out))
    timings = iterate(*trainer, target, job.run, deadline, comm, device, *communicator, out);
  const AgreedStatus agreed = agree_status(comm, out.status, out.error, out.fatal_device);
  result.status = agreed.status;
  result.error = agreed.error;
  record_comm(result, job.comm, communicator ? communicator->inner->backend() : "");
  if (trainer) record_workload(result, core::attributes_of(*trainer));
  if (trainer) record_profile(result, trainer->rank_profiles(), trainer->profile_memory_model());
  if (result.status == Status::ok) {
    gather(timings, comm, result);
    gather_table_stats(trainer->table_stats(), comm, result);
    gather_timeline(communicator->timeline ? communicator->timeline->spans()
                                           : std::vector<trace::TimelineSpan>{},
                    job.run.timeline, comm, result);
  }
  return {std::move(result), agreed.device_lost};
}

}  // namespace scaletune::mpi
