#include "metrics.hpp"

#include <stdexcept>

namespace scaletune::autotune {

double scaling_efficiency(double throughput_p, int ranks_p, double throughput_p0, int ranks_p0) {
  if (ranks_p < 1 || ranks_p0 < 1 || !(throughput_p0 > 0.0))
    throw std::invalid_argument("scaling efficiency needs rank counts >= 1 and a positive baseline");
  return throughput_p * ranks_p0 / (ranks_p * throughput_p0);
}

}  // namespace scaletune::autotune
