#include "harness/cli/result_reading.hpp"

#include <iostream>

#include "harness/results/result_file.hpp"

namespace scaletune::cli {

results::ResultSet read_result_file(const std::string& command, const std::string& path) {
  results::ResultSet set = results::read_results(path);
  for (const results::IncompleteConfig& skipped : set.incomplete)
    std::cerr << "scaletune " << command << ": warning: " << skipped.reason << "; configuration "
              << skipped.id << " skipped (scaletune run --resume runs it again)\n";
  return set;
}

}  // namespace scaletune::cli
