#include "harness/core/rank_context.hpp"

#include <numeric>
#include <vector>

namespace scaletune::core {

RankContext rank_context(const job::JobSpec& job, const job::Config& config, Communicator& comm) {
  const auto r = static_cast<std::size_t>(comm.rank());
  const auto& prb = config.per_rank_batch;
  RankContext ctx;
  ctx.comm = &comm;
  ctx.per_rank_batch = prb.empty() ? 0 : prb.at(r);
  ctx.global_batch = config.global_batch;
  ctx.sample_offset =
      prb.empty() ? 0 : std::accumulate(prb.begin(), prb.begin() + static_cast<long>(r), 0);
  ctx.bucket_bytes = job.comm.bucket_mib * (1 << 20);
  ctx.overlap = job.comm.overlap;
  ctx.seed = job.run.seed;
  ctx.warmup = job.run.warmup;
  return ctx;
}

std::int64_t configured_memory_bytes(const job::DevicesSpec& devices, int world_rank) {
  const std::vector<double>& gib = devices.memory_gib;
  if (gib.empty()) return 0;
  const double value = gib.size() == 1 ? gib.front() : gib.at(static_cast<std::size_t>(world_rank));
  return static_cast<std::int64_t>(value * static_cast<double>(1LL << 30));
}

}  // namespace scaletune::core
