// Fuzz target: an nccl-tests log through its parser, as `scaletune import nccl-tests` reads it
// (with and without --ranks). std::invalid_argument naming the file is the parser's answer to bad
// input; anything else (a crash, a sanitizer report, another exception, a hang, a row that breaks
// what collective_log.hpp promises) is a finding.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "autotune/collective_log.hpp"
#include "tests/fuzz/collective_rows_check.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace at = scaletune::autotune;
  try {
    std::vector<at::CollectiveRow> rows =
        at::parse_nccl_tests_log(scaletune::fuzz::text_of(data, size), "fuzz.log");
    scaletune::fuzz::check_rows(rows);
    scaletune::fuzz::check_rows(at::with_rank_count(std::move(rows), 8));
  } catch (const std::invalid_argument& e) {
    scaletune::fuzz::expect_names(e.what(), "fuzz.log");
  }
  return 0;
}
