// scaletune predict JOB.toml [--model MODEL.h5] [--world N] [--out PRED.h5]
//                   [--compare RESULTS.h5...] [--device host|cuda]
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "autotune/critical_path.hpp"
#include "autotune/detail/format.hpp"
#include "autotune/performance_model.hpp"
#include "harness/cli/args.hpp"
#include "harness/cli/auto_sharding.hpp"
#include "harness/cli/bad_input.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/described_job.hpp"
#include "harness/cli/provenance.hpp"
#include "harness/cli/result_reading.hpp"
#include "harness/cli/subcommands.hpp"
#include "harness/core/backend_choice.hpp"
#include "harness/core/parallel_each.hpp"
#include "harness/core/stats.hpp"
#include "harness/job/job_error.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/mpi/config_runner.hpp"
#include "harness/mpi/sweep_runner.hpp"
#include "harness/results/model_file.hpp"
#include "harness/results/prediction_file.hpp"
#include "harness/results/result_file.hpp"
#include "kernels/describe/step_description.hpp"

namespace scaletune::cli {
namespace {

/// Threads that describe and compose configurations at once.
constexpr unsigned kPredictWorkers = 8;

constexpr const char* kUsage =
    "scaletune predict JOB.toml [--model MODEL.h5] [--world N] [--out PRED.h5] "
    "[--compare RESULTS.h5,...] [--device host|cuda] [--phases] [--ops]";

/// Measured step time of every ok configuration in the files, by id: its median step time, or
/// where several files (repeated runs of one job) hold it, the median of their medians, so one
/// run in a slow spell of a shared host moves the comparison less. Warns on stderr about a file
/// run from another job file than `job` (an id names ranks, batch and settings, not the shapes).
std::map<std::string, double> measured_steps(const std::string& list, const job::JobSpec& job) {
  std::map<std::string, std::vector<double>> runs;
  if (list.empty()) return {};  // no --compare (an empty one was refused before)
  for (const std::string& path : file_list("--compare", list)) {
    const results::ResultSet set = read_result_file("predict", path);
    if (set.provenance.job_toml != job.toml_text)
      std::cerr << "scaletune predict: warning: --compare " << path
                << " was run from another job file (its stored job differs from " << job.path
                << "); configurations of the same id are compared, but their shapes may differ\n";
    for (const results::ConfigResult& c : set.configs)
      if (c.status == results::Status::ok && c.step_time_median > 0)
        runs[c.id].push_back(c.step_time_median);
  }
  std::map<std::string, double> out;
  for (const auto& [id, medians] : runs) out[id] = core::median(medians);
  return out;
}

/// What a configuration's prediction rests on: each collective model it used once (with the
/// files it was fitted on), and per op kind that leaves its profiled range the first field
/// outside it and how many of its calls do.
struct Basis {
  std::map<std::string, bool> collectives;  ///< text -> whether it extrapolates
  std::vector<std::string> ops;

  /// Every line (collectives first).
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const auto& [text, extrapolates] : collectives) out.push_back(text);
    out.insert(out.end(), ops.begin(), ops.end());
    return out;
  }
  /// The lines that extrapolate.
  std::vector<std::string> extrapolations() const {
    std::vector<std::string> out;
    for (const auto& [text, extrapolates] : collectives)
      if (extrapolates) out.push_back(text);
    out.insert(out.end(), ops.begin(), ops.end());
    return out;
  }
};

/// The basis of a step whose every trace of `ranks` stands for `alike` ranks.
Basis basis_of(const std::vector<trace::RankTrace>& ranks, int alike,
               const autotune::PerformanceModel& model) {
  std::map<std::string, std::pair<std::string, int>> ops;  // op -> (first message, calls)
  Basis basis;
  for (const trace::RankTrace& t : ranks)
    for (const trace::Event& e : t.events) {
      if (e.kind == trace::EventKind::compute && model.extrapolates(e.compute)) {
        auto& [first, calls] = ops[e.compute.op];
        if (calls == 0) first = model.extrapolation(e.compute).front();
        calls += alike;
      }
      if (e.kind == trace::EventKind::collective && e.collective.participants > 1) {
        const autotune::CollectiveBasis b = model.collective_basis(e.collective);
        basis.collectives.emplace(b.text(), b.extrapolates());
      }
    }
  for (const auto& [op, x] : ops)
    basis.ops.push_back(
        op + ": " + x.first +
        (x.second > 1
             ? ", and " +
                   autotune::detail::counted(static_cast<std::size_t>(x.second - 1), "more call") +
                   " outside the profile"
             : ""));
  return basis;
}

