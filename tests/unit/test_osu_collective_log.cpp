// OSU Micro-Benchmarks latency tables read into /collectives rows: the collective latency tests
// (osu_allreduce, osu_alltoall, osu_allgather, osu_bcast and an osu_xccl_allreduce) and
// osu_latency, from the real logs in tests/data/osu (each names its source in its first line),
// against the numbers printed in their own lines, the published bus bandwidth factors and OSU's
// size conventions; then malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "autotune/collective_log.hpp"
#include "tests/support/text_lines.hpp"

namespace at = scaletune::autotune;
using scaletune::testing_support::lines_of;

using scaletune::testing_support::invalid_argument_of;

namespace {

const std::string k_data_dir = SCALETUNE_SOURCE_DIR "/tests/data/osu/";

std::string read_text(const std::string& name) {
  return scaletune::testing_support::file_text(k_data_dir + name);
}

/// 1-based number of the `nth` (1-based) line of `text` that starts with `prefix`.
int line_starting(const std::string& text, const std::string& prefix, int nth = 1) {
  const std::vector<std::string> lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].starts_with(prefix) && --nth == 0) return static_cast<int>(i + 1);
  throw std::runtime_error("no line starting with '" + prefix + "'");
}

/// `text` with the first `from` in line `line` (1-based) replaced by `to`.
std::string edited(const std::string& text, int line, const std::string& from,
                   const std::string& to) {
  std::vector<std::string> lines = lines_of(text);
  std::string& l = lines.at(static_cast<std::size_t>(line - 1));
  const std::size_t at = l.find(from);
  if (at == std::string::npos) throw std::runtime_error("no '" + from + "' in " + l);
  l.replace(at, from.size(), to);
  std::string out;
  for (const std::string& each : lines) out += each + "\n";
  return out;
}

/// The row whose source names line `line` of `name`.
const at::CollectiveRow& row_at(const std::vector<at::CollectiveRow>& rows, const std::string& name,
                                int line) {
  const std::string source = "osu:" + name + ":" + std::to_string(line);
  for (const auto& row : rows)
    if (row.source == source) return row;
  throw std::runtime_error("no row from " + source);
}

/// Checks a row against the latency OSU printed for it: bytes, time, algbw = bytes / time and
/// busbw = algbw x `factor` (nccl-tests' bus factor, written out here).
void expect_latency_row(const at::CollectiveRow& row, std::int64_t bytes, double printed_us,
                        double factor) {
  const double algbw_gbps = double(bytes) / (printed_us * 1e-6) / 1e9;
  EXPECT_EQ(row.bytes, bytes) << row.source;
  EXPECT_DOUBLE_EQ(row.time_us, printed_us) << row.source;
  EXPECT_NEAR(row.algbw_gbps, algbw_gbps, 1e-12 * algbw_gbps) << row.source;
  EXPECT_NEAR(row.busbw_gbps, algbw_gbps * factor, 1e-12 * algbw_gbps) << row.source;
}

}  // namespace

// osu_alltoall's Size is the block each rank sends to each peer: the whole send buffer, which
// nccl-tests' size counts, is Size x ranks. 8 ranks (srun -N2 --ntasks-per-node=4).
TEST(OsuCollectiveLog, AlltoallValidationTablesOnEightRanks) {
  const std::string name = "osu_alltoall_gh200_alps_8ranks_validation.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_osu_log(text, name, 8);
  ASSERT_EQ(rows.size(), 4u * 21u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.op, "alltoall");
    EXPECT_EQ(row.dtype, "byte");  // "# Datatype: MPI_CHAR."
    EXPECT_EQ(row.ranks, 8);
    EXPECT_EQ(row.wrong, 0);  // every row "Pass"
    EXPECT_FALSE(row.in_place);
  }
  // "1048576               519.85              Pass" of the CPU-to-CPU table; (n-1)/n.
  expect_latency_row(row_at(rows, name, line_starting(text, "1048576 ")), 8 * 1048576, 519.85,
                     7.0 / 8.0);
  // "65536                  44.88              Pass" of the GPU-to-GPU table (the third).
  expect_latency_row(row_at(rows, name, line_starting(text, "65536 ", 3)), 8 * 65536, 44.88,
                     7.0 / 8.0);
}

