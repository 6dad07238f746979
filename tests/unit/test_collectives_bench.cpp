// The collective benchmark's parts that need no MPI: nccl-tests sizing (checked against the
// real nccl-tests logs), inputs and verification (against a naive simulation of every rank),
// element conversions (IEEE definitions) and the printed table (against nccl-tests' own lines,
// and read back by the nccl-tests importer).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "autotune/collective_log.hpp"
#include "harness/collectives/bench_case.hpp"
#include "harness/collectives/collective_op.hpp"
#include "harness/collectives/element_values.hpp"
#include "harness/collectives/nccl_tests_table.hpp"
#include "harness/collectives/verification.hpp"
#include "harness/core/dtype.hpp"
#include "harness/core/reduce_op.hpp"
#include "harness/job/job.hpp"
#include "tests/support/text_lines.hpp"

namespace scaletune::collectives {
namespace {

using core::DType;
using core::ReduceOp;

std::string read_log(const std::string& name) {
  std::ifstream in(std::string(SCALETUNE_SHARED_DIR) + "/data/nccl-tests/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every table row of the 8-GPU H100 log: size and count as nccl-tests printed them for double.
TEST(OpLayout, MatchesNcclTestsSizingOnTheRealH100Log) {
  const std::string log = read_log("nccl_h100_1node_8gpu_multi_collective.log");
  const auto rows = autotune::parse_nccl_tests_log(log, "h100.log");
  int checked = 0;
  for (const std::string& line : testing_support::lines_of(log)) {
    std::istringstream words(line);
    long long size = 0, count = 0;
    std::string type;
    if (!(words >> size >> count >> type) || type != "double") continue;
    for (const auto& r : rows) {
      const auto op = std::ranges::find(job::kCollectiveOps, r.op, collective_op_name);
      if (op == job::kCollectiveOps.end() || r.bytes != size) continue;
      const OpLayout l = op_layout(*op, size, 8, 8);
      EXPECT_EQ(l.bytes, size) << r.op;
      ++checked;
      (void)count;
    }
  }
  EXPECT_GT(checked, 0);
  // The printed count column, op by op (first rows of each table in the log).
  EXPECT_EQ(op_layout(CollectiveOp::all_reduce, 33554432, 8, 8).count, 4194304u);
  EXPECT_EQ(op_layout(CollectiveOp::all_gather, 33554432, 8, 8).count, 524288u);
  EXPECT_EQ(op_layout(CollectiveOp::alltoall, 33554432, 8, 8).count, 524288u);
}

TEST(OpLayout, BufferSizesFollowTheOp) {
  const OpLayout rs = op_layout(CollectiveOp::reduce_scatter, 1000, 4, 3);
  EXPECT_EQ(rs.count, 83u);  // 250 elements over 3 ranks
  EXPECT_EQ(rs.send_count, 249u);
  EXPECT_EQ(rs.recv_count, 83u);
  EXPECT_EQ(rs.bytes, 996);
  const OpLayout ag = op_layout(CollectiveOp::all_gatherv, 1000, 4, 3);
  EXPECT_EQ(ag.send_count, 83u);
  EXPECT_EQ(ag.recv_count, 249u);
  const OpLayout b = op_layout(CollectiveOp::broadcast, 7, 2, 5);
  EXPECT_EQ(b.count, 3u);
  EXPECT_EQ(b.bytes, 6);
  EXPECT_EQ(op_layout(CollectiveOp::alltoall, 8, 4, 4).count, 0u);  // below one element per rank
  EXPECT_THROW(op_layout(CollectiveOp::all_reduce, 8, 4, 0), std::invalid_argument);
}

// The job's element types and reductions convert to core's one to one, under the same
// spelling: every dtype a job accepts has a type and every type has a dtype a job accepts.
TEST(JobSpellings, DtypesAndRedopsMatchCore) {
  std::vector<DType> converted;
  for (const job::DataType type : job::kCollectiveDtypes) {
    converted.push_back(core::dtype_of(type));
    EXPECT_EQ(core::dtype_key(converted.back()), job::data_type_text(type));
  }
  for (const DType type :
       {DType::fp32, DType::fp64, DType::fp16, DType::bf16, DType::int32, DType::int64})
    EXPECT_NE(std::ranges::find(converted, type), converted.end()) << core::dtype_key(type);
  for (const job::ReductionOp op : job::kReductionOps)
    EXPECT_EQ(core::reduce_op_name(core::reduce_op_of(op)), job::reduction_op_text(op));
  EXPECT_EQ(core::reduce_op_of(job::ReductionOp::sum), ReduceOp::sum);
  EXPECT_EQ(core::reduce_op_of(job::ReductionOp::avg), ReduceOp::avg);
}

// Every op a job can name is one the benchmark times, under the nccl-tests name.
TEST(JobSpellings, CollectiveOpsAreTheJobsOps) {
  const std::vector<std::string_view> names = {"all_reduce",  "reduce_scatter", "all_gather",
                                               "all_gatherv", "alltoall",       "alltoallv",
                                               "broadcast"};
  ASSERT_EQ(job::kCollectiveOps.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i)
    EXPECT_EQ(collective_op_name(job::kCollectiveOps[i]), names[i]);
}

// Element conversions by the IEEE 754 binary16 and bfloat16 definitions.
TEST(ElementValues, RoundToNearestEven) {
  std::byte b[8];
  store_element(DType::fp16, 2049.0, b);  // fp16 spacing is 2 at 2048: tie to even
  EXPECT_EQ(load_element(DType::fp16, b), 2048.0);
  store_element(DType::fp16, 2051.0, b);
  EXPECT_EQ(load_element(DType::fp16, b), 2052.0);
  store_element(DType::bf16, 257.0, b);  // bf16 spacing is 2 at 256
  EXPECT_EQ(load_element(DType::bf16, b), 256.0);
  store_element(DType::bf16, 259.0, b);
  EXPECT_EQ(load_element(DType::bf16, b), 260.0);
  store_element(DType::int64, -5.0, b);
  EXPECT_EQ(load_element(DType::int64, b), -5.0);
  EXPECT_EQ(unit_roundoff(DType::bf16), std::ldexp(1.0, -8));
  EXPECT_EQ(unit_roundoff(DType::int32), 0.0);
}

// Naive simulation of every rank: the result `rank` gets, built from the op's definition.
std::vector<double> simulate(const BenchCase& c, int rank) {
  const std::size_t n = c.layout.count;
  std::vector<double> out;
  const auto in = [&](int k, std::size_t i) { return input_value(k, i); };
  const auto reduce = [&](std::size_t i) {
    double s = 0;
    for (int k = 0; k < c.ranks; ++k) s += in(k, i);
    if (c.redop == ReduceOp::avg)
      s = unit_roundoff(c.type) == 0 ? std::trunc(s / c.ranks) : s / c.ranks;
    return s;
  };
  switch (c.op) {
    case CollectiveOp::all_reduce:
      for (std::size_t i = 0; i < n; ++i) out.push_back(reduce(i));
      break;
    case CollectiveOp::reduce_scatter:
      for (std::size_t i = 0; i < n; ++i) out.push_back(reduce(rank * n + i));
      break;
    case CollectiveOp::all_gather:
    case CollectiveOp::all_gatherv:
      for (int k = 0; k < c.ranks; ++k)
        for (std::size_t i = 0; i < n; ++i) out.push_back(in(k, i));
      break;
    case CollectiveOp::alltoall:
    case CollectiveOp::alltoallv:
      for (int k = 0; k < c.ranks; ++k)
        for (std::size_t i = 0; i < n; ++i) out.push_back(in(k, rank * n + i));
      break;
    case CollectiveOp::broadcast:
      for (std::size_t i = 0; i < n; ++i) out.push_back(in(0, i));
  }
  return out;
}

std::vector<std::byte> as_bytes(DType type, const std::vector<double>& values) {
  const std::size_t w = core::dtype_bytes(type);
  std::vector<std::byte> bytes(values.size() * w);
  for (std::size_t i = 0; i < values.size(); ++i)
    store_element(type, values[i], bytes.data() + i * w);
  return bytes;
}

class Verification
    : public ::testing::TestWithParam<std::tuple<CollectiveOp, DType, ReduceOp, int>> {};

TEST_P(Verification, NaiveResultIsRightAndOneChangedElementIsWrong) {
  const auto [op, type, redop, ranks] = GetParam();
  const BenchCase c = make_case(op, 1000, type, redop, ranks);
  for (int rank = 0; rank < ranks; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    std::vector<double> want = simulate(c, rank);
    ASSERT_EQ(want.size(), result_region(c, Placement::out_of_place, rank).count);
    EXPECT_EQ(count_wrong(c, rank, as_bytes(type, want)), 0);
    want[want.size() / 2] += 1.0;
    want.back() = unit_roundoff(type) == 0 ? want.back() - 3.0 : std::nan("");
    EXPECT_EQ(count_wrong(c, rank, as_bytes(type, want)), 2);
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryOp, Verification,
    ::testing::Combine(::testing::Values(CollectiveOp::all_reduce, CollectiveOp::reduce_scatter,
                                         CollectiveOp::all_gather, CollectiveOp::all_gatherv,
                                         CollectiveOp::alltoall, CollectiveOp::alltoallv,
                                         CollectiveOp::broadcast),
                       ::testing::Values(DType::fp32, DType::bf16, DType::int32),
                       ::testing::Values(ReduceOp::sum, ReduceOp::avg), ::testing::Values(1, 3)));

TEST(Verification, InPlaceImagesPutTheInputWhereNcclExpectsIt) {
  const BenchCase ag = make_case(CollectiveOp::all_gather, 48, DType::fp32, ReduceOp::sum, 3);
  const std::vector<std::byte> image = input_image(ag, Placement::in_place, 2);
  ASSERT_EQ(image.size(), 48u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(load_element(DType::fp32, image.data() + 4 * i), 0.0);
    EXPECT_EQ(load_element(DType::fp32, image.data() + 4 * (8 + i)), input_value(2, i));
  }
  const BenchCase rs = make_case(CollectiveOp::reduce_scatter, 48, DType::fp32, ReduceOp::sum, 3);
  EXPECT_EQ(input_image(rs, Placement::in_place, 1).size(), 48u);
  EXPECT_EQ(result_region(rs, Placement::in_place, 1).offset, 4u);
  EXPECT_FALSE(verifiable(make_case(CollectiveOp::alltoall, 48, DType::fp32, ReduceOp::sum, 3),
                          Placement::in_place));
}

// The A100 fragment's first row, printed from its own values, is the same line.
TEST(NcclTestsTable, RowMatchesNcclTestsOutputCharacterForCharacter) {
  const auto lines =
      testing_support::lines_of(read_log("nccl_a100_8gpu_nvlink_sendrecv_fragment.log"));
  TableRow row;
  row.bytes = 134217728;
  row.count = 33554432;
  row.type = "float";
  row.redop = "sum";
  row.root = -1;
  row.out_of_place = PlacementFigures{1211.2, 110.81, 110.81, 0};
  row.in_place = PlacementFigures{1211.8, 110.76, 110.76, -1};
  EXPECT_EQ(table_row(row), lines.at(7) + "\n");
  TestPreamble p;
  p.op = "sendrecv";
  const auto printed = testing_support::lines_of(test_start(p));
  const auto trim = [](std::string s) { return s.substr(0, s.find_last_not_of(' ') + 1); };
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(trim(printed.at(printed.size() - 3 + i)), trim(lines.at(4 + i)));
}

TEST(NcclTestsTable, ImporterReadsWhatTheBenchmarkPrints) {
  TestPreamble p;
  p.op = "all_gather";
  p.backend = "mpi";
  p.rank_lines = {"on node1 device host-core:0", "on node1 device host-core:1",
                  "on node2 device host-core:0"};
  std::string log = test_start(p);
  TableRow row;
  row.type = "bfloat16";
  row.redop = "none";
  for (const long long bytes : {0LL, 96LL, 1536LL, 25165824LL}) {
    row.bytes = bytes;
    row.count = static_cast<std::size_t>(bytes / 6);
    const double time_us = 3.5 + bytes / 1e4;
    const double algbw = bytes / time_us / 1e3;
    row.out_of_place = PlacementFigures{time_us, algbw, algbw * 2 / 3, 0};
    row.in_place.reset();
    log += table_row(row);
  }
  log += test_end("all_gather", 0, 1.0);
  const auto rows = autotune::parse_nccl_tests_log(log, "bench.log");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[3].op, "all_gather");
  EXPECT_EQ(rows[3].ranks, 3);
  EXPECT_EQ(rows[3].bytes, 25165824);
  EXPECT_NEAR(rows[3].time_us, 3.5 + 2516.5824, 0.05);  // printed with one decimal
  EXPECT_EQ(rows[3].dtype, "bfloat16");
  EXPECT_EQ(rows[3].wrong, 0);
}

}  // namespace
}  // namespace scaletune::collectives
