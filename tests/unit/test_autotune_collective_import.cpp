// Log files read for `scaletune import`: the kind names, the real logs in the shared data folder
// read from disk (the same rows as parsing their text, sources naming the tool and the file),
// the rank counts the logs give, and files that cannot be read.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "autotune/collective_import.hpp"
#include "tests/support/text_lines.hpp"

namespace at = scaletune::autotune;

using scaletune::testing_support::file_text;
using scaletune::testing_support::invalid_argument_of;

namespace {

const std::string k_data_dir = SCALETUNE_SHARED_DIR "/data/nccl-tests/";

void expect_same_rows(const std::vector<at::CollectiveRow>& got,
                      const std::vector<at::CollectiveRow>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].op, want[i].op) << i;
    EXPECT_EQ(got[i].bytes, want[i].bytes) << i;
    EXPECT_EQ(got[i].ranks, want[i].ranks) << i;
    EXPECT_EQ(got[i].time_us, want[i].time_us) << i;
    EXPECT_EQ(got[i].busbw_gbps, want[i].busbw_gbps) << i;
    EXPECT_EQ(got[i].source, want[i].source) << i;
  }
}

}  // namespace

TEST(CollectiveImport, KindNamesRoundTripAndOthersAreRefused) {
  for (const at::LogKind kind : {at::LogKind::nccl_tests, at::LogKind::osu})
    EXPECT_EQ(at::log_kind_from_string(at::to_string(kind)), kind);
  EXPECT_STREQ(at::to_string(at::LogKind::nccl_tests), "nccl-tests");
  EXPECT_STREQ(at::to_string(at::LogKind::osu), "osu");
  for (const char* name : {"mlperf", "nccl_tests", "NCCL-tests", "", "osu_bw"})
    EXPECT_FALSE(at::log_kind_from_string(name).has_value()) << name;
}

TEST(CollectiveImport, NcclTestsFileGivesTheRowsOfItsText) {
  const std::string path = k_data_dir + "nccl_h100_1node_8gpu_multi_collective.log";
  const auto rows = at::read_collective_log(at::LogKind::nccl_tests, path);
  expect_same_rows(rows, at::parse_nccl_tests_log(file_text(path), path));
  for (const auto& row : rows)
    EXPECT_EQ(row.source.rfind("nccl-tests:" + path + ":", 0), 0u) << row.source;
}

TEST(CollectiveImport, OsuFileGivesTheRowsOfItsText) {
  const std::string path = k_data_dir + "osu_gh200_alps_osu_bw_host_and_cuda.log";
  const auto rows = at::read_collective_log(at::LogKind::osu, path);
  expect_same_rows(rows, at::parse_osu_log(file_text(path), path));
  EXPECT_EQ(rows.front().source.rfind("osu:" + path + ":", 0), 0u) << rows.front().source;
}

TEST(CollectiveImport, RowsKeepTheRankCountOfTheLog) {
  const std::string fragment = k_data_dir + "nccl_a100_8gpu_nvlink_sendrecv_fragment.log";
  for (const auto& row : at::read_collective_log(at::LogKind::nccl_tests, fragment))
    EXPECT_EQ(row.ranks, 0);  // the fragment has no "# Rank" lines
  const std::string two_node = k_data_dir + "nccl_h100_2node_16gpu_a3mega_allreduce.log";
  for (const auto& row : at::read_collective_log(at::LogKind::nccl_tests, two_node))
    EXPECT_EQ(row.ranks, 16);  // its 16 "# Rank" lines
  const std::string osu = k_data_dir + "osu_gh200_alps_osu_bw_host_and_cuda.log";
  for (const auto& row : at::read_collective_log(at::LogKind::osu, osu)) EXPECT_EQ(row.ranks, 2);
}

TEST(CollectiveImport, OsuCollectiveTablesTakeTheGivenRankCount) {
  const std::string osu =
      SCALETUNE_SOURCE_DIR "/tests/data/osu/osu_latency_xccl_allreduce_oci_a100.log";
  const auto rows = at::read_collective_log(at::LogKind::osu, osu, 8);
  expect_same_rows(rows, at::parse_osu_log(file_text(osu), osu, 8));
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows.front().ranks, 2);  // osu_latency
  EXPECT_EQ(rows.back().ranks, 8);   // osu_xccl_allreduce on mpirun -n 8
  for (const auto& row : at::read_collective_log(at::LogKind::osu, osu))
    EXPECT_EQ(row.ranks, row.op == "osu_latency" ? 2 : 0);
}

TEST(CollectiveImport, UnreadableFilesAreErrorsNamingThem) {
  const std::string missing = k_data_dir + "no-such.log";
  const std::string no_file =
      invalid_argument_of([&] { at::read_collective_log(at::LogKind::osu, missing); });
  EXPECT_EQ(no_file, missing + ": cannot read the log: no such file");
  const std::string folder =
      invalid_argument_of([&] { at::read_collective_log(at::LogKind::nccl_tests, k_data_dir); });
  EXPECT_EQ(folder.rfind(k_data_dir + ": cannot read the log: not a regular file", 0), 0u)
      << folder;
}

TEST(CollectiveImport, LogOfAnotherKindHasNoTableRow) {
  // The OSU log read as nccl-tests: its rows have 3 columns, not the 13 of nccl-tests.
  const std::string osu = k_data_dir + "osu_gh200_alps_osu_bw_host_and_cuda.log";
  const std::string as_nccl =
      invalid_argument_of([&] { at::read_collective_log(at::LogKind::nccl_tests, osu); });
  EXPECT_EQ(as_nccl.rfind(osu + ":", 0), 0u) << as_nccl;
  // An nccl-tests log read as OSU: no OSU "# Size ..." header before its rows.
  const std::string nccl = k_data_dir + "nccl_h100_2node_16gpu_a3mega_allreduce.log";
  const std::string as_osu =
      invalid_argument_of([&] { at::read_collective_log(at::LogKind::osu, nccl); });
  EXPECT_EQ(as_osu.rfind(nccl + ":", 0), 0u) << as_osu;
}
