#include "kernels/describe/step_description.hpp"

#include <exception>
#include <memory>
#include <stdexcept>

#include "harness/core/backend_choice.hpp"
#include "harness/core/detached_communicator.hpp"
#include "harness/core/phase_timer.hpp"
#include "harness/core/rank_context.hpp"
#include "harness/core/recording_communicator.hpp"
#include "kernels/describe/describing_device.hpp"

namespace scaletune::kernels::describe {
namespace {

/// Descriptions of every rank until the host exchanges repeat: one when there are none, two
/// when each rank's sends depend on its own settings only (memory budgets), more when sends
/// depend on what was received.
constexpr int kMaxDescriptions = 4;

/// One rank described once: its step, what it sent of host memory, and what it threw.
struct RankDescription {
  trace::RankTrace trace;
  std::vector<std::vector<std::byte>> sends;
  std::exception_ptr failure;
};

RankDescription describe_rank(const job::JobSpec& job, const job::Config& config, int rank,
                              core::DeviceKind target, const core::WorkloadEntry& workload,
                              const core::HostExchanges* earlier) {
  trace::Recorder recorder;
  const bool cuda = target == core::DeviceKind::cuda;
  core::DetachedCommunicator detached(
      rank, config.ranks, core::choose_backend(job.comm.backend, target, true),
      cuda ? core::MemorySpace::device : core::MemorySpace::host, earlier);
  RankDescription out;
  try {
    core::RecordingCommunicator comm(detached, recorder);
    DescribingDevice device(target, recorder);
    core::RankContext ctx = core::rank_context(job, config, comm);
    ctx.memory_budget_bytes = core::configured_memory_bytes(job.devices, rank);
    ctx.device = &device;
    const std::unique_ptr<core::Workload> trainer = workload.factory(job.workload, config, ctx);
    core::PhaseTimer timer(trainer->phase_names(), 1, [] {});
    timer.set_mark_observer([&recorder](std::size_t phase) { recorder.end_phase(phase); });
    trainer->step(timer);
    recorder.begin(trainer->phase_names());
    trainer->step(timer);
    out.trace = recorder.take();
    out.trace.rank = rank;
    out.trace.ranks = config.ranks;
    out.trace.memory_peak_bytes = trainer->memory_peak_bytes();
    out.trace.workload = core::attributes_of(*trainer);
  } catch (...) {
    out.failure = std::current_exception();
  }
  out.sends = detached.sends();
  return out;
}

bool has_host_data(const core::HostExchanges& exchanges) {
  for (const auto& rank : exchanges)
    for (const auto& call : rank)
      if (!call.empty()) return true;
  return false;
}

void require_fixed_split(const job::Config& config) {
  if (!config.per_rank_batch.empty()) return;
  throw std::invalid_argument(
      "batch_split '" + config.batch_split +
      "' is chosen at run time from measured micro-batch times; a described step needs a fixed "
      "split (\"even\" or weights)");
}

/// The first `count` ranks of `config` described until the host exchanges settle; with
/// count < config.ranks the ranks are alike and each of the others sends what rank 0 sends.
std::vector<trace::RankTrace> described(const job::JobSpec& job, const job::Config& config,
                                        core::DeviceKind target,
                                        const core::WorkloadEntry& workload, int count) {
  require_fixed_split(config);
  core::HostExchanges exchanges;
  for (int n = 0; n < kMaxDescriptions; ++n) {
    std::vector<RankDescription> ranks;
    core::HostExchanges sends;
    for (int r = 0; r < count; ++r) {
      ranks.push_back(
          describe_rank(job, config, r, target, workload, n == 0 ? nullptr : &exchanges));
      sends.push_back(ranks.back().sends);
    }
    sends.resize(static_cast<std::size_t>(config.ranks), sends.front());
    if ((n > 0 && sends == exchanges) || !has_host_data(sends)) {
      std::vector<trace::RankTrace> out;
      for (RankDescription& d : ranks) {
        if (d.failure) std::rethrow_exception(d.failure);
        out.push_back(std::move(d.trace));
      }
      return out;
    }
    exchanges = std::move(sends);
  }
  throw std::runtime_error("describing " + config.id + ": what the ranks exchange on the host " +
                           "did not settle after " + std::to_string(kMaxDescriptions) +
                           " descriptions of every rank");
}

}  // namespace

std::vector<trace::RankTrace> describe_ranks(const job::JobSpec& job, const job::Config& config,
                                             core::DeviceKind target,
                                             const core::WorkloadEntry& workload) {
  return described(job, config, target, workload, config.ranks);
}

trace::RankTrace describe_alike_ranks(const job::JobSpec& job, const job::Config& config,
                                      core::DeviceKind target,
                                      const core::WorkloadEntry& workload) {
  return std::move(described(job, config, target, workload, 1).front());
}

trace::RankTrace describe_step(const job::JobSpec& job, const job::Config& config, int rank,
                               core::DeviceKind target, const core::WorkloadEntry& workload) {
  return describe_ranks(job, config, target, workload).at(static_cast<std::size_t>(rank));
}

}  // namespace scaletune::kernels::describe
