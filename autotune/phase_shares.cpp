#include "autotune/phase_shares.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace scaletune::autotune {

namespace {

constexpr std::array<std::string_view, 6> kCollectivePrefixes = {
    "allreduce", "alltoall", "allgather", "reduce_scatter", "broadcast", "sendrecv"};

void check_shape(const results::ConfigResult& c, std::string_view file_path) {
  const std::size_t want =
      static_cast<std::size_t>(c.ranks) * c.iterations() * c.phase_names.size();
  if (c.ranks < 1 || c.rank_phase_time.size() != want)
    throw std::invalid_argument(
        std::string(file_path) + ": /configs/" + c.id + "/rank_phase_time holds " +
        std::to_string(c.rank_phase_time.size()) + " values, expected [ranks " +
        std::to_string(c.ranks) + ", iterations " + std::to_string(c.iterations()) + ", phases " +
        std::to_string(c.phase_names.size()) + "] = " + std::to_string(want));
  for (double t : c.step_time)
    if (!(t > 0.0))
      throw std::invalid_argument(std::string(file_path) + ": /configs/" + c.id +
                                  "/step_time holds " + std::to_string(t) +
                                  " s, expected positive seconds");
}

using ClassTimes = std::array<double, 3>;  ///< indexed by PhaseClass

std::size_t index_of(PhaseClass cls) {
  return static_cast<std::size_t>(cls);
}

/// Sum over iterations i of ( mean over ranks of class-c time in i ) / T[i], per class c.
ClassTimes summed_fractions(const results::ConfigResult& c, const std::vector<PhaseClass>& cls) {
  ClassTimes sum{};
  for (std::size_t i = 0; i < c.iterations(); ++i) {
    ClassTimes t_s{};
    for (std::size_t r = 0; r < static_cast<std::size_t>(c.ranks); ++r)
      for (std::size_t p = 0; p < cls.size(); ++p) t_s[index_of(cls[p])] += c.phase_time(r, i, p);
    for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += t_s[k] / (c.ranks * c.step_time[i]);
  }
  return sum;
}

}  // namespace

PhaseClass classify_phase(std::string_view phase_name) {
  if (phase_name.starts_with("wait")) return PhaseClass::wait;
  for (std::string_view prefix : kCollectivePrefixes)
    if (phase_name.starts_with(prefix)) return PhaseClass::communication;
  return PhaseClass::compute;
}

PhaseShares phase_shares(const results::ConfigResult& config, std::string_view file_path) {
  if (config.iterations() == 0 || config.phase_names.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan, nan, nan};
  }
  check_shape(config, file_path);
  std::vector<PhaseClass> classes;
  for (const std::string& name : config.phase_names) classes.push_back(classify_phase(name));
  const ClassTimes sum = summed_fractions(config, classes);
  const auto n = static_cast<double>(config.iterations());
  PhaseShares s;
  s.compute = sum[index_of(PhaseClass::compute)] / n;
  s.communication = sum[index_of(PhaseClass::communication)] / n;
  s.wait = sum[index_of(PhaseClass::wait)] / n;
  s.other = 1.0 - s.compute - s.communication - s.wait;
  return s;
}

}  // namespace scaletune::autotune