TEST(OsuCollectiveLog, AlltoallWithoutRankCountIsAnError) {
  const std::string name = "osu_alltoall_gh200_alps_8ranks_validation.log";
  const std::string text = read_text(name);
  const std::string error = invalid_argument_of([&] { at::parse_osu_log(text, name, 0); });
  EXPECT_EQ(error.rfind(name + ":" + std::to_string(line_starting(text, "1 ")) +
                            ": osu_alltoall prints the size of each rank's block",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("--ranks N"), std::string::npos) << error;
}

// One node, 36 ranks, 1 B to 64 MiB.
TEST(OsuCollectiveLog, AlltoallOnThirtySixRanks) {
  const std::string name = "osu_alltoall_oci_x9_36ranks.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_osu_log(text, name, 36);
  ASSERT_EQ(rows.size(), 27u);
  EXPECT_EQ(rows.front().bytes, 36);
  expect_latency_row(rows.back(), 36 * 67108864LL, 747888.64, 35.0 / 36.0);
  expect_latency_row(row_at(rows, name, line_starting(text, "4096 ")), 36 * 4096, 57.71,
                     35.0 / 36.0);
}

// osu_allgather's Size is what each rank contributes: the gathered buffer is Size x ranks.
TEST(OsuCollectiveLog, AllgatherOnSixtyFourRanksOldFormat) {
  const std::string name = "osu_allgather_alaska_64ranks_v5.6.2.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_osu_log(text, name, 64);
  ASSERT_EQ(rows.size(), 21u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.op, "all_gather");
    EXPECT_EQ(row.dtype, "byte");  // OMB 5.6 prints no Datatype line; osu_allgather moves chars
    EXPECT_EQ(row.wrong, -1);      // no validation column
  }
  expect_latency_row(rows.back(), 64 * 1048576, 196065.83, 63.0 / 64.0);
  expect_latency_row(rows.front(), 64, 18.51, 63.0 / 64.0);
}

// osu_allreduce's Size is the reduced buffer, as nccl-tests' size. OMB 7.0 --full: four columns
// after Size and no Datatype line (7.0 reduces MPI_FLOAT).
TEST(OsuCollectiveLog, AllreduceFullTableVersionSeven) {
  const std::string name = "osu_allreduce_c220g5_8ranks_v7.0_full.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_osu_log(text, name, 8);
  ASSERT_EQ(rows.size(), 19u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.op, "all_reduce");
    EXPECT_EQ(row.dtype, "float");
    EXPECT_EQ(row.ranks, 8);
    EXPECT_EQ(row.wrong, -1);
  }
  EXPECT_EQ(rows.front().bytes, 4);
  // "1048576              4225.22           4128.43           4358.31         100": 2(n-1)/n.
  expect_latency_row(rows.back(), 1048576, 4225.22, 2.0 * 7.0 / 8.0);
  expect_latency_row(row_at(rows, name, line_starting(text, "8192 ")), 8192, 337.91,
                     2.0 * 7.0 / 8.0);
}

TEST(OsuCollectiveLog, AllreduceWithoutRankCountKeepsRowsWithUnknownBusBandwidth) {
  const std::string name = "osu_allreduce_c220g5_8ranks_v7.0_full.log";
  const auto rows = at::parse_osu_log(read_text(name), name);
  ASSERT_EQ(rows.size(), 19u);
  EXPECT_EQ(rows.back().ranks, 0);
  EXPECT_DOUBLE_EQ(rows.back().time_us, 4225.22);
  EXPECT_NEAR(rows.back().algbw_gbps, 1048576 / 4225.22 / 1e3, 1e-12);
  EXPECT_EQ(rows.back().busbw_gbps, 0.0);  // OSU prints no bandwidth; the factor needs n
}

// OMB 7.1 --full --validation with "# Datatype: MPI_FLOAT.".
TEST(OsuCollectiveLog, AllreduceFloatTableWithValidation) {
  const std::string name = "osu_allreduce_c220g5_cxl_vms_8ranks_v7.1_float_validation.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_osu_log(text, name, 8);
  ASSERT_EQ(rows.size(), 19u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.dtype, "float");
    EXPECT_EQ(row.wrong, 0);
  }
  expect_latency_row(row_at(rows, name, line_starting(text, "524288 ")), 524288, 343.84,
                     2.0 * 7.0 / 8.0);
}

