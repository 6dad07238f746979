// main() of every MPI test binary: MPI and Kokkos up, the full test output from rank 0 only,
// failures from every rank (prefixed with the rank), and the exit status the worst over all
// ranks (TOOLCHAIN.md "GoogleTest").
#include <mpi.h>

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>
#include <cstdio>

namespace {

// Prints each failed assertion of this rank to stderr, "rank R: file:line: message".
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : m_rank(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::fprintf(stderr, "rank %d: %s.%s: %s:%d: %s\n", m_rank, test ? test->test_suite_name() : "",
                 test ? test->name() : "", result.file_name() ? result.file_name() : "?",
                 result.line_number(), result.message());
  }

 private:
  int m_rank;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
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
