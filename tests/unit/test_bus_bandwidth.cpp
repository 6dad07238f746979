// Bus bandwidth factors and algorithm bandwidth against the nccl-tests definitions
// (NVIDIA/nccl-tests doc/PERFORMANCE.md), written out here independently, and against a row
// printed by nccl-tests itself.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "harness/results/bus_bandwidth.hpp"

namespace rs = scaletune::results;

TEST(BusFactor, MatchesPublishedFormulasForOneTwoAndEightRanks) {
  for (const int n : {1, 2, 8}) {
    EXPECT_DOUBLE_EQ(rs::bus_factor("all_reduce", n), 2.0 * (n - 1) / n) << n;
    for (const char* op : {"all_gather", "all_gatherv", "reduce_scatter", "alltoall", "alltoallv"})
      EXPECT_DOUBLE_EQ(rs::bus_factor(op, n), double(n - 1) / n) << op << " " << n;
    for (const char* op : {"broadcast", "reduce", "sendrecv", "p2p", "osu_bw"})
      EXPECT_DOUBLE_EQ(rs::bus_factor(op, n), 1.0) << op << " " << n;
  }
  EXPECT_DOUBLE_EQ(rs::bus_factor("all_reduce", 8), 1.75);
  EXPECT_DOUBLE_EQ(rs::bus_factor("all_gather", 8), 0.875);
  EXPECT_DOUBLE_EQ(rs::bus_factor("all_reduce", 1), 0.0);
}

// check_results.py compares names case-insensitively and without '_' or '-'.
TEST(BusFactor, SpellingsTheCheckerAcceptsNameTheSameOp) {
  const int n = 16;
  for (const char* op : {"allreduce", "AllReduce", "all-reduce", "ALL_REDUCE"})
    EXPECT_DOUBLE_EQ(rs::bus_factor(op, n), 2.0 * (n - 1) / n) << op;
  for (const char* op : {"allgather", "AllGatherV", "reducescatter", "all_to_all", "all-to-all-v"})
    EXPECT_DOUBLE_EQ(rs::bus_factor(op, n), double(n - 1) / n) << op;
  for (const char* op : {"Broadcast", "send_recv", "osubw"})
    EXPECT_DOUBLE_EQ(rs::bus_factor(op, n), 1.0) << op;
}

TEST(BusFactor, RejectsUnknownOpAndRankCountBelowOne) {
  for (const char* op : {"unknown", "", "gather", "all_reduce_x"}) {
    EXPECT_FALSE(rs::has_bus_factor(op)) << op;
    EXPECT_THROW(rs::bus_factor(op, 8), std::invalid_argument) << op;
  }
  EXPECT_TRUE(rs::has_bus_factor("all_reduce"));
  try {
    rs::bus_factor("gather", 8);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'gather'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(rs::bus_factor("all_reduce", 0), std::invalid_argument);
  EXPECT_THROW(rs::bus_factor("broadcast", -3), std::invalid_argument);
}

TEST(AlgBandwidth, IsBytesOverTimeInGigabytesPerSecond) {
  EXPECT_DOUBLE_EQ(rs::algbw_gbps(1'000'000'000, 1e6), 1.0);  // 1e9 bytes in 1 s
  EXPECT_DOUBLE_EQ(rs::algbw_gbps(0, 3.5), 0.0);
  // nccl_h100_2node_16gpu_a3mega_allreduce.log: 134217728 bytes in 1652.2 us, printed
  // algbw 81.24 and busbw 152.32 GB/s on 16 ranks.
  const double algbw = rs::algbw_gbps(134217728, 1652.2);
  EXPECT_NEAR(algbw, 81.24, 0.005);
  EXPECT_NEAR(algbw * rs::bus_factor("all_reduce", 16), 152.32, 0.01);
}

TEST(AlgBandwidth, RejectsNegativeBytesAndTimesThatAreNotPositive) {
  EXPECT_THROW(rs::algbw_gbps(-1, 1.0), std::invalid_argument);
  EXPECT_THROW(rs::algbw_gbps(8, 0.0), std::invalid_argument);
  EXPECT_THROW(rs::algbw_gbps(8, -2.0), std::invalid_argument);
  EXPECT_THROW(rs::algbw_gbps(8, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  EXPECT_THROW(rs::algbw_gbps(8, std::numeric_limits<double>::infinity()), std::invalid_argument);
}