// 144 ranks on 4 nodes, "# Datatype: MPI_INT.".
TEST(OsuCollectiveLog, AllreduceIntOnHundredFortyFourRanks) {
  const std::string name = "osu_allreduce_oci_x9_144ranks_int.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_osu_log(text, name, 144);
  ASSERT_EQ(rows.size(), 27u);
  for (const auto& row : rows) EXPECT_EQ(row.dtype, "int32");
  expect_latency_row(rows.back(), 268435456, 496306.98, 2.0 * 143.0 / 144.0);
}

// osu_bcast's Size is the broadcast buffer; broadcast's bus factor is 1.
TEST(OsuCollectiveLog, BroadcastFullTable) {
  const std::string name = "osu_bcast_c220g5_8ranks_v7.0_full.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_osu_log(text, name, 8);
  ASSERT_EQ(rows.size(), 21u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.op, "broadcast");
    EXPECT_EQ(row.dtype, "byte");
  }
  expect_latency_row(rows.back(), 1048576, 5253.39, 1.0);
}

// osu_latency prints half the ping-pong round trip; osu_bw's MB/s give bytes / bandwidth.
TEST(OsuCollectiveLog, LatencyAndBandwidthTablesOfOneLog) {
  const std::string name = "osu_latency_bw_oci_x9_2nodes.log";
  const auto rows = at::parse_osu_log(read_text(name), name);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].op, "osu_latency");
  EXPECT_EQ(rows[0].ranks, 2);
  EXPECT_EQ(rows[0].dtype, "byte");
  expect_latency_row(rows[0], 1, 1.67, 1.0);
  EXPECT_EQ(rows[1].op, "osu_bw");
  EXPECT_EQ(rows[1].bytes, 268435456);
  EXPECT_NEAR(rows[1].time_us, 268435456 / 12254.16, 1e-9);
  EXPECT_NEAR(rows[1].busbw_gbps, 12254.16 / 1e3, 1e-9);
}

// The old osu_latency header "Latency (us)", sizes from 0: a row of no bytes has algbw 0.
TEST(OsuCollectiveLog, OldLatencyTableFromSizeZero) {
  const std::string name = "osu_latency_alaska_v5.6.2.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_osu_log(text, name);
  ASSERT_EQ(rows.size(), 24u);
  EXPECT_EQ(rows.front().bytes, 0);
  EXPECT_DOUBLE_EQ(rows.front().time_us, 1.50);
  EXPECT_EQ(rows.front().algbw_gbps, 0.0);
  expect_latency_row(rows.back(), 4194304, 642.53, 1.0);
  // A rank count is for collective tables; this log has none.
  const std::string error = invalid_argument_of([&] { at::parse_osu_log(text, name, 4); });
  EXPECT_EQ(error.rfind(name + ":" + std::to_string(lines_of(text).size()) +
                            ": a rank count is given (--ranks 4) but the log holds only osu_bw "
                            "and osu_latency tables",
                        0),
            0u)
      << error;
}

// GPU osu_latency tables, then an osu_xccl_allreduce ("# OSU NCCL-CUDA ..."), which prints no
// Datatype line and sums floats. The rank count applies to the collective only.
TEST(OsuCollectiveLog, CudaLatencyAndNcclAllreduce) {
  const std::string name = "osu_latency_xccl_allreduce_oci_a100.log";
  const std::string text = read_text(name);
  const auto rows = at::parse_osu_log(text, name, 8);
  ASSERT_EQ(rows.size(), 8u);
  for (std::size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(rows[i].op, "osu_latency");
    EXPECT_EQ(rows[i].ranks, 2);
    EXPECT_EQ(rows[i].bytes, 1);
  }
  EXPECT_DOUBLE_EQ(rows[0].time_us, 2.48);  // D D
  EXPECT_DOUBLE_EQ(rows[3].time_us, 1.92);  // H D across sockets
  EXPECT_EQ(rows[7].op, "all_reduce");
  EXPECT_EQ(rows[7].dtype, "float");
  EXPECT_EQ(rows[7].ranks, 8);
  expect_latency_row(rows[7], 1073741824, 8955.18, 2.0 * 7.0 / 8.0);
}