/// The configuration as `run` records it, with the predicted step as its measurement.
results::ConfigResult described_result(const DescribedJob& d, const job::Config& config,
                                       const trace::RankTrace& first_rank, double step_time_s) {
  results::ConfigResult r = mpi::describe(config);
  r.device_kind = d.target_name();
  if (d.workload().describe)
    for (const auto& [key, value] : d.workload().describe(d.job.workload, config))
      r.text_attrs[key] = value;
  mpi::record_comm(r, d.job.comm, core::choose_backend(d.job.comm.backend, d.target, true));
  mpi::record_workload(r, first_rank.workload);
  r.step_time_median = r.step_time_p95 = step_time_s;
  r.throughput = r.global_batch / step_time_s;
  return r;
}

struct Predicted {
  results::PredictionRow row;
  std::vector<std::string> extrapolates;  ///< the basis lines that extrapolate
  std::string phases;  ///< the critical rank's compute per phase, "fwd=1.20 bwd=2.41" (ms)
  std::string ops;     ///< the critical rank's compute per op kind, largest first (ms)
};

/// The compute of `rank` per op kind, largest first, from its predicted spans.
std::string op_text(const std::vector<trace::TimelineSpan>& spans, int rank) {
  std::map<std::string, std::pair<double, int>> by_kind;
  for (const trace::TimelineSpan& span : spans)
    if (span.rank == rank && span.kind == trace::SpanKind::op) {
      auto& [time, calls] = by_kind[span.name];
      time += span.end_s - span.begin_s;
      ++calls;
    }
  std::vector<std::pair<double, std::string>> order;
  for (const auto& [op, x] : by_kind) order.push_back({x.first, op});
  std::sort(order.rbegin(), order.rend());
  std::string out;
  char cell[128];
  for (const auto& [time, op] : order) {
    std::snprintf(cell, sizeof cell, "%s%s=%.3f(%d)", out.empty() ? "" : " ", op.c_str(),
                  1e3 * time, by_kind[op].second);
    out += cell;
  }
  return out;
}

std::string phase_text(const trace::RankTrace& t, const autotune::RankBreakdown& b) {
  std::string out;
  char cell[96];
  for (std::size_t p = 0; p < t.phase_names.size(); ++p) {
    std::snprintf(cell, sizeof cell, "%s%s=%.3f", out.empty() ? "" : " ", t.phase_names[p].c_str(),
                  1e3 * b.phase_s.at(p));
    out += cell;
  }
  return out;
}

/// `spans` of rank 0 (of a step whose ranks are alike) copied to each of `ranks` ranks.
std::vector<trace::TimelineSpan> every_rank(std::vector<trace::TimelineSpan> spans, int ranks) {
  const std::size_t per_rank = spans.size();
  spans.reserve(per_rank * static_cast<std::size_t>(ranks));
  for (int r = 1; r < ranks; ++r)
    for (std::size_t i = 0; i < per_rank; ++i) {
      spans.push_back(spans[i]);
      spans.back().rank = r;
    }
  return spans;
}

/// Whether the ranks of `config` issue the same step (core::RanksAlike).
bool ranks_alike(const DescribedJob& d, const job::Config& config) {
  const core::RanksAlike& alike = d.workload().ranks_alike;
  return alike && alike(d.job, config);
}

