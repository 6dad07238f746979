// Fuzz target: an OSU Micro-Benchmarks log through its parser, as `scaletune import osu` reads
// it, without a rank count and with --ranks 8. std::invalid_argument naming the file is the
// parser's answer to bad input; anything else (a crash, a sanitizer report, another exception,
// a hang, a row that breaks what collective_log.hpp promises) is a finding.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "autotune/collective_log.hpp"
#include "tests/fuzz/collective_rows_check.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace at = scaletune::autotune;
  const std::string text = scaletune::fuzz::text_of(data, size);
  for (const int ranks : {0, 8}) {
    try {
      scaletune::fuzz::check_rows(at::parse_osu_log(text, "fuzz.log", ranks));
    } catch (const std::invalid_argument& e) {
      scaletune::fuzz::expect_names(e.what(), "fuzz.log");
    }
  }
  return 0;
}