// osu_reduce_scatter prints the same table as osu_allreduce; its Size is the whole send
// buffer (recvcounts = Size / ranks), as nccl-tests' size. The real allreduce table under the
// reduce_scatter title shows the mapping.
TEST(OsuCollectiveLog, ReduceScatterTitleKeepsTheSize) {
  const std::string name = "osu_allreduce_oci_x9_144ranks_int.log";
  const std::string text = read_text(name);
  const int title = line_starting(text, "# OSU MPI Allreduce");
  const auto rows =
      at::parse_osu_log(edited(text, title, "Allreduce", "Reduce_scatter"), name, 144);
  ASSERT_EQ(rows.size(), 27u);
  EXPECT_EQ(rows.back().op, "reduce_scatter");
  expect_latency_row(rows.back(), 268435456, 496306.98, 143.0 / 144.0);
  for (const std::string library : {"RCCL-ROCM", "NCCL", "MPI-ROCM"}) {
    const auto xccl = at::parse_osu_log(edited(text, title, "MPI", library), name, 144);
    EXPECT_EQ(xccl.back().op, "all_reduce") << library;
  }
}

TEST(OsuCollectiveLog, OtherOsuTestsAreRefusedByTitle) {
  const std::string name = "osu_allreduce_oci_x9_144ranks_int.log";
  const std::string text = read_text(name);
  const int title = line_starting(text, "# OSU MPI Allreduce");
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{{"Allreduce", "Non-blocking Allreduce"},
                                                        {"Allreduce", "Reduce"},
                                                        {"Allreduce", "Allgatherv"},
                                                        {"MPI Allreduce", "MPI_Get"},
                                                        {"MPI", "OpenSHMEM"}}) {
    const std::string error = invalid_argument_of(
        [&] { at::parse_osu_log(edited(text, title, from, to), "o.log", 144); });
    EXPECT_EQ(error.rfind("o.log:" + std::to_string(title) + ": OSU test '", 0), 0u) << error;
    EXPECT_NE(error.find("' is not imported: only osu_bw, osu_latency, osu_allreduce"),
              std::string::npos)
        << error;
  }
}

TEST(OsuCollectiveLog, HeaderWithColumnsOsuDoesNotPrintIsAnError) {
  const std::string name = "osu_allreduce_c220g5_8ranks_v7.0_full.log";
  const std::string text = read_text(name);
  const int header = line_starting(text, "# Size");
  const std::string unknown = invalid_argument_of([&] {
    at::parse_osu_log(edited(text, header, "Iterations", "Iterations  Transmit Size"), "h.log", 8);
  });
  EXPECT_EQ(unknown, "h.log:" + std::to_string(header) +
                         ": unsupported OSU table header: unknown column 'Transmit Size'; "
                         "expected '# Size Avg Latency(us) [Min Latency(us) Max Latency(us) "
                         "Iterations] [Validation] [P<n> Tail Lat(us)...]'");
  const std::string bandwidth = invalid_argument_of([&] {
    at::parse_osu_log(edited(text, header, "Avg Latency(us)", "Bandwidth (MB/s)"), "h.log", 8);
  });
  EXPECT_EQ(bandwidth.rfind("h.log:" + std::to_string(header) +
                                ": unsupported OSU table header: unknown column 'Bandwidth (MB/s)",
                            0),
            0u)
      << bandwidth;
  const std::string first = invalid_argument_of([&] {
    at::parse_osu_log(edited(text, header, "Avg Latency(us)", "Iterations"), "h.log", 8);
  });
  EXPECT_NE(first.find("the test's latency column comes first after Size"), std::string::npos)
      << first;
}

// The tail-latency columns osu_util_mpi.c's print_only_header adds with --tail-lat are known
// columns: the real rows under such a header then lack three values.
TEST(OsuCollectiveLog, TailLatencyColumnsAreKnown) {
  const std::string name = "osu_alltoall_oci_x9_36ranks.log";
  const std::string text = read_text(name);
  const int header = line_starting(text, "# Size");
  const std::string tail = edited(text, header, "Avg Latency(us)",
                                  "Avg Latency(us)  P50 Tail Lat(us)  P90 Tail Lat(us)  P99 Tail "
                                  "Lat(us)");
  const std::string error = invalid_argument_of([&] { at::parse_osu_log(tail, "t.log", 36); });
  EXPECT_EQ(error, "t.log:" + std::to_string(header + 1) +
                       ": expected 5 columns (Size Avg Latency(us) P50 Tail Lat(us) P90 Tail "
                       "Lat(us) P99 Tail Lat(us)), found 2");
}