/// The prediction of `config`; with `timeline`, its spans for every rank (else alike ranks keep
/// rank 0's only).
Predicted predict_config(const DescribedJob& d, const job::Config& config,
                         const autotune::PerformanceModel& model, bool timeline) {
  const bool alike = ranks_alike(d, config);
  const std::vector<trace::RankTrace> ranks =
      alike ? std::vector{kernels::describe::describe_alike_ranks(d.job, config, d.target,
                                                                  d.workload())}
            : kernels::describe::describe_ranks(d.job, config, d.target, d.workload());
  const autotune::OpTime op_time = [&](const trace::ComputeOp& op) { return model.op_time_s(op); };
  const autotune::CollectiveTime collective_time = [&](const trace::Collective& c) {
    return model.collective_time_s(c);
  };
  autotune::ComposedStep step =
      alike ? autotune::compose_alike_step(ranks.front(), config.ranks, op_time, collective_time)
            : autotune::compose_step(ranks, op_time, collective_time);
  const autotune::RankBreakdown& critical =
      step.ranks.at(static_cast<std::size_t>(step.critical_rank));
  Predicted p;
  p.ops = op_text(step.spans, step.critical_rank);
  p.row = {
      config.id,
      config.ranks,
      step.step_time_s,
      config.global_batch / step.step_time_s,
      critical.compute_s,
      critical.exposed_communication_s,
      critical.waiting_s,
      step.critical_rank,
      std::numeric_limits<double>::quiet_NaN(),
      alike && timeline ? every_rank(std::move(step.spans), config.ranks) : std::move(step.spans),
      described_result(d, config, ranks.front(), step.step_time_s),
      {}};
  const Basis basis = basis_of(ranks, alike ? config.ranks : 1, model);
  p.row.basis = basis.lines();
  p.extrapolates = basis.extrapolations();
  p.phases = phase_text(ranks.at(static_cast<std::size_t>(step.critical_rank)), critical);
  return p;
}

/// A configuration's prediction, or why it has none.
struct Outcome {
  Predicted predicted;
  std::string failure;  ///< "ID: not predicted: why"; empty when predicted
};

/// Every configuration of `d` predicted, in order, on the host's cores (descriptions and
/// compositions are independent), with every rank's spans when `timelines`. Throws
/// autotune::MissingModel when the model lacks an op kind a configuration needs: bad input of the
/// whole command.
std::vector<Outcome> predict_configs(const DescribedJob& d, const autotune::PerformanceModel& model,
                                     bool timelines) {
  std::vector<Outcome> out(d.configs.size());
  core::parallel_each(out.size(), kPredictWorkers, [&](std::size_t i, unsigned) {
    const job::Config& config = d.configs[i];
    try {
      expect_allocation_holds(d.job, config.ranks);
      out[i].predicted = predict_config(d, config, model, timelines);
    } catch (const autotune::MissingCollectiveModel& e) {
      out[i].failure = config.id + ": not predicted: " + e.what();
    } catch (const autotune::MissingModel&) {
      throw;  // an op kind the model lacks: bad input of the whole command
    } catch (const std::exception& e) {
      out[i].failure = config.id + ": not predicted: " + e.what();
    }
  });
  return out;
}

void print_header(bool compare) {
  std::printf("%-46s %5s %11s %12s %10s %10s %10s %5s", "config", "ranks", "step (ms)", "samples/s",
              "compute", "exposed", "waiting", "crit");
  if (compare) std::printf(" %12s %8s", "measured", "error");
  std::printf("\n");
}

void print_row(const Predicted& p, bool phases, bool ops) {
  const results::PredictionRow& r = p.row;
  std::printf("%-46s %5d %11.3f %12.1f %10.3f %10.3f %10.3f %5d", r.config.c_str(), r.ranks,
              1e3 * r.step_time, r.throughput, 1e3 * r.compute_s, 1e3 * r.exposed_communication_s,
              1e3 * r.waiting_s, r.critical_rank);
  if (std::isfinite(r.measured_step_time))
    std::printf(" %12.3f %+7.1f%%", 1e3 * r.measured_step_time,
                100.0 * (r.step_time / r.measured_step_time - 1.0));
  std::printf("\n");
  if (phases) std::printf("    compute by phase (ms): %s\n", p.phases.c_str());
  if (ops) std::printf("    compute by op, ms (calls): %s\n", p.ops.c_str());
  for (std::size_t i = 0; i < p.extrapolates.size() && i < 3; ++i)
    std::printf("    extrapolates: %s\n", p.extrapolates[i].c_str());
  if (p.extrapolates.size() > 3)
    std::printf("    extrapolates: ... and %zu more\n", p.extrapolates.size() - 3);
}

