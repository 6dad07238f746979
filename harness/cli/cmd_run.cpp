// scaletune run JOB.toml [--out FILE.h5] [--resume] [--ranks K,...] [--model MODEL.h5]
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <exception>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "harness/cli/args.hpp"
#include "harness/cli/auto_sharding.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/mpi_session.hpp"
#include "harness/cli/provenance.hpp"
#include "harness/cli/run_backend.hpp"
#include "harness/cli/subcommands.hpp"
#include "harness/core/backend_choice.hpp"
#include "harness/core/error_context.hpp"
#include "harness/job/device_selection.hpp"
#include "harness/job/job_error.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "harness/mpi/cancel_request.hpp"
#include "harness/mpi/config_kinds.hpp"
#include "harness/mpi/host_names.hpp"
#include "harness/mpi/mpi_error.hpp"
#include "harness/mpi/shared_cores.hpp"
#include "harness/mpi/sweep_runner.hpp"
#include "harness/results/result_error.hpp"
#include "kernels/host/blas_info.hpp"
#include "kernels/workloads.hpp"

namespace scaletune::cli {

namespace {

constexpr const char* kUsage =
    "scaletune run JOB.toml [--out FILE.h5] [--resume] [--ranks K,...] [--model MODEL.h5]";

// Rank 0 reads the job file; every rank gets its text. When rank 0 cannot read it, rank 0
// rethrows its JobError and the other ranks throw one of their own (only rank 0 prints).
std::string read_job_text(const std::string& path, int rank) {
  std::string text;
  std::exception_ptr failure;
  if (rank == 0) {
    try {
      text = job::read_job_file_text(path);
    } catch (const job::JobError&) {
      failure = std::current_exception();
    }
  }
  int readable = failure ? 0 : 1;
  SCALETUNE_MPI_CHECK(MPI_Bcast(&readable, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (failure) std::rethrow_exception(failure);
  if (!readable) throw job::JobError(path, 0, 0, "", "rank 0 could not read the job file");
  int len = static_cast<int>(text.size());  // at most 1 MiB (read_job_file_text)
  SCALETUNE_MPI_CHECK(MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD));
  text.resize(static_cast<std::size_t>(len));
  SCALETUNE_MPI_CHECK(MPI_Bcast(text.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD));
  return text;
}

// The run's backend; a backend that cannot run here is bad input of the job file (nothing runs).
RunBackend backend_for(const job::JobSpec& spec) {
  try {
    return choose_run_backend(spec, MPI_COMM_WORLD);
  } catch (const core::BackendUnavailable& e) {
    throw core::BackendUnavailable(spec.path + ": " + e.what());
  } catch (const job::DeviceUnavailable& e) {
    throw core::BackendUnavailable(spec.path + ": " + e.what());
  }
}

// devices.memory_gib lists one value for every rank or one per rank of the launch.
void check_memory_list(const job::JobSpec& spec) {
  const std::size_t values = spec.devices.memory_gib.size();
  int world = 1;
  SCALETUNE_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &world));
  if (values <= 1 || values >= static_cast<std::size_t>(world)) return;
  throw job::JobError(
      spec.path, 0, 0, "devices.memory_gib",
      "devices.memory_gib lists " + std::to_string(values) + " values but the launch has " +
          std::to_string(world) +
          " ranks; give one number for every rank, or a list with one value per rank");
}

// The configurations whose rank count --ranks lists (all without --ranks). Throws UsageError
// for a list that is not rank counts, lists one twice or names a count the sweep does not have.
std::vector<job::Config> only_ranks(std::vector<job::Config> configs, const Args& args) {
  if (!args.options.contains("--ranks")) return configs;
  const std::string list = args.option("--ranks");
  std::set<int> wanted;
  for (std::size_t begin = 0, end = 0; end != std::string::npos; begin = end + 1) {
    end = list.find(',', begin);
    const int k = parse_rank_count("--ranks", list.substr(begin, end - begin));
    if (!wanted.insert(k).second)
      throw UsageError("--ranks " + list + ": " + std::to_string(k) + " is listed twice");
  }
  for (int k : wanted)
    if (std::ranges::none_of(configs, [k](const job::Config& c) { return c.ranks == k; }))
      throw UsageError("--ranks " + list + ": the sweep has no configuration of " +
                       std::to_string(k) + " ranks");
  std::erase_if(configs, [&](const job::Config& c) { return !wanted.contains(c.ranks); });
  return configs;
}

int run_job(const Args& args, int argc, char** argv, int rank) {
  const std::string path = args.positional.front();
  const job::JobSpec spec = job::parse_job_text(read_job_text(path, rank), path);
  check_memory_list(spec);
  auto configs = only_ranks(job::expand_sweep(spec), args);
  mpi::SweepOptions options;
  options.out_path = args.option("--out", spec.job.output);
  expect_h5_path("--out", options.out_path);
  options.resume = args.flags.contains("--resume");
  options.provenance = command_provenance(argc, argv);
  options.blas = kernels::blas_description();
  RunBackend backend = backend_for(spec);
  core::set_error_context(rank, mpi::processor_name(), backend.device->name());
  use_backend(options, backend);
  core::WorkloadRegistry workloads;
  kernels::register_workloads(workloads);
  if (has_auto_sharding(configs)) {  // dlrm only
    const std::string warning =
        choose_auto_shardings(spec, configs, sharding_model_path(args, spec), backend.device_kind,
                              workloads.entry(spec.workload.kind));
    if (rank == 0 && !warning.empty()) std::cerr << "scaletune run: " << warning << "\n";
  }
  if (const std::string shared = mpi::shared_core_warning(MPI_COMM_WORLD); !shared.empty())
    std::cerr << "scaletune run: warning: " << shared << "\n";
  mpi::ConfigKinds kinds(workloads);
  mpi::add_collective_benchmark(kinds);
  options.kinds = &kinds;
  std::ostream& out = std::cout;
  const auto s = mpi::run_sweep(spec, configs, options, MPI_COMM_WORLD, out);
  if (rank == 0)
    out << "scaletune run: " << s.ok << " ok, " << s.failed << " failed, " << s.skipped
        << " skipped, " << s.resumed << " resumed; results in " << options.out_path << std::endl;
  return s.failed > 0 ? kRunFailed : kOk;
}

}  // namespace

