// Fuzz target: a job file's text through the job parser and the sweep expansion, as
// `scaletune plan` reads it. JobError is the parser's answer to bad input; anything else
// (a crash, a sanitizer report, another exception, a hang, a configuration whose per-rank
// batches do not add up to its global batch) is a finding.
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "harness/job/job_error.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

namespace job = scaletune::job;
using scaletune::fuzz::expect;

/// Checks what expand_sweep promises of each configuration.
void check(const std::vector<job::Config>& configs) {
  expect(!configs.empty(), "a parsed job has a configuration");
  for (const job::Config& config : configs) {
    expect(config.ranks >= 1 && config.global_batch >= 1, "ranks and global batch >= 1");
    if (config.per_rank_batch.empty()) continue;
    expect(config.per_rank_batch.size() == static_cast<std::size_t>(config.ranks),
           "one per-rank batch per rank");
    expect(std::accumulate(config.per_rank_batch.begin(), config.per_rank_batch.end(), 0L) ==
               config.global_batch,
           "per-rank batches sum to the global batch");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const job::JobSpec spec =
        job::parse_job_text(scaletune::fuzz::text_of(data, size), "fuzz.toml");
    check(job::expand_sweep(spec));  // a parsed job always expands (sweep.hpp)
  } catch (const job::JobError& e) {
    expect(e.file() == "fuzz.toml", "the error names the file");
  }
  return 0;
}
