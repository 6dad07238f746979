#include "placement.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace scaletune::mpi {

namespace {

void check_placement(std::span<const std::string> hosts, int k) {
  if (hosts.empty())
    throw std::invalid_argument("placement: the host list is empty; give one host name per rank");
  if (k < 1 || static_cast<std::size_t>(k) > hosts.size())
    throw std::invalid_argument("placement: a sub-communicator of " + std::to_string(k) +
                                " ranks; expected 1 to " + std::to_string(hosts.size()) +
                                " (the world size)");
}

// The world ranks of each host, ascending; hosts in order of first appearance.
std::vector<std::vector<int>> ranks_by_host(std::span<const std::string> hosts) {
  std::vector<std::vector<int>> groups;
  std::map<std::string_view, std::size_t> index;
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    const auto [it, added] = index.try_emplace(hosts[r], groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(static_cast<int>(r));
  }
  return groups;
}

// How many ranks each host gives (placement_order's rule, steps 1 and 2) from its rank count.
std::vector<std::size_t> ranks_taken(const std::vector<std::size_t>& sizes, std::size_t k) {
  std::vector<std::size_t> taken(sizes.size(), 0);
  taken[0] = std::min(k, sizes[0]);
  std::size_t left = k - taken[0];
  if (left == 0) return taken;
  std::vector<std::size_t> others(sizes.size() - 1);
  std::iota(others.begin(), others.end(), std::size_t{1});
  std::ranges::stable_sort(others, std::greater{}, [&](std::size_t h) { return sizes[h]; });
  std::size_t whole = 0;  // the largest hosts, taken whole, while they leave ranks missing
  for (; sizes[others[whole]] < left; ++whole) {
    taken[others[whole]] = sizes[others[whole]];
    left -= sizes[others[whole]];
  }
  std::size_t last = others[whole];  // holds `left`: the loop stopped there
  for (std::size_t i = whole + 1; i < others.size(); ++i) {
    const std::size_t h = others[i];
    if (sizes[h] >= left && std::pair(sizes[h], h) < std::pair(sizes[last], last)) last = h;
  }
  taken[last] = left;
  return taken;
}

}  // namespace

std::vector<int> placement_order(std::span<const std::string> hosts, int k) {
  check_placement(hosts, k);
  const std::vector<std::vector<int>> groups = ranks_by_host(hosts);
  std::vector<std::size_t> sizes;
  for (const auto& g : groups) sizes.push_back(g.size());
  const std::vector<std::size_t> taken = ranks_taken(sizes, static_cast<std::size_t>(k));
  std::vector<int> order;
  for (std::size_t h = 0; h < groups.size(); ++h)
    order.insert(order.end(), groups[h].begin(),
                 groups[h].begin() + static_cast<std::ptrdiff_t>(taken[h]));
  return order;
}

std::vector<int> placement_ranks(std::span<const std::string> hosts, int k) {
  std::vector<int> ranks = placement_order(hosts, k);
  std::ranges::sort(ranks);
  return ranks;
}

}  // namespace scaletune::mpi
