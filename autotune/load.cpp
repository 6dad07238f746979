#include "autotune/load.hpp"

#include "harness/results/result_file.hpp"

namespace scaletune::autotune {

results::ResultSet load_results(const std::string& path) {
  return results::read_results(path);
}

}  // namespace scaletune::autotune
