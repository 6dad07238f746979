// Fuzz target: a result file's bytes (mutated from a real 6-configuration ResNet-50 file)
// through the reader every command uses, read_results, which reads the file in a child process
// first (harness/results/detail/child_probe.hpp), then in this one. A ResultError naming the file
// is the reader's answer to bad input, and so is a DamagedFileError from inside an HDF5 call
// (HDF5 1.10 crashes or loops on some damaged files; the child dies, not the reader). A crash of
// the child outside any HDF5 call (scaletune's own reading code), a crash or sanitizer report of
// this process, or configurations that break what the reader promises are findings. (Children
// that die in HDF5 may leave crash-* files beside the findings: libFuzzer's handler is theirs
// too; the run's exit status is what counts.)
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include "harness/results/detail/child_probe.hpp"
#include "harness/results/result_file.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

namespace rs = scaletune::results;
using scaletune::fuzz::expect;

/// A file of this process's own, rewritten for every input.
const std::string& input_path() {
  static const std::string path = "/tmp/scaletune-fuzz-result-" + std::to_string(getpid()) + ".h5";
  return path;
}

/// Checks what read_results promises of the configurations it read.
void check(const rs::ResultSet& set) {
  std::set<std::string> ids;
  for (const rs::ConfigResult& c : set.configs) {
    expect(ids.insert(c.id).second, "configuration ids are distinct");
    expect(c.ranks >= 1, "a configuration has a rank");
    expect(c.step_time.empty() || c.rank_phase_time.size() == static_cast<std::size_t>(c.ranks) *
                                                                  c.step_time.size() *
                                                                  c.phase_names.size(),
           "rank_phase_time is [ranks, iterations, phases]");
  }
  for (const rs::IncompleteConfig& skipped : set.incomplete)
    expect(skipped.reason.rfind(input_path() + ":", 0) == 0, "a skipped one is named");
}

}  // namespace

// HDF5 1.10.8 leaks on the error paths of damaged files: vlen strings converted before a
// compound read failed (H5Dread -> H5T__conv_vlen), a datatype message decoded part-way
// (H5Dopen2 -> H5O_msg_read); both inputs are in corpus/result_file/. Not scaletune's to fix, and
// a new one on each run, so this target leaves leaks alone (AddressSanitizer's other checks
// stay); the sanitizer run of the tests (make test-sanitize) checks the readers' own leaks.
extern "C" const char* __asan_default_options() {
  return "detect_leaks=0";
}

/// A file that hangs HDF5 ends as the error a user sees, within libFuzzer's -timeout (10 s).
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  setenv(scaletune::results::detail::kDeadlineVariable, "4", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = input_path();
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    check(rs::read_results(path));  // a child reads it first; then this process, with coverage
  } catch (const rs::DamagedFileError& e) {
    expect(e.inside_hdf5(), "reading a file never crashes outside the HDF5 library");
    scaletune::fuzz::expect_names(e.what(), path);
  } catch (const rs::ResultError& e) {
    scaletune::fuzz::expect_names(e.what(), path);
  }
  return 0;
}