int predict(const Args& args, int argc, char** argv) {
  const std::string model_path = args.options.contains("--model")
                                     ? args.option("--model")
                                     : job::parse_job_file(args.positional.front()).predict.model;
  if (model_path.empty())
    throw UsageError("--model MODEL.h5 is required (or [predict] model in the job file); usage: " +
                     std::string(kUsage));
  const results::ModelSet models = results::read_model_file(model_path);
  autotune::PerformanceModel model(models);
  Args described_args = args;
  if (!args.options.contains("--device") && !model.device_kind().empty())
    described_args.options["--device"] = model.device_kind();
  DescribedJob d = load_described_job(described_args);
  model.set_ranks_per_node(predicted_ranks_per_node(d.job));
  naming_model_file(model_path, [&] {
    choose_auto_shardings(d.job, d.configs,
                          ShardingModel{model, model_path, d.target, d.workload()});
  });
  const job::DeviceKindRequest asked = d.job.devices.kind;
  const std::string job_kind = asked == job::DeviceKindRequest::cuda   ? "cuda"
                               : asked == job::DeviceKindRequest::host ? "host"
                                                                       : d.target_name();
  for (const std::string& kind : {job_kind, d.target_name()})
    if (!model.device_kind().empty() && model.device_kind() != kind) {
      std::cerr << "scaletune predict: warning: the model was fitted on " << model.device_kind()
                << " devices; the job is described for " << kind << " devices\n";
      break;
    }
  const std::map<std::string, double> measured = measured_steps(args.option("--compare"), d.job);
  std::vector<Outcome> outcomes = naming_model_file(
      model_path, [&] { return predict_configs(d, model, args.options.contains("--out")); });
  print_header(!measured.empty());
  std::vector<results::PredictionRow> rows;
  double log_error = 0.0, abs_error = 0.0;
  int compared = 0;
  std::size_t failed = 0;
  for (Outcome& o : outcomes) {
    if (!o.failure.empty()) {
      std::printf("%s\n", o.failure.c_str());
      ++failed;
      continue;
    }
    Predicted& p = o.predicted;
    if (const auto it = measured.find(p.row.config); it != measured.end()) {
      p.row.measured_step_time = it->second;
      const double error = std::abs(p.row.step_time / it->second - 1.0);
      log_error += std::log(std::max(error, 1e-6));
      abs_error += error;
      ++compared;
    }
    print_row(p, args.flags.contains("--phases"), args.flags.contains("--ops"));
    rows.push_back(std::move(p.row));
  }
  // The mean beside the geomean: one configuration predicted almost exactly pulls the geomean
  // towards 0.
  if (compared > 0)
    std::printf("geomean |error| over %d measured configurations: %.1f%% (mean %.1f%%)\n", compared,
                100.0 * std::exp(log_error / compared), 100.0 * abs_error / compared);
  else if (args.options.contains("--compare"))
    std::cerr << "scaletune predict: warning: --compare " << args.option("--compare")
              << " holds no ok configuration of this job's ids; nothing was compared\n";
  if (args.options.contains("--out")) {
    results::Provenance provenance = command_provenance(argc, argv);
    provenance.created_utc = mpi::utc_now();
    results::write_prediction_file(args.option("--out"), provenance, rows);
  }
  return failed == 0 ? kOk : kRunFailed;
}

/// scaletune predict, its bad input thrown (the command reports it).
int predict_unguarded(int argc, char** argv) {
  const Args args =
      parse_args(argc, argv, 2, "predict", {"--model", "--world", "--out", "--compare", "--device"},
                 {"--phases", "--ops"});
  expect_positionals(args, 1, 1, kUsage);
  if (args.options.contains("--compare")) file_list("--compare", args.option("--compare"));
  if (args.options.contains("--out")) {
    const std::string out = args.option("--out");
    expect_h5_path("--out", out);
    if (std::filesystem::exists(out))
      throw UsageError("--out " + out +
                       " exists; scaletune never overwrites a file: predict into a new one");
  }
  const Kokkos::ScopeGuard kokkos;  // workloads draw their inputs in host views
  return predict(args, argc, argv);
}

}  // namespace

int predict_command(int argc, char** argv) {
  return guard_bad_input<UsageError, job::JobError, results::ResultError, autotune::MissingModel>(
      "predict", [&] { return predict_unguarded(argc, argv); });
}

}  // namespace scaletune::cli
