#pragma once
// Which ranks of a launch a configuration of k ranks runs on: whole hosts first, so a scaling
// sweep measures what a real job of that size would get (k = 16 on 8-GPU nodes: two full nodes,
// not 16 ranks spread over many). Pure functions of the host names; no MPI.

#include <span>
#include <string>
#include <vector>

namespace scaletune::mpi {

/// The world ranks that form a sub-communicator of `k` ranks, in sub-communicator rank order.
/// `hosts[r]` is the host name of world rank r (world size = hosts.size()); hosts are numbered
/// by first appearance, so host 0 holds world rank 0. The rule:
///  1. Host 0 always takes part (its lowest rank, world rank 0, writes the results and becomes
///     rank 0 of the sub-communicator). When k <= its rank count n0, its k lowest ranks are
///     the placement.
///  2. Otherwise host 0 is taken whole and the other r = k - n0 ranks come from the fewest
///     other hosts: with those sorted by rank count, largest first (ties: first appearance),
///     let h be the smallest count whose first h hosts hold at least r ranks; the first h - 1
///     of them are taken whole, and the r' ranks still missing come from the host, among the
///     rest, with the fewest ranks that still holds r' (ties: first appearance), so the one
///     partial host is as full as possible.
///  3. A host contributes its lowest world ranks. The order is by host (first appearance),
///     then by world rank: the local rank order on each host.
/// With equal rank counts per host this takes the first ceil(k / n) hosts, the last one partly;
/// in node-major world order (srun's block distribution) the placement is 0..k-1, and in
/// round-robin order it still packs whole hosts. The host count is the fewest of any set of
/// hosts that includes host 0 and holds k ranks.
/// Throws std::invalid_argument when `hosts` is empty or k is outside [1, hosts.size()].
std::vector<int> placement_order(std::span<const std::string> hosts, int k);

/// placement_order's world ranks sorted ascending. Throws as placement_order.
std::vector<int> placement_ranks(std::span<const std::string> hosts, int k);

}  // namespace scaletune::mpi
