// nccl-tests and OSU logs read into /collectives rows: the six real logs in the shared data
// folder against the numbers printed in their own lines, the published bus bandwidth factors,
// malformed input and launcher prefixes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "autotune/collective_log.hpp"
#include "tests/support/text_lines.hpp"

namespace at = scaletune::autotune;

using scaletune::testing_support::invalid_argument_of;

namespace {

const std::string k_data_dir = SCALETUNE_SHARED_DIR "/data/nccl-tests/";

std::string read_text(const std::string& name) {
  return scaletune::testing_support::file_text(k_data_dir + name);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

/// Published nccl-tests factors (doc/PERFORMANCE.md), written out independently.
double published_bus_factor(const std::string& op, int n) {
  if (op == "all_reduce") return 2.0 * (n - 1) / n;
  if (op == "all_gather" || op == "reduce_scatter" || op == "alltoall") return double(n - 1) / n;
  return 1.0;  // broadcast, reduce, sendrecv, point-to-point
}

/// The words of the log line a row names in its source ("tool:path:line").
std::vector<std::string> printed_words(const at::CollectiveRow& row, const std::string& text) {
  const int line = std::stoi(row.source.substr(row.source.rfind(':') + 1));
  return words_of(lines_of(text).at(static_cast<std::size_t>(line - 1)));
}

/// Tolerance for a value printed with two decimals and computed from a rounded time.
double printed_tolerance(double value) {
  return 0.006 + 2e-3 * std::fabs(value);
}

const at::CollectiveRow& find_row(const std::vector<at::CollectiveRow>& rows, const std::string& op,
                                  std::int64_t bytes) {
  for (const auto& row : rows)
    if (row.op == op && row.bytes == bytes) return row;
  throw std::runtime_error("no row " + op + " " + std::to_string(bytes));
}

/// Compares an nccl-tests row with its printed line: the out-of-place time, algbw, busbw are
/// the 8th, 7th and 6th words from the end. `algbw_printed_as_busbw`: old all_gather and
/// reduce_scatter tables printed busbw in the algbw column.
void expect_nccl_row_as_printed(const at::CollectiveRow& row, const std::string& text,
                                bool algbw_printed_as_busbw = false) {
  const auto words = printed_words(row, text);
  ASSERT_GE(words.size(), 11u);
  const std::size_t n = words.size();
  const double time_us = std::stod(words[n - 8]);
  const double algbw = std::stod(words[n - 7]);
  const double busbw = std::stod(words[n - 6]);
  EXPECT_EQ(words[0], std::to_string(row.bytes));
  EXPECT_DOUBLE_EQ(row.time_us, time_us);
  EXPECT_NEAR(row.algbw_gbps, double(row.bytes) / (time_us * 1e-6) / 1e9, 1e-9 * row.algbw_gbps);
  EXPECT_NEAR(row.busbw_gbps, busbw, printed_tolerance(busbw)) << row.source;
  if (!algbw_printed_as_busbw) {
    EXPECT_NEAR(row.algbw_gbps, algbw, printed_tolerance(algbw));
  }
}

/// Every row: its source line starts with its size, and busbw = algbw x the published factor.
void expect_rows_consistent(const std::vector<at::CollectiveRow>& rows, const std::string& text) {
  for (const auto& row : rows) {
    EXPECT_EQ(printed_words(row, text).at(0), std::to_string(row.bytes)) << row.source;
    if (row.ranks > 0) {
      EXPECT_NEAR(row.busbw_gbps, row.algbw_gbps * published_bus_factor(row.op, row.ranks),
                  0.01 * row.busbw_gbps)
          << row.source;
    }
  }
}

}  // namespace

TEST(CollectiveLog, CurrentFormatMultiCollectiveH100) {
  const std::string name = "nccl_h100_1node_8gpu_multi_collective.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_nccl_tests_log(text, name);
  ASSERT_EQ(rows.size(), 50u);
  for (const auto& row : rows) EXPECT_EQ(row.ranks, 8);
  for (const auto& row : rows) EXPECT_EQ(row.nodes, 1);  // every "# Rank" line is on one host
  EXPECT_EQ(rows.front().op, "all_reduce");
  EXPECT_EQ(rows.front().bytes, 33554432);
  EXPECT_EQ(rows.back().op, "sendrecv");
  EXPECT_EQ(rows.back().bytes, 17179869184);
  EXPECT_EQ(rows.front().dtype, "double");
  EXPECT_EQ(rows.front().wrong, 0);
  EXPECT_EQ(rows.front().source, "nccl-tests:" + name + ":22");
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "sendrecv"})
    EXPECT_EQ(find_row(rows, op, 33554432).op, op);
  expect_nccl_row_as_printed(find_row(rows, "all_gather", 1073741824), text);
  expect_nccl_row_as_printed(find_row(rows, "alltoall", 4294967296), text);
  expect_rows_consistent(rows, text);
}

