// Side-by-side benchmark: the collective benchmark's timing of an MPI all-reduce and all-to-all
// (measure_case over MpiCommunicator) against a bare MPI loop of the same op, sizes, buffers
// and iteration counts. Run with 2 ranks: mpirun -np 2 build/bench/mpi_bench_collectives.
// Each size alternates the two measurements for `rounds` rounds (order flipped each round, so
// drift hits both) and prints the medians and their ratio, then the median ratio over sizes.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "harness/collectives/case_runner.hpp"
#include "harness/core/stats.hpp"
#include "harness/mpi/mpi_communicator.hpp"

namespace {

using scaletune::collectives::BenchCase;
using scaletune::collectives::CollectiveOp;

constexpr int kWarmup = 5;
constexpr int kRounds = 9;

// Iterations per timed block: about 256 MiB moved per block, 10 to 2000 iterations.
int iterations_for(std::int64_t bytes) {
  return static_cast<int>(std::clamp<std::int64_t>((std::int64_t{256} << 20) / bytes, 10, 2000));
}

// Mean over ranks of each rank's time per op, s.
double mean_over_ranks(double local_s, int ranks) {
  double sum = 0;
  MPI_Allreduce(&local_s, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum / ranks;
}

// The bare loop: what a user would write with MPI alone.
double bare_loop(const BenchCase& c, const void* send, void* recv, int iterations) {
  const int n = static_cast<int>(c.layout.count);
  const auto op = [&] {
    if (c.op == CollectiveOp::all_reduce)
      MPI_Allreduce(send, recv, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else
      MPI_Alltoall(send, n, MPI_FLOAT, recv, n, MPI_FLOAT, MPI_COMM_WORLD);
  };
  for (int i = 0; i < kWarmup; ++i) op();
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) op();
  return (MPI_Wtime() - t0) / iterations;
}

struct SizeResult {
  double harness_us = 0;
  double bare_us = 0;
};

SizeResult measure_size(scaletune::mpi::MpiCommunicator& comm, const BenchCase& c) {
  auto buffers = scaletune::collectives::allocate_buffers(comm, {c});
  const int iterations = iterations_for(c.layout.bytes);
  std::vector<double> harness, bare;
  for (int round = 0; round < kRounds; ++round) {
    const auto run_harness = [&] {
      const auto m = scaletune::collectives::measure_case(
          comm, c, scaletune::collectives::Placement::out_of_place, buffers, kWarmup, iterations);
      harness.push_back(mean_over_ranks(m.time_per_op_s, comm.size()) * 1e6);
    };
    const auto run_bare = [&] {
      const double t = bare_loop(c, buffers.send->data(), buffers.recv->data(), iterations);
      bare.push_back(mean_over_ranks(t, comm.size()) * 1e6);
    };
    if (round % 2 == 0) {
      run_harness();
      run_bare();
    } else {
      run_bare();
      run_harness();
    }
  }
  return {scaletune::core::median(harness), scaletune::core::median(bare)};
}

void run_op(scaletune::mpi::MpiCommunicator& comm, CollectiveOp op, const char* name) {
  const bool root = comm.rank() == 0;
  if (root)
    std::printf("# %s, float, %d ranks, median of %d rounds\n# %10s %12s %12s %8s\n", name,
                comm.size(), kRounds, "size (B)", "harness us", "bare us", "ratio");
  std::vector<double> ratios;
  for (std::int64_t bytes = 8; bytes <= (std::int64_t{64} << 20); bytes *= 2) {
    const BenchCase c = scaletune::collectives::make_case(
        op, bytes, scaletune::core::DType::fp32, scaletune::core::ReduceOp::sum, comm.size());
    if (c.layout.count == 0) continue;
    const SizeResult r = measure_size(comm, c);
    ratios.push_back(r.harness_us / r.bare_us);
    if (root)
      std::printf("%12lld %12.2f %12.2f %8.3f\n", static_cast<long long>(c.layout.bytes),
                  r.harness_us, r.bare_us, ratios.back());
  }
  if (root)
    std::printf("# %s: median harness/bare ratio over %zu sizes %.3f (min %.3f, max %.3f)\n\n",
                name, ratios.size(), scaletune::core::median(ratios),
                *std::min_element(ratios.begin(), ratios.end()),
                *std::max_element(ratios.begin(), ratios.end()));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    scaletune::mpi::MpiCommunicator comm(MPI_COMM_WORLD);
    run_op(comm, CollectiveOp::all_reduce, "all_reduce");
    run_op(comm, CollectiveOp::alltoall, "alltoall");
  }
  MPI_Finalize();
  return EXIT_SUCCESS;
}
