// scaletune fit PROFILE.h5... [IMPORTED.h5...] --out MODEL.h5
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "autotune/detail/format.hpp"
#include "autotune/model_fitting.hpp"
#include "harness/cli/args.hpp"
#include "harness/cli/bad_input.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/provenance.hpp"
#include "harness/cli/result_reading.hpp"
#include "harness/cli/subcommands.hpp"
#include "harness/mpi/sweep_runner.hpp"
#include "harness/results/model_file.hpp"
#include "harness/results/result_file.hpp"

namespace scaletune::cli {
namespace {

constexpr const char* kUsage = "scaletune fit PROFILE.h5... [IMPORTED.h5...] --out MODEL.h5";

/// `text` left-aligned (right-aligned when width < 0) in |width| columns, never cut.
std::string padded(const std::string& text, int width) {
  const std::size_t w = static_cast<std::size_t>(std::abs(width));
  if (text.size() >= w) return text;
  const std::string pad(w - text.size(), ' ');
  return width < 0 ? pad + text : text + pad;
}

std::string percent(const std::optional<double>& fraction) {
  return fraction ? autotune::detail::percent(*fraction) + "%" : "-";
}

void print_row(std::ostream& out, const std::string& what, const std::string& points,
               const std::string& form, const std::string& error, const std::string& note) {
  std::string line = "  " + padded(what, 40) + " " + padded(points, -7) + "  " + padded(form, 13) +
                     " " + padded(error, -9) + (note.empty() ? "" : "  " + note);
  out << line << "\n";
}

void print_report(const autotune::FitResult& fit, std::ostream& out) {
  using autotune::detail::counted;
  out << "scaletune fit: " << counted(fit.models.ops.size(), "op model") << ", "
      << counted(fit.models.collectives.size(), "collective model") << " from "
      << counted(fit.models.inputs.size(), "file") << "\n";
  print_row(out, "model", "points", "form", "held-out", "");
  for (const autotune::FitLine& l : fit.report)
    print_row(out, l.what, std::to_string(l.points), l.model.empty() ? "none" : l.model,
              percent(l.error), l.note);
}

/// scaletune fit, its bad input thrown (the command reports it).
int fit_unguarded(int argc, char** argv) {
  const Args args = parse_args(argc, argv, 2, "fit", {"--out"}, {});
  expect_positionals(args, 1, 1024, kUsage);
  if (!args.options.contains("--out"))
    throw UsageError("--out MODEL.h5 is required; usage: " + std::string(kUsage));
  const std::string out = args.option("--out");
  expect_h5_path("--out", out);
  expect_each_once(args.positional, "its rows would count twice");
  std::vector<results::ResultSet> inputs;
  for (const std::string& path : args.positional) inputs.push_back(read_result_file("fit", path));
  autotune::FitResult fit = autotune::fit_models(inputs);
  fit.models.provenance = command_provenance(argc, argv);
  fit.models.provenance.created_utc = mpi::utc_now();
  results::write_model_file(out, fit.models);
  print_report(fit, std::cout);
  std::cout << "models in " << out << "\n";
  return kOk;
}

}  // namespace

int fit_command(int argc, char** argv) {
  return guard_bad_input<UsageError, results::ResultError, std::invalid_argument>(
      "fit", [&] { return fit_unguarded(argc, argv); });
}

}  // namespace scaletune::cli