TEST(CollectiveLog, OldFormatWithErrorColumnV100) {
  const std::string name = "nccl_v100_dgx2_12gpu_oldformat_5collectives.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_nccl_tests_log(text, name);
  ASSERT_EQ(rows.size(), 155u);
  for (const auto& row : rows) EXPECT_EQ(row.ranks, 12);
  EXPECT_EQ(rows.front().op, "all_gather");
  EXPECT_EQ(rows.front().bytes, 0);
  EXPECT_EQ(rows.back().op, "reduce_scatter");
  EXPECT_EQ(rows.back().bytes, 8589934560);
  // all_gather printed busbw in the algbw column: algbw is recomputed as size / time.
  expect_nccl_row_as_printed(find_row(rows, "all_gather", 8589934560), text, true);
  expect_nccl_row_as_printed(find_row(rows, "reduce_scatter", 1073741808), text, true);
  expect_nccl_row_as_printed(find_row(rows, "broadcast", 1073741824), text);
  // "error" 0e+00 -> 0 wrong; 1e+00 and 2e-07 -> unknown count.
  EXPECT_EQ(find_row(rows, "all_gather", 2147483616).wrong, 0);
  EXPECT_EQ(find_row(rows, "all_gather", 4294967280).wrong, -1);
  expect_rows_consistent(rows, text);
}

TEST(CollectiveLog, PcieTwoGpuLogWithOneGpuReduceRun) {
  const std::string name = "nccl_rtx2080ti_pcie_2gpu_noP2P_5collectives.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_nccl_tests_log(text, name);
  ASSERT_EQ(rows.size(), 168u);
  EXPECT_EQ(rows.front().op, "all_reduce");
  EXPECT_EQ(rows.front().ranks, 2);
  EXPECT_EQ(rows.front().bytes, 8);
  EXPECT_EQ(rows.back().op, "alltoall");
  EXPECT_EQ(rows.back().ranks, 2);
  EXPECT_EQ(rows.back().bytes, 1073741824);
  int one_rank_rows = 0;
  for (const auto& row : rows) one_rank_rows += row.ranks == 1 ? 1 : 0;
  EXPECT_EQ(one_rank_rows, 28);  // the "-g 1" reduce_perf run
  expect_nccl_row_as_printed(find_row(rows, "all_reduce", 1073741824), text);
  expect_nccl_row_as_printed(find_row(rows, "broadcast", 4194304), text);
  expect_rows_consistent(rows, text);
}

TEST(CollectiveLog, FragmentWithoutPreambleTakesOpFromCommandLine) {
  const std::string name = "nccl_a100_8gpu_nvlink_sendrecv_fragment.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_nccl_tests_log(text, name);
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.op, "sendrecv");
    EXPECT_EQ(row.ranks, 0);  // no "# Rank" lines
    EXPECT_EQ(row.nodes, 0);  // nor hosts
    EXPECT_EQ(row.wrong, 0);
  }
  EXPECT_EQ(rows.front().bytes, 134217728);
  EXPECT_EQ(rows.back().bytes, 1073741824);
  expect_nccl_row_as_printed(rows[1], text);
  expect_nccl_row_as_printed(find_row(rows, "sendrecv", 1073741824), text);
  const auto overridden = at::with_rank_count(rows, 8);
  for (const auto& row : overridden) EXPECT_EQ(row.ranks, 8);
  expect_rows_consistent(overridden, text);
}

