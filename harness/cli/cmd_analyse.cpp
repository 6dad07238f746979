// scaletune inspect FILE.h5 and scaletune autotune FILE.h5... [--objective NAME] [--report FILE.md]
// [--prices FILE.toml] [--train-samples N] [--weights NAME=W,...] [--predictions PRED.h5]
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <iterator>
#include <set>

#include "autotune/accelerators.hpp"
#include "autotune/autotune.hpp"
#include "autotune/collectives_table.hpp"
#include "autotune/mlperf_import.hpp"
#include "autotune/prediction_ranking.hpp"
#include "autotune/ranked_analysis.hpp"
#include "autotune/report_plots.hpp"
#include "harness/cli/args.hpp"
#include "harness/cli/bad_input.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/result_reading.hpp"
#include "harness/cli/subcommands.hpp"
#include "harness/cli/text_output.hpp"
#include "harness/results/model_file.hpp"
#include "harness/results/prediction_file.hpp"
#include "harness/results/result_error.hpp"

namespace scaletune::cli {

namespace {

// "mlperf" for a file of imported MLPerf submissions, "sweep" for one with measured
// configurations, "" for one with neither (collective results only).
std::string kind_of(const results::ResultSet& rs) {
  if (std::ranges::any_of(rs.configs, autotune::is_mlperf_config)) return "mlperf";
  return std::ranges::any_of(rs.configs, autotune::is_training_config) ? "sweep" : "";
}

// Whether a configuration of `rs` takes its devices from /system: one of ours that ran but has
// no launch record (files from before launch records).
bool relies_on_system(const results::ResultSet& rs) {
  return std::ranges::any_of(rs.configs, [](const results::ConfigResult& c) {
    return !c.launch && c.status != results::Status::skipped && !autotune::is_mlperf_config(c);
  });
}

// The device model of each rank of `rs`'s /system (empty without one).
std::vector<std::string> device_models(const results::ResultSet& rs) {
  std::vector<std::string> models;
  if (rs.system)
    for (const auto& r : rs.system->ranks) models.push_back(autotune::device_model(r.device));
  return models;
}

// Throws UsageError when `next` cannot be analysed with `merged`: MLPerf submissions with
// measured sweeps (their times to train differ in kind), or, when a file's configurations take
// their devices from /system (relies_on_system), sweeps on other devices (the merged set keeps
// one /system for all of them).
void expect_compatible(const results::ResultSet& merged, const results::ResultSet& next) {
  const std::string a = kind_of(merged), b = kind_of(next);
  if (!a.empty() && !b.empty() && a != b)
    throw UsageError(merged.path + " and " + next.path +
                     " mix MLPerf submissions with measured sweeps: an MLPerf time to train is "
                     "a score to the target accuracy, a sweep's an estimate from its throughput; "
                     "analyse them apart");
  if (!relies_on_system(merged) && !relies_on_system(next)) return;
  const auto first = device_models(merged), other = device_models(next);
  for (std::size_t r = 0; r < std::min(first.size(), other.size()); ++r)
    if (first[r] != other[r])
      throw UsageError(merged.path + " and " + next.path + " ran on different devices (rank " +
                       std::to_string(r) + ": " + first[r] + ", " + other[r] +
                       "); analyse them apart");
}

// Reads every file; configurations and /collectives rows of later files join the first
// file's. An id stored in two files is bad input (the merged table would be ambiguous), and so
// are files that cannot be compared (expect_compatible).
results::ResultSet load_all(const std::vector<std::string>& paths) {
  results::ResultSet merged = read_result_file("autotune", paths.front());
  std::set<std::string> ids;
  for (const auto& c : merged.configs) ids.insert(c.id);
  for (std::size_t i = 1; i < paths.size(); ++i) {
    results::ResultSet next = read_result_file("autotune", paths[i]);
    expect_compatible(merged, next);
    if (next.system && (!merged.system || next.system->ranks.size() > merged.system->ranks.size()))
      merged.system = next.system;  // the same devices where a configuration needs them
    for (auto& c : next.configs) {
      if (!ids.insert(c.id).second)
        throw UsageError("configuration '" + c.id + "' is in " + paths[i] +
                         " and in an earlier file: ids name only the swept settings, so results "
                         "for the same sweep point cannot be merged; analyse the files apart");
      merged.configs.push_back(std::move(c));
    }
    std::ranges::move(next.collectives, std::back_inserter(merged.collectives));
  }
  return merged;
}

// Throws UsageError when `rs` has no training configuration: autotune ranks and fits training
// throughput, and collective results alone give none.
void expect_training_configs(const results::ResultSet& rs, const std::vector<std::string>& paths,
                             std::size_t training_configs) {
  if (training_configs > 0) return;
  std::string files;
  for (const std::string& p : paths) files += (files.empty() ? "" : ", ") + p;
  throw UsageError(files + ": no training configuration to rank (collective benchmark " +
                   "configurations: " + std::to_string(rs.configs.size()) +
                   ", /collectives rows: " + std::to_string(rs.collectives.size()) +
                   "); autotune ranks and fits the throughput of training workloads (scaletune "
                   "run with a resnet50 job); list collective results with scaletune inspect");
}

const TextOutput kReport{"--report", "report", "results/report.md"};

const std::set<std::string> kAutotuneOptions = {"--objective",     "--report",  "--prices",
                                                "--train-samples", "--weights", "--predictions"};
constexpr const char* kAutotuneUsage =
    "scaletune autotune FILE.h5... [--objective NAME] [--report FILE.md] [--prices FILE.toml] "
    "[--train-samples N] [--weights NAME=W,...] [--predictions PRED.h5]";

/// The --predictions section (empty without the option): PRED.h5 joined to the measured `rs`.
autotune::PredictionSection predictions(const Args& args, const results::ResultSet& rs,
                                        autotune::Objective objective,
                                        const autotune::MetricsOptions& options) {
  if (!args.options.contains("--predictions")) return {};
  const std::string path = args.option("--predictions");
  if (path.empty()) throw UsageError("--predictions takes a file of scaletune predict --out");
  const auto rows = results::read_prediction_file(path);
  return autotune::prediction_section(
      autotune::rank_with_predictions(rs, path, rows, objective, options));
}

/// --train-samples N: a number of samples > 0. Throws UsageError for anything else.
double train_samples(const Args& args) {
  const std::string text = args.option("--train-samples");
  if (text.empty()) return autotune::kDefaultTrainSamples;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value) || value <= 0)
    throw UsageError("--train-samples takes a number of samples > 0, got '" + text + "'");
  return value;
}

