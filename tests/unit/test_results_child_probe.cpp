// Reading a damaged file in a child process first (harness/results/detail/child_probe.hpp): a
// reader that crashes or hangs there is reported as a DamagedFileError naming the file, how the
// child ended and the last HDF5 call and object, and the calling process lives on.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "harness/results/detail/child_probe.hpp"
#include "harness/results/detail/h5_call.hpp"
#include "harness/results/result_file.hpp"
#include "tests/support/scoped_env.hpp"
#include "tests/unit/test_results_data.hpp"

namespace scaletune::results::detail {
namespace {

using scaletune::testing_support::ScopedEnv;
using std::chrono::milliseconds;
using test::contains;

constexpr milliseconds kDeadline{10'000};

/// The DamagedFileError that probe_in_child throws for `read` (fails the test when none is).
DamagedFileError damage_of(const std::string& path, const std::function<void()>& read,
                           milliseconds deadline = kDeadline) {
  try {
    probe_in_child(path, read, deadline);
  } catch (const DamagedFileError& e) {
    return e;
  }
  ADD_FAILURE() << "probe_in_child threw nothing";
  return DamagedFileError("", false);
}

/// Stands for an HDF5 call that crashes: aborts the process (SIGABRT, which sanitizers leave
/// alone, unlike SIGSEGV). Never returns.
herr_t H5Xcrash(const char* /*name*/) {
  std::abort();
}

/// Stands for an HDF5 call that succeeds.
herr_t H5Xok(const char* /*name*/) {
  return 0;
}

/// Stands for an HDF5 call that loops for ever.
herr_t H5Xspin(const char* /*name*/) {
  for (;;) std::this_thread::sleep_for(milliseconds{50});
}

TEST(ChildProbe, AReadThatReturnsOrThrowsLeavesTheCallerToRead) {
  EXPECT_NO_THROW(probe_in_child(
      "a.h5", [] {}, kDeadline));
  EXPECT_NO_THROW(probe_in_child(
      "a.h5", [] { throw ResultError("a.h5: no attribute status"); }, kDeadline));
}

TEST(ChildProbe, ACrashInsideAnHdf5CallNamesTheFileTheCallAndTheObject) {
  const DamagedFileError e = damage_of("runs/r.h5", [] {
    const H5Where where{"runs/r.h5", "/configs/r4 attribute status"};
    SCALETUNE_H5(where, H5Xcrash("status"));
  });
  EXPECT_TRUE(e.inside_hdf5());
  const std::string message = e.what();
  EXPECT_TRUE(contains(message, "runs/r.h5: the file is damaged: reading it ended with "));
  EXPECT_TRUE(contains(message, "Aborted (signal 6) in H5Xcrash at /configs/r4 attribute status"));
  EXPECT_TRUE(contains(message, "nothing was read from it and it is left as it is"));
}

TEST(ChildProbe, ACrashAfterTheHdf5CallsReturnedIsADefectOfScaletune) {
  const DamagedFileError e = damage_of("r.h5", [] {
    const H5Where where{"r.h5", "/configs"};
    SCALETUNE_H5(where, H5Xok("configs"));
    std::abort();
  });
  EXPECT_FALSE(e.inside_hdf5());
  const std::string message = e.what();
  EXPECT_TRUE(contains(message,
                       "r.h5: reading it ended with Aborted (signal 6) outside the HDF5 "
                       "library (after H5Xok at /configs): a defect of "
                       "scaletune"));
}

TEST(ChildProbe, AHangIsStoppedAtTheDeadlineAndNamed) {
  const auto start = std::chrono::steady_clock::now();
  const DamagedFileError e = damage_of(
      "r.h5",
      [] {
        const H5Where where{"r.h5", "/configs/r2/step_time"};
        SCALETUNE_H5(where, H5Xspin("step_time"));
      },
      milliseconds{300});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds{5});
  EXPECT_TRUE(e.inside_hdf5());
  EXPECT_TRUE(contains(e.what(),
                       "r.h5: the file is damaged: reading it did not finish within "
                       "0.3 s in H5Xspin at /configs/r2/step_time"));
}

TEST(ChildProbe, TheDeadlineGrowsWithTheFile) {
  const test::TempDir dir;
  EXPECT_EQ(probe_deadline(dir.file("absent.h5")), std::chrono::seconds{30});
  const std::string path = dir.file("big.h5");
  std::ofstream(path).put('x');
  std::filesystem::resize_file(path, std::uintmax_t{80} << 20);
  EXPECT_EQ(probe_deadline(path), std::chrono::seconds{40});
}

TEST(ChildProbe, TheEnvironmentSetsTheDeadlineForEveryFile) {
  const test::TempDir dir;
  {
    const ScopedEnv set(kDeadlineVariable, "2.5");
    EXPECT_EQ(probe_deadline(dir.file("absent.h5")), milliseconds{2'500});
  }
  for (const char* bad : {"", "soon", "0", "-3", "5s", "1e9"}) {
    const ScopedEnv set(kDeadlineVariable, std::string(bad));
    EXPECT_TRUE(contains(test::error_of([&] { probe_deadline(dir.file("a.h5")); }),
                         std::string("SCALETUNE_READ_DEADLINE_S='") + bad +
                             "': expected the seconds a reader waits for a file"))
        << bad;
  }
}

/// A result file from tests/data/damaged.
std::string damaged_file(const std::string& name) {
  return std::string(SCALETUNE_SOURCE_DIR) + "/tests/data/damaged/" + name;
}

/// The DamagedFileError read_results throws for `path` (fails the test when none is).
DamagedFileError read_damage_of(const std::string& path) {
  try {
    read_results(path);
  } catch (const DamagedFileError& e) {
    return e;
  }
  ADD_FAILURE() << "read_results read " << path << " without a DamagedFileError";
  return DamagedFileError("", false);
}

TEST(ChildProbe, AFileThatCrashesHdf5IsRefusedNamingTheCallAndTheObject) {
  const std::string path = damaged_file("bit_flip_segfault.h5");
  const DamagedFileError e = read_damage_of(path);
  EXPECT_TRUE(e.inside_hdf5());
  EXPECT_TRUE(contains(e.what(), path + ": the file is damaged: reading it ended with "));
  // Only the call is certain: a sanitizer build ends the child with its own exit status.
  EXPECT_TRUE(contains(e.what(),
                       " in H5Dread at /configs/resnet50-r2-b16-even-fp32/phase_names; "
                       "nothing was read from it"));
}

// The flip breaks an attribute's message so that the reader's error unwinds, and the file's
// close (H5Fclose, in a handle's destructor) crashes: a close is an HDF5 call too, so this is a
// damaged file, not a defect of scaletune (which the crash first looked like). Where exactly
// HDF5 dies depends on the heap's layout (H5Aiterate2 under AddressSanitizer).
TEST(ChildProbe, ACrashWhileClosingTheFileIsInsideHdf5) {
  const std::string path = damaged_file("bit_flip_segfault_at_close.h5");
  const DamagedFileError e = read_damage_of(path);
  EXPECT_TRUE(e.inside_hdf5());
  EXPECT_TRUE(contains(e.what(), path + ": the file is damaged: reading it ended with "));
  EXPECT_TRUE(contains(e.what(), " in H5")) << e.what();
}

TEST(ChildProbe, AFileThatHangsHdf5IsRefusedAtTheDeadline) {
  const std::string path = damaged_file("bit_flip_hang.h5");
  const DamagedFileError e = damage_of(
      path, [&] { read_results(path); }, milliseconds{2'000});
  EXPECT_TRUE(e.inside_hdf5());
  EXPECT_TRUE(contains(e.what(), path +
                                     ": the file is damaged: reading it did not finish within "
                                     "2 s in H5Aread at /configs/resnet50-r1-b8-even-fp32/launch "
                                     "attribute launcher"));
}

}  // namespace
}  // namespace scaletune::results::detail