TEST(CollectiveLog, TwoNodeSixteenGpuAllReduce) {
  const std::string name = "nccl_h100_2node_16gpu_a3mega_allreduce.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_nccl_tests_log(text, name);
  ASSERT_EQ(rows.size(), 31u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.op, "all_reduce");
    EXPECT_EQ(row.ranks, 16);
    EXPECT_EQ(row.nodes, 2);  // ranks 0-7 on node000000001, 8-15 on node000000002
    EXPECT_EQ(row.dtype, "float");
  }
  EXPECT_EQ(rows.front().bytes, 8);
  EXPECT_EQ(rows.back().bytes, 8589934592);
  expect_nccl_row_as_printed(find_row(rows, "all_reduce", 2147483648), text);
  expect_nccl_row_as_printed(find_row(rows, "all_reduce", 134217728), text);
  expect_rows_consistent(rows, text);
}

TEST(CollectiveLog, OsuBandwidthHostAndCudaTables) {
  const std::string name = "osu_gh200_alps_osu_bw_host_and_cuda.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_osu_log(text, name);
  ASSERT_EQ(rows.size(), 6u * 23u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.op, "osu_bw");
    EXPECT_EQ(row.ranks, 2);
    EXPECT_EQ(row.dtype, "byte");
    EXPECT_EQ(row.wrong, 0);  // every row "Pass"
  }
  EXPECT_EQ(rows.front().bytes, 1);
  EXPECT_EQ(rows.back().bytes, 4194304);
  EXPECT_EQ(rows.front().source.rfind("osu:" + name + ":", 0), 0u) << rows.front().source;
  for (const std::size_t i : {std::size_t{22}, std::size_t{3 * 23 + 10}}) {
    const auto words = printed_words(rows[i], text);
    ASSERT_EQ(words.size(), 3u);
    const double mb_per_s = std::stod(words[1]);
    EXPECT_EQ(words[0], std::to_string(rows[i].bytes));
    EXPECT_NEAR(rows[i].time_us, double(rows[i].bytes) / (mb_per_s * 1e6) * 1e6,
                1e-9 * rows[i].time_us);
    EXPECT_NEAR(rows[i].algbw_gbps, mb_per_s / 1e3, 1e-9 * rows[i].algbw_gbps);
  }
  EXPECT_EQ(rows[3 * 23 + 10].bytes, 1024);
  expect_rows_consistent(rows, text);
}

namespace {

const std::string k_header =
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
    "time   algbw   busbw #wrong\n";
// Real row: nccl_h100_2node_16gpu_a3mega_allreduce.log, 134217728 bytes.
const std::string k_row =
    "   134217728      33554432     float     sum      -1   1652.2   81.24  152.32      0   "
    "1636.7   82.01  153.76      0";

}  // namespace

TEST(CollectiveLog, MalformedRowsNameFileAndLine) {
  const std::string start = "# Collective test starting: all_reduce_perf\n" + k_header;
  const std::string truncated = start + k_row + "\n" + k_row.substr(0, 60) + "\n";
  EXPECT_EQ(invalid_argument_of([&] {
              at::parse_nccl_tests_log(truncated, "t.log");
            }).rfind("t.log:4: ", 0),
            0u);
  const std::string extra = start + k_row + " 7\n";
  const std::string extra_error =
      invalid_argument_of([&] { at::parse_nccl_tests_log(extra, "x.log"); });
  EXPECT_EQ(extra_error.rfind("x.log:3: expected 13 columns", 0), 0u) << extra_error;
  std::string not_number = k_row;
  not_number.replace(not_number.find("1652.2"), 6, "16x2.2");
  const std::string bad_time =
      invalid_argument_of([&] { at::parse_nccl_tests_log(start + "\n\n" + not_number, "n.log"); });
  EXPECT_EQ(bad_time.rfind("n.log:5: column 'time'", 0), 0u) << bad_time;
  // A negative busbw (found by fuzzing: "-.06") is refused, not taken as the row's busbw when
  // the op gives no bus factor.
  std::string negative = k_row;
  negative.replace(negative.find("152.32"), 6, "  -.06");
  const std::string bad_busbw =
      invalid_argument_of([&] { at::parse_nccl_tests_log(k_header + negative, "b.log"); });
  EXPECT_EQ(bad_busbw.rfind("b.log:2: columns 'algbw' and 'busbw': expected bandwidths >= 0 GB/s, "
                            "found 81.24 and -.06",
                            0),
            0u)
      << bad_busbw;
}

