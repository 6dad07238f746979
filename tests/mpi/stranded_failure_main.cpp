// Run by test_stranded_failure.sh under mpirun: a sweep of three configurations on every rank
// whose second one's last rank throws part-way through its second step, before the step's
// all-reduce, so the other ranks are left waiting in it. Rank 0 must end the launch stranded_
// grace_s after the failure with that configuration recorded as error; the first stays ok and
// the third never runs. Argument: the result file.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <iostream>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "harness/core/workload_registry.hpp"
#include "harness/job/batch_split.hpp"
#include "harness/mpi/config_kinds.hpp"
#include "harness/mpi/sweep_runner.hpp"

namespace scaletune::mpi {
namespace {

// One all-reduce per step; with `fail` set, the last rank throws before it in the second step.
class StepWorkload final : public core::Workload {
 public:
  StepWorkload(const core::RankContext& ctx, bool fail) : m_comm(ctx.comm), m_fail(fail) {}
  std::vector<std::string> phase_names() const override { return {"allreduce"}; }
  void step(core::PhaseTimer& timer) override {
    if (m_fail && ++m_steps == 2 && m_comm->rank() == m_comm->size() - 1)
      throw std::runtime_error("deliberate failure part-way through a step");
    double x = 1;
    m_comm->all_reduce_sum(std::span<double>(&x, 1));
    timer.mark(0);
  }
  double params() const override { return 1; }
  double flops_per_sample() const override { return 1; }
  std::int64_t memory_peak_bytes() const override { return 1; }

 private:
  core::Communicator* m_comm;
  bool m_fail;
  int m_steps = 0;
};

job::Config config(const std::string& kind, int ranks, const std::string& id) {
  job::Config c;
  c.workload = kind;
  c.ranks = ranks;
  c.global_batch = 12;
  c.per_rank_batch =
      job::weighted_split(12, std::vector<double>(static_cast<std::size_t>(ranks), 1.0));
  c.batch_split = "even";
  c.precision = job::DataType::fp32;
  c.id = id;
  return c;
}

int run(const std::string& out_path) {
  core::WorkloadRegistry registry;
  registry.add("step",
               [](const job::WorkloadSpec&, const job::Config&, const core::RankContext& ctx) {
                 return std::make_unique<StepWorkload>(ctx, false);
               });
  registry.add("throw_mid_step",
               [](const job::WorkloadSpec&, const job::Config&, const core::RankContext& ctx) {
                 return std::make_unique<StepWorkload>(ctx, true);
               });
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  job::JobSpec spec;
  spec.toml_text = "# stranded failure test";
  spec.run.warmup = 1;
  spec.run.iterations = 3;
  spec.run.timeout_s = 10;  // grace 6 s (and twice a step of microseconds); watchdog at 22.5 s
  const ConfigKinds kinds(registry);
  SweepOptions options;
  options.out_path = out_path;
  options.blas = "test";
  options.kinds = &kinds;
  run_sweep(spec,
            {config("step", size, "first"), config("throw_mid_step", size, "stranded"),
             config("step", size, "never")},
            options, MPI_COMM_WORLD, std::cout);
  return 0;
}

}  // namespace
}  // namespace scaletune::mpi

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int status = 2;
  {
    const Kokkos::ScopeGuard kokkos(argc, argv);
    if (argc == 2) status = scaletune::mpi::run(argv[1]);
  }
  MPI_Finalize();
  return status;
}
