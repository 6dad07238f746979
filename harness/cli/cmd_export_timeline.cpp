// scaletune export-timeline FILE.h5 [--config ID] --out trace.json
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "harness/cli/args.hpp"
#include "harness/cli/bad_input.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/result_reading.hpp"
#include "harness/cli/subcommands.hpp"
#include "harness/cli/text_output.hpp"
#include "harness/results/prediction_file.hpp"
#include "harness/results/result_error.hpp"
#include "harness/results/result_file.hpp"
#include "harness/trace/chrome_trace.hpp"

namespace scaletune::cli {
namespace {

constexpr const char* kUsage = "scaletune export-timeline FILE.h5 [--config ID] --out trace.json";
const TextOutput kTrace{"--out", "trace", "results/trace.json"};

/// [iterations]: where each measured iteration starts when they are laid end to end (the
/// slowest rank's step times), s.
std::vector<double> iteration_starts(const std::vector<double>& step_time) {
  std::vector<double> start(step_time.size(), 0.0);
  if (!step_time.empty())
    std::exclusive_scan(step_time.begin(), step_time.end(), start.begin(), 0.0);
  return start;
}

/// A configuration that might be exported: its id and its timeline (empty: none stored).
struct Candidate {
  std::string id;
  trace::TimelineExport timeline;
};

/// Every configuration of a result file or of a predictions file.
std::vector<Candidate> candidates(const std::string& path) {
  std::vector<Candidate> out;
  if (results::is_prediction_file(path)) {
    for (results::PredictionRow& r : results::read_prediction_file(path))
      out.push_back({r.config, {"predicted " + r.config, std::move(r.timeline), {0.0}}});
    return out;
  }
  for (results::ConfigResult& c : read_result_file("export-timeline", path).configs)
    out.push_back({c.id, {c.id, std::move(c.timeline), iteration_starts(c.step_time)}});
  return out;
}

/// "it has a, b and 3 more" / "it has none": the ids a message names.
std::string ids_text(const std::vector<Candidate>& all) {
  constexpr std::size_t kNamed = 5;
  if (all.empty()) return "it has none";
  std::string text = "it has ";
  for (std::size_t i = 0; i < all.size() && i < kNamed; ++i)
    text += (i == 0 ? "" : ", ") + all[i].id;
  if (all.size() > kNamed) text += " and " + std::to_string(all.size() - kNamed) + " more";
  return text;
}

/// The timelines to export: the one of `config` (every one stored when empty). Throws
/// std::invalid_argument naming the file and the configuration when there is none.
std::vector<trace::TimelineExport> chosen_timelines(std::vector<Candidate> all,
                                                    const std::string& config,
                                                    const std::string& path) {
  std::vector<trace::TimelineExport> out;
  bool found = false;
  for (Candidate& c : all) {
    if (!config.empty() && c.id != config) continue;
    found = true;
    if (!c.timeline.spans.empty()) out.push_back(std::move(c.timeline));
  }
  if (!config.empty() && !found)
    throw std::invalid_argument(path + ": no configuration '" + config + "'; " + ids_text(all));
  if (out.empty())
    throw std::invalid_argument(
        path + ": " + (config.empty() ? "no configuration" : "configuration '" + config + "'") +
        " has a timeline (a run with run.timeline = \"none\", configurations that did not end "
        "ok, a file written before timelines, or predictions without spans)");
  return out;
}

/// scaletune export-timeline, its bad input thrown (the command reports it).
int export_timeline_unguarded(int argc, char** argv) {
  const Args args = parse_args(argc, argv, 2, "export-timeline", {"--config", "--out"}, {});
  expect_positionals(args, 1, 1, kUsage);
  if (!args.options.contains("--out"))
    throw UsageError("--out trace.json is required; usage: " + std::string(kUsage));
  const std::string out = args.option("--out");
  check_output_path(kTrace, out);
  const std::string path = args.positional.front();
  const std::string config = args.options.contains("--config") ? args.option("--config") : "";
  const std::vector<trace::TimelineExport> timelines =
      chosen_timelines(candidates(path), config, path);
  write_text_output(kTrace, out, trace::chrome_trace_json(timelines));
  std::size_t spans = 0;
  for (const trace::TimelineExport& t : timelines) spans += t.spans.size();
  std::cout << "scaletune export-timeline: " << timelines.size() << " configuration"
            << (timelines.size() == 1 ? "" : "s") << ", " << spans << " spans in " << out
            << " (open it in ui.perfetto.dev or chrome://tracing)\n";
  return kOk;
}

}  // namespace

int export_timeline_command(int argc, char** argv) {
  return guard_bad_input<UsageError, results::ResultError, std::invalid_argument>(
      "export-timeline", [&] { return export_timeline_unguarded(argc, argv); });
}

}  // namespace scaletune::cli