TEST(CollectiveLog, LogWithoutTableIsAnError) {
  const std::string text = "# nThread 1 nGpus 8\n#\nNCCL INFO Bootstrap done\n";
  const std::string nccl =
      invalid_argument_of([&] { at::parse_nccl_tests_log(text, "empty.log"); });
  EXPECT_EQ(nccl.rfind("empty.log:3: ", 0), 0u) << nccl;
  const std::string osu = invalid_argument_of([&] { at::parse_osu_log(text, "empty.log"); });
  EXPECT_EQ(osu.rfind("empty.log:3: ", 0), 0u) << osu;
}

TEST(CollectiveLog, MalformedOsuRowsNameFileAndLine) {
  const std::string header = "# OSU MPI Bandwidth Test v7.5\n# Size      Bandwidth (MB/s)\n";
  const std::string no_header =
      invalid_argument_of([&] { at::parse_osu_log("\n1024  968.30\n", "o.log"); });
  EXPECT_EQ(no_header.rfind("o.log:2: ", 0), 0u) << no_header;
  const std::string truncated =
      invalid_argument_of([&] { at::parse_osu_log(header + "1024  968.30\n2048\n", "o.log"); });
  EXPECT_EQ(truncated.rfind("o.log:4: expected 2 columns", 0), 0u) << truncated;
  const std::string empty_message =
      invalid_argument_of([&] { at::parse_osu_log(header + "0  0.50\n", "o.log"); });
  EXPECT_EQ(empty_message.rfind("o.log:3: column 'Size'", 0), 0u) << empty_message;
}

TEST(CollectiveLog, LauncherPrefixesAndInterleavedInfoLinesAreSkipped) {
  const std::string clean = "# op: all_reduce\n" + k_header + k_row + "\n";
  const std::string srun = "0: # op: all_reduce\n0: " + k_header +
                           "0: node001:6899:6899 [0] NCCL INFO comm 0x5 rank 0 nranks 16\n" +
                           "0: " + k_row + "\n";
  const std::string tagged = "[1,0]<stdout>:# op: all_reduce\n[1,0]<stdout>:" + k_header +
                             "[1,0]<stderr>:node001:6899:6899 [0] NCCL INFO Channel 00/32\n" +
                             "[1,0]<stdout>:" + k_row + "\n";
  const auto expected = at::with_rank_count(at::parse_nccl_tests_log(clean, "clean.log"), 16);
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(expected[0].op, "all_reduce");
  EXPECT_DOUBLE_EQ(expected[0].time_us, 1652.2);
  EXPECT_NEAR(expected[0].algbw_gbps, 81.24, printed_tolerance(81.24));
  EXPECT_NEAR(expected[0].busbw_gbps, 152.32, printed_tolerance(152.32));
  for (const std::string& text : {srun, tagged}) {
    const auto rows = at::with_rank_count(at::parse_nccl_tests_log(text, "p.log"), 16);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].op, expected[0].op);
    EXPECT_EQ(rows[0].bytes, expected[0].bytes);
    EXPECT_DOUBLE_EQ(rows[0].time_us, expected[0].time_us);
    EXPECT_DOUBLE_EQ(rows[0].busbw_gbps, expected[0].busbw_gbps);
    EXPECT_EQ(rows[0].source, "nccl-tests:p.log:4");
  }
}

