// Fuzz target: an MLPerf Training results CSV through its importer, as `scaletune import mlperf`
// reads it. std::invalid_argument naming the file is the importer's answer to bad input; anything
// else (a crash, a sanitizer report, another exception, a hang, a configuration that breaks what
// mlperf_import.hpp promises) is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "autotune/mlperf_import.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

namespace at = scaletune::autotune;
using scaletune::fuzz::expect;

/// Checks what parse_mlperf_csv promises of each configuration.
void check(const at::MlperfImport& imported) {
  expect(!imported.configs.empty(), "an import has a configuration");
  std::set<std::string> ids;
  for (const auto& config : imported.configs) {
    expect(ids.insert(config.id).second, "ids are distinct");
    expect(config.id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789._-") == std::string::npos,
           "ids are made of [A-Za-z0-9._-]");
    expect(config.ranks >= 1 && config.global_batch >= 1, "ranks and global batch >= 1");
    expect(scaletune::fuzz::finite_positive(config.throughput), "throughput is finite and > 0");
    for (const auto& [name, value] : config.number_attrs)
      expect(std::isfinite(value), "number attributes are finite");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(scaletune::fuzz::text_of(data, size));
  try {
    check(at::parse_mlperf_csv(in, "fuzz.csv"));
  } catch (const std::invalid_argument& e) {
    scaletune::fuzz::expect_names(e.what(), "fuzz.csv");
  }
  return 0;
}
