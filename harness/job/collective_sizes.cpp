#include "harness/job/collective_sizes.hpp"

#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <string>

#include "harness/job/detail/text.hpp"

namespace scaletune::job {
namespace {

// How far, in units of the product's last place, a product may lie below or above an integer
// and still count as that integer: a few roundings (the factor's and the product's) at most.
constexpr double kIntegerUlps = 4.0;

void check_size(std::int64_t size_bytes, const char* what) {
  if (size_bytes < 1 || size_bytes > kMaxCollectiveBytes)
    throw std::invalid_argument(std::string(what) + " " + std::to_string(size_bytes) +
                                " is outside [1, 2^40] bytes");
}

void check_factor(double step_factor) {
  if (!(step_factor > 1.0 && step_factor <= kMaxStepFactor))
    throw std::invalid_argument("step factor " + detail::format_number(step_factor) +
                                " is outside (1, 1024]");
}

}  // namespace

std::int64_t next_collective_size(std::int64_t size_bytes, double step_factor) {
  check_size(size_bytes, "size");
  check_factor(step_factor);
  // size <= 2^40 and factor <= 2^10: the product is below 2^51, exact as an integer in a double.
  const double product = static_cast<double>(size_bytes) * step_factor;
  const double nearest = std::round(product);
  const bool integer = std::abs(product - nearest) <= kIntegerUlps * DBL_EPSILON * product;
  const auto next = static_cast<std::int64_t>(integer ? nearest : std::floor(product));
  return next > size_bytes ? next : size_bytes + 1;
}

std::vector<std::int64_t> collective_sizes(const CollectivesOptions& options) {
  check_size(options.min_bytes, "min_bytes");
  check_size(options.max_bytes, "max_bytes");
  if (options.max_bytes < options.min_bytes)
    throw std::invalid_argument("max_bytes " + std::to_string(options.max_bytes) +
                                " is below min_bytes " + std::to_string(options.min_bytes));
  check_factor(options.step_factor);
  std::vector<std::int64_t> sizes;
  for (std::int64_t size = options.min_bytes; size <= options.max_bytes;
       size = next_collective_size(size, options.step_factor)) {
    if (sizes.size() == kMaxCollectiveSizes)
      throw std::length_error("more than " + std::to_string(kMaxCollectiveSizes) + " sizes from " +
                              std::to_string(options.min_bytes) + " to " +
                              std::to_string(options.max_bytes) + " bytes");
    sizes.push_back(size);
  }
  return sizes;
}

}  // namespace scaletune::job
