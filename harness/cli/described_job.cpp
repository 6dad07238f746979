#include "harness/cli/described_job.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>

#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "harness/slurm/batch_script.hpp"
#include "kernels/workloads.hpp"

namespace scaletune::cli {
namespace {

core::DeviceKind target_of(const Args& args, const job::JobSpec& job) {
  const std::string device = args.option("--device");
  if (device == "host") return core::DeviceKind::host;
  if (device == "cuda") return core::DeviceKind::cuda;
  if (!device.empty()) throw UsageError("--device takes host or cuda, got '" + device + "'");
  return job.devices.kind == job::DeviceKindRequest::cuda ? core::DeviceKind::cuda
                                                          : core::DeviceKind::host;
}

}  // namespace

std::string DescribedJob::target_name() const {
  return std::string(job::device_kind_text(target));
}

DescribedJob load_described_job(const Args& args) {
  DescribedJob d;
  d.job = job::parse_job_file(args.positional.front());
  kernels::register_workloads(d.registry);
  const std::vector<std::string> kinds = d.registry.kinds();
  if (std::find(kinds.begin(), kinds.end(), d.job.workload.kind) == kinds.end())
    throw UsageError(args.positional.front() + ": [workload] kind is '" + d.job.workload.kind +
                     "'; only training workloads are described (resnet50, dlrm, transformer)");
  if (args.options.contains("--world"))
    d.job.sweep.ranks = {parse_rank_count("--world", args.option("--world"))};
  try {
    d.configs = job::expand_sweep(d.job);
  } catch (const std::invalid_argument& e) {  // the sweep's batches at --world ranks
    throw UsageError("--world " + args.option("--world") + ": " + e.what());
  }
  d.target = target_of(args, d.job);
  return d;
}

int predicted_ranks_per_node(const job::JobSpec& job) {
  if (job.slurm.tasks_per_node > 0) return job.slurm.tasks_per_node;
  return job.slurm.gpus_per_node >= 0 ? std::max(job.slurm.gpus_per_node, 1) : 0;
}

void expect_allocation_holds(const job::JobSpec& job, int ranks) {
  if (job.slurm.nodes > 0)
    slurm::allocations(std::span<const int>(&ranks, 1), slurm::resolve(job.slurm, job.job));
}

autotune::PerformanceModel job_performance_model(const results::ModelSet& models,
                                                 const job::JobSpec& job) {
  autotune::PerformanceModel model(models);
  model.set_ranks_per_node(predicted_ranks_per_node(job));
  return model;
}

}  // namespace scaletune::cli
