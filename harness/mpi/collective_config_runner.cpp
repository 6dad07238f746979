#include "collective_config_runner.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <optional>
#include <ostream>

#include "harness/collectives/case_runner.hpp"
#include "harness/collectives/nccl_tests_table.hpp"
#include "harness/core/memory_budget.hpp"
#include "harness/job/collective_sizes.hpp"
#include "harness/mpi/config_runner.hpp"
#include "harness/mpi/mpi_error.hpp"
#include "harness/mpi/node_placement.hpp"
#include "harness/mpi/outcome.hpp"
#include "harness/mpi/status_agreement.hpp"
#include "harness/results/bus_bandwidth.hpp"

namespace scaletune::mpi {

namespace {

using collectives::BenchCase;
using collectives::CaseMeasurement;
using collectives::Placement;
using results::Status;
using Clock = std::chrono::steady_clock;

// Every case of one op, smallest size first, each size once after rounding to whole elements.
struct OpPlan {
  collectives::CollectiveOp op;
  std::vector<BenchCase> cases;
};

std::vector<OpPlan> plan_ops(const job::CollectivesOptions& o, int ranks) {
  const core::DType type = core::dtype_from_key(o.dtype).value();  // the parser checked both
  const core::ReduceOp redop = core::reduce_op_from_name(o.redop).value();
  const std::vector<std::int64_t> sizes = job::collective_sizes(o);
  std::vector<OpPlan> plans;
  for (const std::string& name : o.ops) {
    OpPlan plan{collectives::collective_op_from_name(name).value(), {}};
    for (const std::int64_t size : sizes) {
      BenchCase c = collectives::make_case(plan.op, size, type, redop, ranks);
      // A size that rounds to the previous one's whole elements would time the same call again.
      if (plan.cases.empty() || plan.cases.back().layout.bytes != c.layout.bytes)
        plan.cases.push_back(std::move(c));
    }
    plans.push_back(std::move(plan));
  }
  return plans;
}

std::vector<BenchCase> all_cases(const std::vector<OpPlan>& plans) {
  std::vector<BenchCase> cases;
  for (const OpPlan& p : plans) cases.insert(cases.end(), p.cases.begin(), p.cases.end());
  return cases;
}

// One rank's measurements of a case; in_place absent when not timed (in_place = false).
struct CaseRun {
  CaseMeasurement out_of_place;
  std::optional<CaseMeasurement> in_place;
};

CaseRun run_case(core::Communicator& comm, const BenchCase& c, collectives::BenchBuffers& buffers,
                 const job::JobSpec& job) {
  const auto measure = [&](Placement p) {
    return collectives::measure_case(comm, c, p, buffers, job.run.warmup, job.run.iterations);
  };
  CaseRun run{measure(Placement::out_of_place), std::nullopt};
  if (job.workload.collectives.in_place) run.in_place = measure(Placement::in_place);
  return run;
}

// Figures of one placement from the sums over ranks: time averaged over ranks, wrong summed
// (negative: not verifiable), bandwidths by the nccl-tests definitions.
collectives::PlacementFigures figures(const BenchCase& c, double time_sum_s, double wrong_sum) {
  collectives::PlacementFigures f;
  f.time_us = time_sum_s / c.ranks * 1e6;
  f.algbw_gbps = results::algbw_gbps(c.layout.bytes, f.time_us);
  const std::string op(collectives::collective_op_name(c.op));
  f.busbw_gbps = f.algbw_gbps * results::bus_factor(op, c.ranks);
  f.wrong = wrong_sum < 0 ? -1 : std::llround(wrong_sum);
  return f;
}

// Collective: the sums over ranks of each rank's {time, wrong} out of place and in place,
// on rank 0 (zeros elsewhere).
std::array<double, 4> reduce_sums(const CaseRun& run, MPI_Comm comm) {
  const CaseMeasurement in = run.in_place.value_or(CaseMeasurement{0.0, 0});
  const std::array<double, 4> local = {run.out_of_place.time_per_op_s,
                                       static_cast<double>(run.out_of_place.wrong),
                                       in.time_per_op_s, static_cast<double>(in.wrong)};
  std::array<double, 4> sums{};
  SCALETUNE_MPI_CHECK(MPI_Reduce(local.data(), sums.data(), 4, MPI_DOUBLE, MPI_SUM, 0, comm));
  return sums;
}

// The case's printed row from the sums over ranks (rank 0 only: elsewhere they are zeros).
collectives::TableRow row_of(const BenchCase& c, bool in_place, const std::array<double, 4>& sums) {
  collectives::TableRow row;
  row.bytes = c.layout.bytes;
  row.count = c.layout.count;
  row.type = core::dtype_name(c.type);
  row.redop = collectives::is_reducing(c.op) ? core::reduce_op_name(c.redop) : "none";
  row.root = collectives::root_of(c.op);
  row.out_of_place = figures(c, sums[0], sums[1]);
  if (in_place) row.in_place = figures(c, sums[2], sums[3]);
  return row;
}

results::CollectiveResult stored_row(const BenchCase& c, const collectives::PlacementFigures& f,
                                     bool in_place, const std::string& source) {
  return {std::string(collectives::collective_op_name(c.op)),
          std::string(core::dtype_name(c.type)),
          c.layout.bytes,
          c.ranks,
          f.time_us,
          f.algbw_gbps,
          f.busbw_gbps,
          f.wrong,
          source,
          in_place};
}

// The printed lines after an op's table, from its stored rows.
std::string op_end(const std::string& op, std::span<const results::CollectiveResult> rows) {
  std::int64_t wrong = 0;
  double busbw = 0.0;
  for (const auto& r : rows) {
    wrong += std::max<std::int64_t>(r.wrong, 0);
    busbw += r.busbw_gbps;
  }
  return collectives::test_end(op, wrong, rows.empty() ? 0.0 : busbw / rows.size());
}

// Where one configuration's benchmark stands while it runs.
struct Bench {
  Bench(const job::JobSpec& j, MPI_Comm c) : job(j), comm(c) {}
  const job::JobSpec& job;
  MPI_Comm comm;
  int rank = 0;
  std::ostream* table = nullptr;  // rank 0 only
  collectives::TestPreamble preamble;
  std::string source;
  Outcome out;
  std::vector<double> phase_s;  // per op, this rank's timed loops, s
  std::vector<results::CollectiveResult> rows;
  std::int64_t buffer_bytes = 0;
};

bool all_ok(Bench& b) {
  return worst_status(b.comm, b.out.status) == Status::ok;
}

// Times every case of one op; false when a rank failed (all ranks stop together).
bool run_op(Bench& b, core::Communicator& comm, const OpPlan& plan,
            collectives::BenchBuffers& buffers, const Deadline& deadline) {
  const std::string op(collectives::collective_op_name(plan.op));
  const std::size_t first_row = b.rows.size();
  b.preamble.op = op;
  if (b.table) *b.table << collectives::test_start(b.preamble) << std::flush;
  b.phase_s.push_back(0.0);
  for (const BenchCase& c : plan.cases) {
    CaseRun run;
    guarded(b.out, [&] { run = run_case(comm, c, buffers, b.job); });
    deadline.check(b.out);
    if (!all_ok(b)) return false;
    const std::array<double, 4> sums = reduce_sums(run, b.comm);
    b.phase_s.back() +=
        (run.out_of_place.time_per_op_s + (run.in_place ? run.in_place->time_per_op_s : 0.0)) *
        b.job.run.iterations;
    if (b.rank != 0) continue;
    const collectives::TableRow row = row_of(c, run.in_place.has_value(), sums);
    b.rows.push_back(stored_row(c, *row.out_of_place, false, b.source));
    if (row.in_place) b.rows.push_back(stored_row(c, *row.in_place, true, b.source));
    if (b.table) *b.table << collectives::table_row(row) << std::flush;
  }
  if (b.table) *b.table << op_end(op, std::span(b.rows).subspan(first_row)) << std::flush;
  return true;
}

// Host buffers beyond the rank's share of the node's memory are refused before allocating
// (oom), as the training workloads do, rather than left to the kernel's OOM killer.
void check_buffer_budget(const collectives::BufferBytes& bytes, std::int64_t budget_bytes,
                         std::int64_t max_bytes) {
  const auto needed = static_cast<std::int64_t>(bytes.send + bytes.recv);
  core::check_memory_budget(
      needed, budget_bytes,
      "the send and receive buffers for max_bytes = " + std::to_string(max_bytes));
}

// Makes the communicator and the buffers, then runs every op; failures land in b.out.
void run_benchmark(Bench& b, const job::Config& config,
                   const CommunicatorFactory& make_communicator, std::string& backend) {
  const Deadline deadline(b.job.run.timeout_s);
  std::unique_ptr<core::Communicator> comm;
  std::vector<OpPlan> plans;
  collectives::BenchBuffers buffers;
  const std::int64_t host_budget =
      core::host_memory_budget_bytes(node_placement(b.comm).local_size);
  guarded(b.out, [&] {
    comm = make_communicator(b.comm);
    backend = comm->backend();
    b.preamble.backend = backend;
    plans = plan_ops(b.job.workload.collectives, config.ranks);
    const std::vector<BenchCase> cases = all_cases(plans);
    if (comm->memory_space() == core::MemorySpace::host)
      check_buffer_budget(collectives::buffer_bytes(cases), host_budget,
                          b.job.workload.collectives.max_bytes);
    buffers = collectives::allocate_buffers(*comm, cases);
    b.buffer_bytes = static_cast<std::int64_t>(buffers.send->bytes() + buffers.recv->bytes());
  });
  if (!all_ok(b)) return;
  for (const OpPlan& plan : plans)
    if (!run_op(b, *comm, plan, buffers, deadline)) return;
}

// Gathers the configuration's timings to rank 0 of b.comm.
void gather(const Bench& b, double wall_s, results::ConfigResult& r) {
  const auto all = static_cast<std::size_t>(b.rank == 0 ? r.ranks : 0);
  const auto phases = static_cast<int>(b.phase_s.size());
  r.step_time.assign(1, 0.0);
  r.rank_phase_time.assign(all * b.phase_s.size(), 0.0);
  r.rank_memory_peak.assign(all, 0);
  SCALETUNE_MPI_CHECK(MPI_Reduce(&wall_s, r.step_time.data(), 1, MPI_DOUBLE, MPI_MAX, 0, b.comm));
  SCALETUNE_MPI_CHECK(MPI_Gather(b.phase_s.data(), phases, MPI_DOUBLE, r.rank_phase_time.data(),
                                 phases, MPI_DOUBLE, 0, b.comm));
  SCALETUNE_MPI_CHECK(MPI_Gather(&b.buffer_bytes, 1, MPI_INT64_T, r.rank_memory_peak.data(), 1,
                                 MPI_INT64_T, 0, b.comm));
  r.phase_names = b.job.workload.collectives.ops;
  if (b.rank == 0) fill_step_statistics(r);
}

void describe_options(const job::CollectivesOptions& o, results::ConfigResult& r) {
  r.number_attrs["min_bytes"] = static_cast<double>(o.min_bytes);
  r.number_attrs["max_bytes"] = static_cast<double>(o.max_bytes);
  r.number_attrs["step_factor"] = o.step_factor;
  r.number_attrs["in_place"] = o.in_place ? 1.0 : 0.0;
  r.text_attrs["dtype"] = o.dtype;
  r.text_attrs["redop"] = o.redop;
  std::string ops;
  for (const std::string& op : o.ops) ops += (ops.empty() ? "" : ",") + op;
  r.text_attrs["ops"] = ops;
}

collectives::TestPreamble preamble(const job::JobSpec& job,
                                   const std::vector<std::string>& rank_lines) {
  const job::CollectivesOptions& o = job.workload.collectives;
  collectives::TestPreamble p;
  p.min_bytes = o.min_bytes;
  p.max_bytes = o.max_bytes;
  p.step_factor = o.step_factor;
  p.warmup = job.run.warmup;
  p.iterations = job.run.iterations;
  p.rank_lines = rank_lines;
  return p;
}

// A collective that returned wrong elements is a failed configuration (nccl-tests fails too);
// its rows stay, with their counts.
void fail_on_wrong(CollectivesRun& run) {
  std::int64_t wrong = 0;
  const results::CollectiveResult* first = nullptr;
  for (const auto& r : run.rows) {
    if (r.wrong <= 0) continue;
    wrong += r.wrong;
    if (!first) first = &r;
  }
  if (!first) return;
  run.config.status = Status::error;
  run.config.error = "verification failed: " + std::to_string(wrong) +
                     " wrong elements over all ops and sizes, the first in " + first->op + " of " +
                     std::to_string(first->bytes) + " B " +
                     (first->in_place ? "in place" : "out of place") +
                     "; the rows are stored with their counts in /collectives";
}

}  // namespace

CollectivesRun run_collectives_config(const job::JobSpec& job, const job::Config& config,
                                      MPI_Comm comm, const CommunicatorFactory& make_communicator,
                                      const std::vector<std::string>& rank_lines,
                                      std::ostream* table) {
  const auto start = Clock::now();
  Bench b(job, comm);
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(comm, &b.rank));
  b.table = b.rank == 0 ? table : nullptr;
  b.preamble = preamble(job, rank_lines);
  b.source = "scaletune:" + config.id;
  std::string backend = job.comm.backend;
  run_benchmark(b, config, make_communicator, backend);
  const double wall_s = std::chrono::duration<double>(Clock::now() - start).count();

  CollectivesRun run{describe(config), {}, {}};
  const AgreedStatus agreed = agree_status(comm, b.out.status, b.out.error, b.out.fatal_device);
  run.device_lost = agreed.device_lost;
  run.config.status = agreed.status;
  run.config.error = agreed.error;
  run.config.text_attrs["comm_backend"] = backend;
  describe_options(job.workload.collectives, run.config);
  if (agreed.status != Status::ok) return run;
  gather(b, wall_s, run.config);
  run.rows = std::move(b.rows);
  if (b.rank == 0) fail_on_wrong(run);
  return run;
}

}  // namespace scaletune::mpi
