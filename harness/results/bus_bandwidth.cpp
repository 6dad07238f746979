#include "harness/results/bus_bandwidth.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace scaletune::results {

namespace {

/// How much of the buffer each rank sends (and receives) over its links.
enum class Traffic {
  twice_share,  ///< 2(n-1)/n: a reduce-scatter, then an all-gather
  share,        ///< (n-1)/n: every rank gets the n-1 shares it does not hold
  whole,        ///< 1: the buffer crosses a link once
};

/// Known ops, spelled as normalised() leaves them.
constexpr std::array<std::pair<std::string_view, Traffic>, 11> kOps = {{
    {"allreduce", Traffic::twice_share},
    {"allgather", Traffic::share},
    {"allgatherv", Traffic::share},
    {"reducescatter", Traffic::share},
    {"alltoall", Traffic::share},
    {"alltoallv", Traffic::share},
    {"broadcast", Traffic::whole},
    {"reduce", Traffic::whole},
    {"sendrecv", Traffic::whole},
    {"p2p", Traffic::whole},
    {"osubw", Traffic::whole},
}};

/// `op` in lower case without '_' and '-' (as check_results.py compares names).
std::string normalised(std::string_view op) {
  std::string key;
  for (const char c : op)
    if (c != '_' && c != '-') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key;
}

std::optional<Traffic> traffic_of(std::string_view op) {
  const std::string key = normalised(op);
  const auto it =
      std::ranges::find(kOps, std::string_view(key), &std::pair<std::string_view, Traffic>::first);
  if (it == kOps.end()) return std::nullopt;
  return it->second;
}

}  // namespace

bool has_bus_factor(std::string_view op) {
  return traffic_of(op).has_value();
}

double bus_factor(std::string_view op, int n) {
  const auto traffic = traffic_of(op);
  if (!traffic)
    throw std::invalid_argument("bus_factor: no bus factor for op '" + std::string(op) +
                                "' (known: all_reduce, all_gather, all_gatherv, reduce_scatter, "
                                "alltoall, alltoallv, broadcast, reduce, sendrecv, p2p, osu_bw)");
  if (n < 1)
    throw std::invalid_argument("bus_factor: rank count must be >= 1, got " + std::to_string(n));
  const double ranks = n;
  switch (*traffic) {
    case Traffic::twice_share:
      return 2.0 * (ranks - 1.0) / ranks;
    case Traffic::share:
      return (ranks - 1.0) / ranks;
    case Traffic::whole:
      break;
  }
  return 1.0;
}

double algbw_gbps(std::int64_t bytes, double time_us) {
  if (bytes < 0 || !std::isfinite(time_us) || time_us <= 0.0)
    throw std::invalid_argument("algbw_gbps: needs bytes >= 0 and a positive time, got " +
                                std::to_string(bytes) + " bytes in " + std::to_string(time_us) +
                                " us");
  return static_cast<double>(bytes) / time_us * 1e-3;
}

}  // namespace scaletune::results