namespace {

/// `text` with the first field of line `line` (1-based) replaced by `field`, right-aligned in
/// the width the old field took (as a hand edit keeping the columns aligned would).
std::string with_first_field(const std::string& text, int line, const std::string& field) {
  std::vector<std::string> lines = lines_of(text);
  std::string& edited = lines.at(static_cast<std::size_t>(line - 1));
  const std::size_t begin = edited.find_first_not_of(' ');
  const std::size_t end = edited.find(' ', begin);
  const std::size_t padded = std::max(end, field.size());
  edited = std::string(padded - field.size(), ' ') + field + edited.substr(end);
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

/// 1-based number of the first line of `text` whose first field is `size`.
int line_of_row(const std::string& text, const std::string& size) {
  const std::vector<std::string> lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto words = words_of(lines[i]);
    if (!words.empty() && words[0] == size) return static_cast<int>(i + 1);
  }
  throw std::runtime_error("no row of size " + size);
}

}  // namespace

// The tester's report: a mid-table row of a real log whose size is no unsigned integer was
// skipped with no error. Each such field is now an error naming the file and the line.
TEST(CollectiveLog, RowWithUnreadableSizeInRealLogIsAnError) {
  const std::string name = "nccl_rtx2080ti_pcie_2gpu_noP2P_5collectives.log";
  const std::string text = read_text(name);
  const int line = line_of_row(text, "1048576");  // mid-table in the all_reduce table
  for (const std::string field : {"-16", "+16", "16.5", "1e3", "16k", "abc"}) {
    const std::string edited = with_first_field(text, line, field);
    ASSERT_EQ(lines_of(edited).size(), lines_of(text).size());
    const std::string error =
        invalid_argument_of([&] { at::parse_nccl_tests_log(edited, "m.log"); });
    EXPECT_EQ(error, "m.log:" + std::to_string(line) +
                         ": column 'size': expected a message size in bytes (an unsigned "
                         "integer), found '" +
                         field + "'")
        << field;
  }
}

TEST(CollectiveLog, FirstRowAfterTheHeaderWithUnreadableSizeIsAnError) {
  // Between the header and the first row only the units row comes: the table is open there.
  std::string negative = k_row;
  negative.replace(negative.find("134217728"), 9, "-13421772");
  const std::string text = "# op: all_reduce\n" + k_header +
                           "#        (B)    (elements)                               (us)\n" +
                           negative + "\n" + k_row + "\n";
  const std::string error = invalid_argument_of([&] { at::parse_nccl_tests_log(text, "f.log"); });
  EXPECT_EQ(error.rfind("f.log:4: column 'size'", 0), 0u) << error;
}

TEST(CollectiveLog, NoiseInsideAndAroundTablesIsSkipped) {
  // The noise real logs put between rows, and number-like lines where no table is open.
  const std::string info13 = "node001:6899:6899 [0] NCCL INFO Channel 00/32 : 0 1 2 3 4 5";
  ASSERT_EQ(words_of(info13).size(), 13u);
  const std::string text = "2024-05-01 job started on 16 nodes\n# op: all_reduce\n" + k_header +
                           k_row + "\n" + info13 + "\n" + "   ...\n" +
                           "3090box:12:12 [0] NCCL INFO Bootstrap : Using eth0\n" + k_row +
                           "\n# Out of bounds values : 0 OK\n" + "16.5 is not a row here\n" +
                           "user@host:~$ ./build/all_reduce_perf -b 8 -e 128M\n";
  const auto rows = at::parse_nccl_tests_log(text, "noise.log");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].source, "nccl-tests:noise.log:4");
  EXPECT_EQ(rows[1].source, "nccl-tests:noise.log:8");
}