/// The ranking settings of the command line (prices read and checked here, before any analysis).
autotune::RankedAnalysisOptions ranking_options(const Args& args) {
  autotune::RankedAnalysisOptions options;
  options.weights = args.option("--weights");
  if (args.options.contains("--weights") && options.weights.empty())
    throw UsageError("--weights takes NAME=WEIGHT,... e.g. --weights time_to_train=2");
  options.metrics.train_samples = train_samples(args);
  if (args.options.contains("--prices"))
    options.metrics.prices = autotune::read_prices(args.option("--prices"));
  return options;
}

/// Throws UsageError when `rs`, read from `path`, is empty because the file holds predictions or
/// performance models (no measured configurations), naming the command that reads it. Only an
/// empty file is opened again.
void expect_measured_file(const std::string& path, const results::ResultSet& rs) {
  if (!rs.configs.empty() || !rs.collectives.empty() || !rs.ops.empty() || !rs.incomplete.empty())
    return;
  if (results::is_prediction_file(path))
    throw UsageError(path +
                     " holds predictions (scaletune predict --out), not measured configurations; "
                     "scaletune export-timeline " +
                     path + " --out trace.json shows them");
  if (results::is_model_file(path))
    throw UsageError(path +
                     " holds performance models (scaletune fit), not measured configurations; "
                     "scaletune predict JOB.toml --model " +
                     path + " uses them");
}

int report_errors(const std::string& command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << "scaletune " << command << ": " << e.what() << "\n";
  } catch (const results::ResultError& e) {
    std::cerr << "scaletune " << command << ": " << e.what() << "\n";
    return detail::exit_status_of(e);
  } catch (const std::invalid_argument& e) {
    std::cerr << "scaletune " << command << ": " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "scaletune " << command << ": error: " << e.what() << "\n";
    return kRunFailed;
  }
  return kBadInput;
}

}  // namespace

int inspect_command(int argc, char** argv) {
  return report_errors("inspect", [&] {
    const Args args = parse_args(argc, argv, 2, "inspect", {}, {});
    expect_positionals(args, 1, 1, "scaletune inspect FILE.h5");
    const results::ResultSet rs = read_result_file("inspect", args.positional.front());
    expect_measured_file(args.positional.front(), rs);
    const std::string collectives = autotune::collectives_table(rs.collectives);
    std::cout << autotune::inspect_table(rs, autotune::compute_metrics(rs))
              << (collectives.empty() ? "" : "\n" + collectives);
    return kOk;
  });
}

int autotune_command(int argc, char** argv) {
  return report_errors("autotune", [&] {
    const Args args = parse_args(argc, argv, 2, "autotune", kAutotuneOptions, {});
    expect_positionals(args, 1, SIZE_MAX, kAutotuneUsage);
    const auto objective =
        autotune::objective_from_string(args.option("--objective", "efficiency_floor"));
    const bool report = args.options.contains("--report");
    if (report) check_output_path(kReport, args.option("--report"));
    autotune::RankedAnalysisOptions ranking = ranking_options(args);
    const results::ResultSet rs = load_all(args.positional);
    const auto metrics = autotune::compute_metrics(rs, ranking.metrics);
    expect_training_configs(rs, args.positional, metrics.size());
    const auto fits = autotune::fit_series(metrics);
    const auto choice = autotune::recommend(metrics, objective);
    if (report) {
      const std::filesystem::path path(args.option("--report"));
      ranking.plot_dir = path.has_parent_path() ? path.parent_path() : ".";
      ranking.plot_prefix = autotune::plot_prefix(path.string());
    }
    const auto ranked = autotune::ranked_analysis(rs, metrics, fits, ranking);
    const auto predicted = predictions(args, rs, objective, ranking.metrics);
    std::cout << autotune::inspect_table(rs, metrics) << "\n"
              << autotune::recommendation_text(choice) << ranked.console << predicted.console;
    if (report) {
      write_text_output(kReport, args.option("--report"),
                        autotune::markdown_report(rs, metrics, fits, choice) + ranked.markdown +
                            predicted.markdown);
      std::cout << "report written to " << args.option("--report") << "\n";
      for (const auto& plot : ranked.plots)
        std::cout << "plot written to " << plot.string() << "\n";
    }
    return kOk;
  });
}

}  // namespace scaletune::cli
