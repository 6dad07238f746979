// scaletune fit PROFILE.h5... [IMPORTED.h5...] --out MODEL.h5
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "autotune/model_fitting.hpp"
#include "harness/cli/args.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/provenance.hpp"
#include "harness/cli/subcommands.hpp"
#include "harness/mpi/sweep_runner.hpp"
#include "harness/results/model_file.hpp"
#include "harness/results/result_file.hpp"

namespace scaletune::cli {
namespace {

constexpr const char* kUsage = "scaletune fit PROFILE.h5... [IMPORTED.h5...] --out MODEL.h5";

void print_report(const autotune::FitResult& fit, std::ostream& out) {
  out << "scaletune fit: " << fit.models.ops.size() << " op models, "
      << fit.models.collectives.size() << " collective models from " << fit.models.inputs.size()
      << " file" << (fit.models.inputs.size() == 1 ? "" : "s") << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-40s %7s  %-10s %9s  %s\n", "model", "points", "form",
                "held-out", "");
  out << line;
  for (const autotune::FitLine& l : fit.report) {
    char error[32] = "-";
    if (!l.model.empty()) std::snprintf(error, sizeof error, "%.1f%%", 100.0 * l.error);
    std::snprintf(line, sizeof line, "  %-40s %7d  %-10s %9s  %s\n", l.what.c_str(), l.points,
                  l.model.empty() ? "none" : l.model.c_str(), error, l.note.c_str());
    out << line;
  }
}

}  // namespace

int fit_command(int argc, char** argv) {
  try {
    const Args args = parse_args(argc, argv, 2, "fit", {"--out"}, {});
    expect_positionals(args, 1, 1024, kUsage);
    if (!args.options.contains("--out"))
      throw UsageError("--out MODEL.h5 is required; usage: " + std::string(kUsage));
    const std::string out = args.option("--out");
    expect_h5_path("--out", out);
    std::vector<results::ResultSet> inputs;
    for (const std::string& path : args.positional) inputs.push_back(results::read_results(path));
    autotune::FitResult fit = autotune::fit_models(inputs);
    fit.models.provenance = command_provenance(argc, argv);
    fit.models.provenance.created_utc = mpi::utc_now();
    results::write_model_file(out, fit.models);
    print_report(fit, std::cout);
    std::cout << "models in " << out << "\n";
    return kOk;
  } catch (const UsageError& e) {
    std::cerr << "scaletune fit: " << e.what() << "\n";
  } catch (const results::ResultError& e) {
    std::cerr << "scaletune fit: " << e.what() << "\n";
  } catch (const std::invalid_argument& e) {
    std::cerr << "scaletune fit: " << e.what() << "\n";
  }
  return kBadInput;
}

}  // namespace scaletune::cli