TEST(CollectiveLog, LineOfRowWidthWithoutSizeInsideTableIsAnError) {
  const std::string start = "# op: all_reduce\n" + k_header + k_row + "\n";
  std::string words13 = k_row;
  words13.replace(words13.find("134217728"), 9, "      abc");
  const std::string inside =
      invalid_argument_of([&] { at::parse_nccl_tests_log(start + words13, "w.log"); });
  EXPECT_EQ(inside.rfind("w.log:4: column 'size': expected a message size in bytes", 0), 0u)
      << inside;
  // After the table ends (a blank line) such a line is text, unless its first field is
  // number-like: then it can only be a broken row.
  EXPECT_EQ(at::parse_nccl_tests_log(start + "\n" + words13, "w.log").size(), 1u);
  std::string negative = k_row;
  negative.replace(negative.find("134217728"), 9, "      -16");
  const std::string outside =
      invalid_argument_of([&] { at::parse_nccl_tests_log(start + "\n" + negative, "w.log"); });
  EXPECT_EQ(outside.rfind("w.log:5: column 'size'", 0), 0u) << outside;
}

TEST(CollectiveLog, RankCountOverrideRecomputesBusBandwidth) {
  const std::string name = "nccl_h100_2node_16gpu_a3mega_allreduce.log";
  const auto rows = at::parse_nccl_tests_log(read_text(name), name);
  const auto four = at::with_rank_count(rows, 4);
  ASSERT_EQ(four.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].ranks, 16);
    EXPECT_EQ(four[i].ranks, 4);
    EXPECT_EQ(four[i].algbw_gbps, rows[i].algbw_gbps);
    EXPECT_NEAR(four[i].busbw_gbps, rows[i].algbw_gbps * published_bus_factor("all_reduce", 4),
                1e-12 * rows[i].algbw_gbps);
  }
  // An op without a known factor keeps the busbw the log printed.
  const auto unknown = at::parse_nccl_tests_log(k_header + k_row + "\n", "u.log");
  ASSERT_EQ(unknown[0].op, "unknown");
  EXPECT_DOUBLE_EQ(at::with_rank_count(unknown, 4)[0].busbw_gbps, 152.32);
  EXPECT_THROW(at::with_rank_count(rows, 0), std::invalid_argument);
}

namespace {

const std::string k_osu_bw_table =
    "# Datatype: MPI_CHAR.\n# Size      Bandwidth (MB/s)        Validation\n"
    "1                       0.95              Pass\n"
    "1024                  968.30              Fail\n";

}  // namespace

TEST(CollectiveLog, OsuTitlesOfOtherTestsAreRefused) {
  for (const std::string title :
       {"# OSU MPI Bi-Directional Bandwidth Test v7.5",
        "# OSU MPI-CUDA Bi-Directional Bandwidth Test v7.5", "# OSU MPI_Put Latency Test v7.5",
        "# OSU MPI_Put Bandwidth Test v7.5",
        "# OSU MPI Multiple Bandwidth / Message Rate Test v7.5"}) {
    const std::string error = invalid_argument_of(
        [&] { at::parse_osu_log("$ srun ./osu\n" + title + "\n" + k_osu_bw_table, "o.log"); });
    EXPECT_EQ(error.rfind("o.log:2: OSU test '", 0), 0u) << error;
    EXPECT_NE(error.find("only osu_bw, osu_latency, osu_allreduce"), std::string::npos) << error;
  }
  const std::string bibw = invalid_argument_of([&] {
    at::parse_osu_log("# OSU MPI Bi-Directional Bandwidth Test v7.5\n" + k_osu_bw_table, "o.log");
  });
  EXPECT_NE(bibw.find("'MPI Bi-Directional Bandwidth'"), std::string::npos) << bibw;
  // Without a title the header cannot tell osu_bw from osu_bibw.
  const std::string untitled =
      invalid_argument_of([&] { at::parse_osu_log(k_osu_bw_table, "o.log"); });
  EXPECT_EQ(untitled.rfind("o.log:2: OSU table header without a title line ('# OSU MPI "
                           "Bandwidth Test'",
                           0),
            0u)
      << untitled;
}

