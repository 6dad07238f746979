// Placement of sub-communicators on simulated host lists (index = world rank): whole hosts
// first, host 0 always in, the partial host as full as possible; expected answers worked out by
// hand from the rule in placement.hpp, and a brute-force check of the fewest hosts.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/mpi/placement.hpp"

namespace scaletune::mpi {
namespace {

using Ranks = std::vector<int>;

// Node-major order (srun's block distribution): host h holds ranks sum(sizes[<h]) onwards.
std::vector<std::string> node_major(const std::vector<int>& sizes) {
  std::vector<std::string> hosts;
  for (std::size_t h = 0; h < sizes.size(); ++h)
    hosts.insert(hosts.end(), static_cast<std::size_t>(sizes[h]), "node" + std::to_string(h));
  return hosts;
}

// Round-robin order (mpirun --map-by node): ranks dealt to the hosts in turn, a full host
// skipped.
std::vector<std::string> round_robin(std::vector<int> sizes) {
  std::vector<std::string> hosts;
  for (bool dealt = true; dealt;) {
    dealt = false;
    for (std::size_t h = 0; h < sizes.size(); ++h) {
      if (sizes[h] == 0) continue;
      hosts.push_back("node" + std::to_string(h));
      --sizes[h];
      dealt = true;
    }
  }
  return hosts;
}

Ranks first(int k) {
  Ranks r(static_cast<std::size_t>(k));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

TEST(Placement, NodeMajorFourHostsOfEightTakesTheFirstRanks) {
  const auto hosts = node_major({8, 8, 8, 8});
  for (const int k : {1, 4, 8, 12, 16, 32}) {
    EXPECT_EQ(placement_ranks(hosts, k), first(k)) << "k " << k;
    EXPECT_EQ(placement_order(hosts, k), first(k)) << "k " << k;
  }
}

TEST(Placement, RoundRobinOverTwoHostsPacksWholeHosts) {
  const auto hosts = round_robin({4, 4});  // node0: 0 2 4 6, node1: 1 3 5 7
  EXPECT_EQ(placement_ranks(hosts, 1), (Ranks{0}));
  EXPECT_EQ(placement_ranks(hosts, 2), (Ranks{0, 2}));
  EXPECT_EQ(placement_ranks(hosts, 4), (Ranks{0, 2, 4, 6}));
  EXPECT_EQ(placement_ranks(hosts, 6), (Ranks{0, 1, 2, 3, 4, 6}));
  EXPECT_EQ(placement_order(hosts, 6), (Ranks{0, 2, 4, 6, 1, 3}));
  EXPECT_EQ(placement_order(hosts, 8), (Ranks{0, 2, 4, 6, 1, 3, 5, 7}));
}

TEST(Placement, RoundRobinOverFourHostsPacksWholeHosts) {
  const auto hosts = round_robin({2, 2, 2, 2});  // node0: 0 4, node1: 1 5, node2: 2 6, node3: 3 7
  EXPECT_EQ(placement_ranks(hosts, 2), (Ranks{0, 4}));
  EXPECT_EQ(placement_order(hosts, 3), (Ranks{0, 4, 1}));
  EXPECT_EQ(placement_order(hosts, 4), (Ranks{0, 4, 1, 5}));
  EXPECT_EQ(placement_order(hosts, 5), (Ranks{0, 4, 1, 5, 2}));
  EXPECT_EQ(placement_ranks(hosts, 5), (Ranks{0, 1, 2, 4, 5}));
  EXPECT_EQ(placement_ranks(hosts, 6), (Ranks{0, 1, 2, 4, 5, 6}));
}

TEST(Placement, UnequalHostsFillTheFullestPartialHost) {
  // node0: 0-3, node1: 4-5, node2: 6-13, node3: 14-16.
  const auto hosts = node_major({4, 2, 8, 3});
  EXPECT_EQ(placement_ranks(hosts, 3), (Ranks{0, 1, 2}));
  EXPECT_EQ(placement_ranks(hosts, 6), (Ranks{0, 1, 2, 3, 4, 5}));        // node1 holds exactly 2
  EXPECT_EQ(placement_ranks(hosts, 7), (Ranks{0, 1, 2, 3, 14, 15, 16}));  // node3 holds 3
  EXPECT_EQ(placement_ranks(hosts, 12), (Ranks{0, 1, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13}));
  // 9 beyond node0: node2 whole, then 1 rank from node1 (2 ranks) rather than node3 (3).
  EXPECT_EQ(placement_ranks(hosts, 13), (Ranks{0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13}));
  EXPECT_EQ(placement_ranks(hosts, 17), first(17));
}

TEST(Placement, UnequalInterleavedHostsOrderByHostThenRank) {
  const std::vector<std::string> hosts{"x", "y", "y", "z", "x", "y", "z", "y"};
  // x: 0 4, y: 1 2 5 7, z: 3 6.
  EXPECT_EQ(placement_order(hosts, 3), (Ranks{0, 4, 3}));
  EXPECT_EQ(placement_order(hosts, 4), (Ranks{0, 4, 3, 6}));
  EXPECT_EQ(placement_order(hosts, 5), (Ranks{0, 4, 1, 2, 5}));
  EXPECT_EQ(placement_order(hosts, 7), (Ranks{0, 4, 1, 2, 5, 7, 3}));
  EXPECT_EQ(placement_ranks(hosts, 7), (Ranks{0, 1, 2, 3, 4, 5, 7}));
}

TEST(Placement, BadInputThrows) {
  const auto hosts = node_major({2, 2});
  EXPECT_THROW(placement_ranks({}, 1), std::invalid_argument);
  EXPECT_THROW(placement_ranks(hosts, 0), std::invalid_argument);
  try {
    placement_order(hosts, 5);
    FAIL() << "k 5 of 4 ranks accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("expected 1 to 4"), std::string::npos) << e.what();
  }
}

// Brute force: the fewest hosts of any set that includes host 0 and holds k ranks.
int fewest_hosts(const std::vector<int>& sizes, int k) {
  int best = static_cast<int>(sizes.size());
  for (unsigned set = 1; set < (1u << sizes.size()); set += 2) {  // odd: host 0 in
    int held = 0;
    for (std::size_t h = 0; h < sizes.size(); ++h) held += ((set >> h) & 1u) ? sizes[h] : 0;
    if (held >= k) best = std::min(best, std::popcount(set));
  }
  return best;
}

// Checks one placement against the rule's invariants and the brute-force host count.
void check_placement(const std::vector<std::string>& hosts, const std::vector<int>& sizes, int k) {
  const Ranks order = placement_order(hosts, k);
  ASSERT_EQ(order.size(), static_cast<std::size_t>(k));
  ASSERT_EQ(order.front(), 0);
  std::map<std::string, int> taken;
  for (const int r : order) ++taken[hosts[static_cast<std::size_t>(r)]];
  EXPECT_EQ(static_cast<int>(taken.size()), fewest_hosts(sizes, k));
  int partial = 0;
  for (std::size_t h = 0; h < sizes.size(); ++h) {
    const int t = taken["node" + std::to_string(h)];
    partial += t > 0 && t < sizes[h];
  }
  EXPECT_LE(partial, 1);
  // Each host gives its lowest ranks, hosts in order of first appearance: the expected order.
  Ranks expected;
  std::set<std::string> seen;
  for (const std::string& host : hosts) {
    if (!seen.insert(host).second) continue;
    int left = taken[host];
    for (std::size_t r = 0; r < hosts.size() && left > 0; ++r) {
      if (hosts[r] != host) continue;
      expected.push_back(static_cast<int>(r));
      --left;
    }
  }
  EXPECT_EQ(order, expected);
  Ranks sorted = order;
  std::ranges::sort(sorted);
  EXPECT_EQ(placement_ranks(hosts, k), sorted);
}

TEST(Placement, FewestHostsForEveryKOnSmallCases) {
  // Every host-size list of up to 4 hosts of 1 to 4 ranks, node-major and round-robin.
  for (int n = 1; n <= 4; ++n) {
    std::vector<int> sizes(static_cast<std::size_t>(n), 1);
    for (bool more = true; more;) {
      const int world = std::accumulate(sizes.begin(), sizes.end(), 0);
      for (int k = 1; k <= world; ++k) {
        SCOPED_TRACE("sizes " + ::testing::PrintToString(sizes) + ", k " + std::to_string(k));
        check_placement(node_major(sizes), sizes, k);
        check_placement(round_robin(sizes), sizes, k);
      }
      std::size_t h = 0;  // next size list, like an odometer
      while (h < sizes.size() && sizes[h] == 4) sizes[h++] = 1;
      more = h < sizes.size();
      if (more) ++sizes[h];
    }
  }
}

}  // namespace
}  // namespace scaletune::mpi
