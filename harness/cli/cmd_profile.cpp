// scaletune profile [--out PROFILE.h5] [--jobs JOB.toml,...]
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "harness/cli/args.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/mpi_session.hpp"
#include "harness/cli/provenance.hpp"
#include "harness/cli/run_backend.hpp"
#include "harness/cli/subcommands.hpp"
#include "harness/core/backend_choice.hpp"
#include "harness/core/error_context.hpp"
#include "harness/core/workload_registry.hpp"
#include "harness/job/device_selection.hpp"
#include "harness/job/job_error.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "harness/mpi/config_kinds.hpp"
#include "harness/mpi/host_names.hpp"
#include "harness/mpi/mpi_error.hpp"
#include "harness/mpi/on_root.hpp"
#include "harness/mpi/sweep_runner.hpp"
#include "harness/results/result_file.hpp"
#include "kernels/describe/step_description.hpp"
#include "kernels/host/blas_info.hpp"
#include "kernels/profile/op_grid.hpp"
#include "kernels/profile/op_profile.hpp"
#include "kernels/rank_backend.hpp"
#include "kernels/workloads.hpp"

namespace scaletune::cli {
namespace {

constexpr const char* kUsage = "scaletune profile [--out PROFILE.h5] [--jobs JOB.toml,...]";
constexpr const char* kDefaultOut = "results/profile.h5";

/// The collective benchmark the profile runs: every op at 8 B x 4^k within 4 MiB (host: up to
/// 2 MiB) or 256 MiB (cuda: up to 128 MiB) on 2..W ranks (1 rank when the launch has one), on
/// CUDA devices when every rank has one.
std::string collectives_job_text(int world, bool cuda) {
  std::string ranks;
  for (int n = world == 1 ? 1 : 2; n <= world; ++n)
    ranks += (ranks.empty() ? "" : ", ") + std::to_string(n);
  return "# the collectives of scaletune profile\n[job]\nname = \"profile\"\n"
         "[workload]\nkind = \"collectives\"\n"
         "ops = [\"all_reduce\", \"reduce_scatter\", \"all_gather\", \"all_gatherv\", "
         "\"alltoall\", "
         "\"alltoallv\", \"broadcast\"]\n"
         "min_bytes = 8\nmax_bytes = " +
         std::string(cuda ? "268435456" : "4194304") +
         "\nstep_factor = 4\ndtype = \"fp32\"\nin_place = false\n"
         "[sweep]\nranks = [" +
         ranks +
         "]\n[run]\nwarmup = 2\niterations = 10\ntimeout_s = 600\n"
         "[devices]\nkind = \"auto\"\n";
}

/// `config`, or for sharding "auto" (chosen by a model, so not yet known) the configuration
/// under every built-in scheme, whose shards the candidates are made of.
std::vector<job::Config> profiled_variants(const job::Config& config) {
  const auto* sharding = std::get_if<job::DlrmSharding>(&config.sharding);
  if (sharding == nullptr || sharding->scheme != job::ShardingScheme::automatic) return {config};
  std::vector<job::Config> variants;
  for (const job::ShardingScheme scheme : job::kShardingSchemes) {
    job::Config c = config;
    c.sharding = job::DlrmSharding{scheme, "", nullptr};
    variants.push_back(std::move(c));
  }
  return variants;
}

/// The ops of every fixed-split configuration of the jobs, described for `kind`, each once;
/// embedding lookups draw indices with the job's law.
std::vector<trace::ComputeOp> job_ops(const std::vector<std::string>& paths,
                                      core::DeviceKind kind) {
  core::WorkloadRegistry registry;
  kernels::register_workloads(registry);
  std::map<std::string, trace::ComputeOp> ops;
  for (const std::string& path : paths) {
    const job::JobSpec job = job::parse_job_file(path);
    const std::vector<std::string> kinds = registry.kinds();
    if (std::find(kinds.begin(), kinds.end(), job.workload.kind) == kinds.end()) continue;
    const job::IndexDistribution& law = job.workload.dlrm.index_distribution;
    const std::int64_t zipf_milli =
        law.law == job::IndexLaw::zipf ? std::llround(law.zipf_alpha * 1000.0) : 0;
    for (const job::Config& swept : job::expand_sweep(job)) {
      if (swept.per_rank_batch.empty()) continue;
      for (const job::Config& config : profiled_variants(swept))
        for (const trace::RankTrace& rank : kernels::describe::describe_ranks(
                 job, config, kind, registry.entry(job.workload.kind)))
          for (const trace::Event& e : rank.events) {
            if (e.kind != trace::EventKind::compute) continue;
            trace::ComputeOp op = e.compute;
            if (op.op.starts_with("embedding_bag")) op.shape.push_back({"zipf_milli", zipf_milli});
            ops.emplace(op.op + " " + op.dtype + " " + trace::shape_text(op.shape), op);
          }
    }
  }
  std::vector<trace::ComputeOp> out;
  for (auto& [key, op] : ops) out.push_back(std::move(op));
  return out;
}

/// Every rank's samples as /ops rows on rank 0 (records from rank 0: every rank ran the same
/// ops); ops that failed on a rank are left out for that rank.
std::vector<results::OpTiming> gather_rows(const std::vector<kernels::profile::OpSample>& mine,
                                           const std::string& device, int rank, int world) {
  const int n = static_cast<int>(mine.size());
  std::vector<double> times(mine.size()), iqr(mine.size()), calls(mine.size());
  for (std::size_t i = 0; i < mine.size(); ++i) {
    times[i] = mine[i].time_s;
    iqr[i] = mine[i].iqr_s;
    calls[i] = mine[i].error.empty() ? mine[i].calls : 0;
  }
  const auto all = static_cast<std::size_t>(rank == 0 ? world * n : 0);
  std::vector<double> all_times(all), all_iqr(all), all_calls(all);
  SCALETUNE_MPI_CHECK(
      MPI_Gather(times.data(), n, MPI_DOUBLE, all_times.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  SCALETUNE_MPI_CHECK(
      MPI_Gather(iqr.data(), n, MPI_DOUBLE, all_iqr.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  SCALETUNE_MPI_CHECK(
      MPI_Gather(calls.data(), n, MPI_DOUBLE, all_calls.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  std::array<char, 128> name{};
  std::strncpy(name.data(), device.c_str(), name.size() - 1);
  std::vector<char> names(static_cast<std::size_t>(rank == 0 ? world : 0) * name.size());
  SCALETUNE_MPI_CHECK(MPI_Gather(name.data(), static_cast<int>(name.size()), MPI_CHAR, names.data(),
                                 static_cast<int>(name.size()), MPI_CHAR, 0, MPI_COMM_WORLD));
  std::vector<results::OpTiming> rows;
  for (int r = 0; r < (rank == 0 ? world : 0); ++r)
    for (std::size_t i = 0; i < mine.size(); ++i) {
      const std::size_t at = static_cast<std::size_t>(r) * mine.size() + i;
      if (all_calls[at] < 1) continue;
      const trace::ComputeOp& op = mine[i].record;
      results::OpTiming row{op.op,
                            op.dtype,
                            std::string(names.data() + r * name.size()),
                            r,
                            trace::shape_text(op.shape),
                            all_times[at],
                            all_iqr[at],
                            static_cast<int>(all_calls[at]),
                            op.flops,
                            op.bytes,
                            {}};
      std::copy_n(op.reuse_histogram.begin(), std::min<std::size_t>(17, op.reuse_histogram.size()),
                  row.reuse.begin());
      rows.push_back(std::move(row));
    }
  return rows;
}

int profile(const Args& args, int argc, char** argv, int rank, int world) {
  const std::string out = args.option("--out", kDefaultOut);
  expect_h5_path("--out", out);
  if (std::filesystem::exists(out))
    throw UsageError("--out " + out +
                     " exists; scaletune never overwrites results: profile into a new file");
  const job::JobSpec collectives =
      job::parse_job_text(collectives_job_text(world, false), "profile collectives");
  RunBackend backend = choose_run_backend(collectives, MPI_COMM_WORLD);
  const bool cuda = backend.device_kind == core::DeviceKind::cuda;
  const job::JobSpec bench =
      cuda ? job::parse_job_text(collectives_job_text(world, true), "profile collectives")
           : collectives;
  if (cuda) backend = choose_run_backend(bench, MPI_COMM_WORLD);
  core::set_error_context(rank, mpi::processor_name(), backend.device->name());
  std::vector<trace::ComputeOp> ops = kernels::profile::default_op_grid(backend.device_kind);
  const std::vector<trace::ComputeOp> from_jobs =
      job_ops(comma_list(args.option("--jobs")), backend.device_kind);
  ops.insert(ops.end(), from_jobs.begin(), from_jobs.end());
  core::RankContext ctx;
  ctx.device = backend.device.get();
  const std::unique_ptr<ops::Backend> ops_backend = kernels::make_backend(ctx);
  if (rank == 0)
    std::cout << "scaletune profile: " << ops.size() << " ops (" << from_jobs.size()
              << " from --jobs) on every rank, then the collectives on 1.." << world << " ranks"
              << std::endl;
  const auto samples = kernels::profile::profile_ops(
      *ops_backend, *backend.device, ops, {},
      [&](std::size_t i, const kernels::profile::OpSample& s) {
        if (rank != 0 || ((i + 1) % 50 != 0 && i + 1 != ops.size())) return;
        std::cout << "[" << i + 1 << "/" << ops.size() << "] " << s.record.op << " "
                  << trace::shape_text(s.record.shape) << "  " << s.time_s * 1e6 << " us"
                  << std::endl;
      });
  const std::vector<results::OpTiming> rows =
      gather_rows(samples, backend.device->name(), rank, world);
  results::Provenance provenance = command_provenance(argc, argv);
  provenance.job_toml = collectives_job_text(world, cuda);
  provenance.created_utc = mpi::utc_now();
  mpi::on_root<mpi::WriteFailed>(MPI_COMM_WORLD, [&] {
    try {
      results::ResultWriter writer = results::ResultWriter::create(out, provenance, {});
      writer.write_ops(rows);
    } catch (const results::ResultError&) {
      std::error_code ignored;  // the file this profile created holds no op: none is left
      std::filesystem::remove(out, ignored);
      throw;
    }
  });
  mpi::SweepOptions options;
  options.out_path = out;
  options.resume = true;
  options.provenance = command_provenance(argc, argv);
  options.blas = kernels::blas_description();
  use_backend(options, backend);
  core::WorkloadRegistry workloads;
  mpi::ConfigKinds kinds(workloads);
  mpi::add_collective_benchmark(kinds);
  options.kinds = &kinds;
  const mpi::SweepSummary s =
      mpi::run_sweep(bench, job::expand_sweep(bench), options, MPI_COMM_WORLD, std::cout);
  if (rank == 0)
    std::cout << "scaletune profile: " << rows.size() << " op timings and " << s.ok
              << " collective configurations in " << out << std::endl;
  return s.failed > 0 ? kRunFailed : kOk;
}

}  // namespace

int profile_command(int argc, char** argv) {
  MpiSession mpi(argc, argv);
  int rank = 0, world = 1;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  SCALETUNE_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &world));
  core::set_error_context(rank, mpi::processor_name(), "");
  kernels::set_blas_threads(1);
  const Kokkos::ScopeGuard kokkos;
  try {
    const Args args = parse_args(argc, argv, 2, "profile", {"--out", "--jobs"}, {});
    expect_positionals(args, 0, 0, kUsage);
    return profile(args, argc, argv, rank, world);
  } catch (const UsageError& e) {
    if (rank == 0) std::cerr << "scaletune profile: " << e.what() << "\n";
    return kBadInput;
  } catch (const job::JobError& e) {
    if (rank == 0) std::cerr << "scaletune profile: " << e.what() << "\n";
    return kBadInput;
  } catch (const mpi::WriteFailed& e) {
    if (rank == 0) std::cerr << "scaletune profile: " << e.what() << "\n";
    return kRunFailed;
  } catch (const std::exception& e) {
    std::cerr << "scaletune profile: error on rank " << rank << ": " << e.what() << "\n";
    return kRunFailed;
  }
}

}  // namespace scaletune::cli