TEST(CollectiveLog, OsuBandwidthTitlesOfEveryAcceleratorAreRead) {
  for (const std::string title :
       {"# OSU MPI Bandwidth Test v5.6.3", "# OSU MPI-CUDA Bandwidth Test v7.5",
        "# OSU MPI-ROCm Bandwidth Test v7.4"}) {
    const auto rows = at::parse_osu_log(title + "\n" + k_osu_bw_table, "o.log");
    ASSERT_EQ(rows.size(), 2u) << title;
    EXPECT_EQ(rows[0].op, "osu_bw");
  }
}

TEST(CollectiveLog, OsuValidationFailIsOneWrongElement) {
  const auto rows = at::parse_osu_log("# OSU MPI Bandwidth Test v7.5\n" + k_osu_bw_table, "o.log");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].wrong, 0);  // Pass
  EXPECT_EQ(rows[1].wrong, 1);  // Fail: at least one wrong element, OSU gives no count
  const auto unvalidated = at::parse_osu_log(
      "# OSU MPI Bandwidth Test v7.5\n# Size      Bandwidth (MB/s)\n1024  968.30\n", "o.log");
  EXPECT_EQ(unvalidated[0].wrong, -1);
  const std::string other = invalid_argument_of([&] {
    at::parse_osu_log(
        "# OSU MPI Bandwidth Test v7.5\n# Size  Bandwidth (MB/s)  Validation\n"
        "1024  968.30  Skipped\n",
        "o.log");
  });
  EXPECT_EQ(other, "o.log:3: column 'Validation': expected Pass or Fail, found 'Skipped'");
}

TEST(CollectiveLog, OsuRowWithUnreadableSizeIsAnError) {
  const std::string name = "osu_gh200_alps_osu_bw_host_and_cuda.log";
  const std::string text = read_text(name);
  const int line = line_of_row(text, "1024");
  for (const std::string field : {"-16", "16.5", "1e3", "abc"}) {
    const std::string error = invalid_argument_of(
        [&] { at::parse_osu_log(with_first_field(text, line, field), "o.log"); });
    EXPECT_EQ(error, "o.log:" + std::to_string(line) +
                         ": column 'Size': expected a message size in bytes (an unsigned "
                         "integer), found '" +
                         field + "'")
        << field;
  }
}

// Found by fuzzing: a size and time whose quotient overflows, and an OSU block size that
// overflows once multiplied by the rank count, were stored as an infinite bandwidth or
// overflowed a signed integer; they are errors naming the file and line.
TEST(CollectiveLog, SizesAndTimesWithoutFiniteBandwidthNameFileAndLine) {
  std::string tiny_time = k_row;
  tiny_time.replace(tiny_time.find("134217728"), 9, "9223372036854775807");
  tiny_time.replace(tiny_time.find("1652.2"), 6, "1e-300");
  const std::string nccl = invalid_argument_of(
      [&] { at::parse_nccl_tests_log("# op: all_reduce\n" + k_header + tiny_time, "n.log"); });
  EXPECT_EQ(nccl.rfind("n.log:3: size 9223372036854775807 B in ", 0), 0u) << nccl;
  EXPECT_NE(nccl.find("no finite bandwidth"), std::string::npos) << nccl;
  const std::string bw = invalid_argument_of([&] {
    at::parse_osu_log("# OSU MPI Bandwidth Test v7.5\n# Size  Bandwidth (MB/s)\n1  1e-320\n",
                      "o.log");
  });
  EXPECT_EQ(bw.rfind("o.log:3: size 1 B gives a time of inf us; expected a finite time > 0", 0), 0u)
      << bw;
  const std::string block = invalid_argument_of([&] {
    at::parse_osu_log(
        "# OSU MPI Allgather Latency Test v7.5\n# Size  Avg Latency(us)\n"
        "9223372036854775807  1.0\n",
        "o.log", 8);
  });
  EXPECT_EQ(block,
            "o.log:3: Size 9223372036854775807 x 8 ranks does not fit in 64 bits; "
            "expected a size a benchmark can allocate");
}