TEST(OsuCollectiveLog, RowBeforeAnyHeaderIsAnError) {
  const std::string name = "osu_bcast_c220g5_8ranks_v7.0_full.log";
  const std::string text = read_text(name);
  const int header = line_starting(text, "# Size");
  const std::string no_header = invalid_argument_of(
      [&] { at::parse_osu_log(edited(text, header, "# Size", "#"), "r.log", 8); });
  EXPECT_EQ(no_header.rfind("r.log:" + std::to_string(header + 1) +
                                ": table row before any OSU '# Size ...' header",
                            0),
            0u)
      << no_header;
  const int title = line_starting(text, "# OSU");
  const std::string no_title = invalid_argument_of(
      [&] { at::parse_osu_log(edited(text, title, "# OSU", "#"), "r.log", 8); });
  EXPECT_EQ(no_title.rfind(
                "r.log:" + std::to_string(header) + ": OSU table header without a title line", 0),
            0u)
      << no_title;
}

TEST(OsuCollectiveLog, UnreadableValuesNameTheColumn) {
  const std::string name = "osu_allreduce_c220g5_8ranks_v7.0_full.log";
  const std::string text = read_text(name);
  const int row = line_starting(text, "8192 ");  // "8192  337.91  334.65  341.37  1000"
  const auto error = [&](const std::string& from, const std::string& to) {
    return invalid_argument_of([&] { at::parse_osu_log(edited(text, row, from, to), "v.log", 8); });
  };
  const std::string at_row = "v.log:" + std::to_string(row) + ": ";
  EXPECT_EQ(error("337.91", "33x.91"),
            at_row + "column 'Avg Latency(us)': expected a number, found '33x.91'");
  EXPECT_EQ(error("337.91", "0.00"), at_row + "column 'Avg Latency(us)': expected a value > 0");
  EXPECT_EQ(error("341.37", "n/a"),
            at_row + "column 'Max Latency(us)': expected a number, found 'n/a'");
  EXPECT_EQ(error("1000", "1e3"), at_row + "column 'Iterations': expected an integer, found '1e3'");
  EXPECT_EQ(error("  1000", ""),
            at_row +
                "expected 5 columns (Size Avg Latency(us) Min Latency(us) Max Latency(us) "
                "Iterations), found 4");
  EXPECT_EQ(error("8192", "-8192").rfind(at_row + "column 'Size': expected a message size", 0), 0u);
}

TEST(OsuCollectiveLog, ValidationAndDatatypeMustBeKnown) {
  const std::string name = "osu_allreduce_c220g5_cxl_vms_8ranks_v7.1_float_validation.log";
  const std::string text = read_text(name);
  const int row = line_starting(text, "1024 ");
  EXPECT_EQ(invalid_argument_of(
                [&] { at::parse_osu_log(edited(text, row, "Pass", "Skipped"), "d.log", 8); }),
            "d.log:" + std::to_string(row) +
                ": column 'Validation': expected Pass or Fail, found 'Skipped'");
  const auto failed = at::parse_osu_log(edited(text, row, "Pass", "Fail"), "d.log", 8);
  EXPECT_EQ(row_at(failed, "d.log", row).wrong, 1);  // at least one wrong element
  const int dtype = line_starting(text, "# Datatype:");
  EXPECT_EQ(
      invalid_argument_of(
          [&] { at::parse_osu_log(edited(text, dtype, "MPI_FLOAT", "MPI_DOUBLE"), "d.log", 8); }),
      "d.log:" + std::to_string(dtype) +
          ": OSU datatype 'MPI_DOUBLE' is not imported: expected MPI_CHAR, MPI_INT or MPI_FLOAT "
          "(the types OSU's -T option takes)");
  const auto ints = at::parse_osu_log(edited(text, dtype, "MPI_FLOAT", "MPI_INT"), "d.log", 8);
  EXPECT_EQ(ints.front().dtype, "int32");
  EXPECT_THROW(at::parse_osu_log(text, "d.log", -1), std::invalid_argument);
}
