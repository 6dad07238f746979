// main() of every MPI test binary: MPI and Kokkos up, the full test output from rank 0 only,
// failures from every rank (prefixed with the rank), and the exit status the worst over all
// ranks (TOOLCHAIN.md "GoogleTest").
#include <mpi.h>

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <string>

namespace {

// Prints each failed assertion of this rank to stderr, "rank R: Suite.test: file:line: message".
// The test's name is kept from OnTestStart: GoogleTest holds its own lock while it reports a
// result, so asking UnitTest for the current test there would deadlock.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : m_rank(rank) {}
  void OnTestStart(const ::testing::TestInfo& test) override {
    m_test = std::string(test.test_suite_name()) + "." + test.name();
  }
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "rank %d: %s: %s:%d: %s\n", m_rank, m_test.c_str(),
                 result.file_name() ? result.file_name() : "?", result.line_number(),
                 result.message());
  }

 private:
  int m_rank;
  std::string m_test;
};

}  // namespace

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;  // as scaletune asks (cli/mpi_session.hpp)
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  Kokkos::initialize(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  int failed = RUN_ALL_TESTS();
  int worst = 0;
  MPI_Allreduce(&failed, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  Kokkos::finalize();
  MPI_Finalize();
  return worst;
}