int run_command(int argc, char** argv) {
  MpiSession mpi(argc, argv);
  int rank = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  core::set_error_context(rank, mpi::processor_name(), "");  // the device once it is bound
  kernels::set_blas_threads(1);    // one rank stands for one device (one core)
  mpi::install_cancel_handlers();  // SIGTERM/SIGINT: the running configuration is cancelled
  // Kokkos reads its settings from KOKKOS_* variables, not from argv, so it never consumes or
  // answers the command line's options.
  const Kokkos::ScopeGuard kokkos;
  try {
    const Args args =
        parse_args(argc, argv, 2, "run", {"--out", "--ranks", "--model"}, {"--resume"});
    expect_positionals(args, 1, 1, kUsage);
    return run_job(args, argc, argv, rank);
  } catch (const UsageError& e) {
    if (rank == 0) std::cerr << "scaletune run: " << e.what() << "\n";
    return kBadInput;
  } catch (const job::JobError& e) {
    if (rank == 0) std::cerr << "scaletune run: " << e.what() << "\n";
    return kBadInput;
  } catch (const core::BackendUnavailable& e) {
    if (rank == 0) std::cerr << "scaletune run: " << e.what() << "\n";
    return kBadInput;
  } catch (const results::ResultError& e) {  // the sharding model file
    if (rank == 0) std::cerr << "scaletune run: " << e.what() << "\n";
    return kBadInput;
  } catch (const autotune::MissingModel& e) {
    if (rank == 0) std::cerr << "scaletune run: " << e.what() << "\n";
    return kBadInput;
  } catch (const mpi::SweepStopped& e) {
    // Every rank throws it; the configuration and the rank's message are already recorded.
    if (rank == 0) std::cerr << "scaletune run: " << e.what() << "\n";
    return kRunFailed;
  } catch (const mpi::SweepCancelled& e) {
    // Every rank throws it; the running configuration is already recorded as cancelled.
    if (rank == 0) std::cerr << "scaletune run: " << e.what() << "\n";
    return kRunFailed;
  } catch (const mpi::WriteFailed& e) {
    if (rank == 0)
      std::cerr << "scaletune run: " << e.what()
                << "; rerun with --resume once the file can grow\n";
    return kRunFailed;
  } catch (const mpi::OutputError& e) {
    if (rank == 0) std::cerr << "scaletune run: cannot write the result file: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    // Every rank says it: an error that reached only some ranks must not go unseen.
    std::cerr << "scaletune run: error on rank " << rank << ": " << e.what() << "\n";
    return kRunFailed;
  }
}

}  // namespace scaletune::cli
