#include "verification.hpp"

#include <cmath>

#include "harness/collectives/element_values.hpp"

namespace scaletune::collectives {

namespace {

// The reference of one element: its value and the sum of the magnitudes that made it (the
// scale of its rounding error).
struct Expected {
  double value = 0.0;
  double magnitude = 0.0;
};

// Reduction over every rank of element `index` of their inputs.
Expected reduced(const BenchCase& c, std::size_t index) {
  Expected e;
  for (int k = 0; k < c.ranks; ++k) {
    const double x = input_value(k, index);
    e.value += x;
    e.magnitude += std::fabs(x);
  }
  if (c.redop == core::ReduceOp::avg) {
    e.value /= c.ranks;
    if (unit_roundoff(c.type) == 0.0) e.value = std::trunc(e.value);
  }
  return e;
}

Expected exact(double value) {
  return {value, std::fabs(value)};
}

// Element j of `rank`'s result as a naive loop computes it.
Expected expected(const BenchCase& c, int rank, std::size_t j) {
  const std::size_t n = c.layout.count;
  const auto r = static_cast<std::size_t>(rank);
  switch (c.op) {
    case CollectiveOp::all_reduce:
      return reduced(c, j);
    case CollectiveOp::reduce_scatter:
      return reduced(c, r * n + j);
    case CollectiveOp::all_gather:
    case CollectiveOp::all_gatherv:
      return exact(input_value(static_cast<int>(j / n), j % n));
    case CollectiveOp::alltoall:
    case CollectiveOp::alltoallv:
      return exact(input_value(static_cast<int>(j / n), r * n + j % n));
    case CollectiveOp::broadcast:
      return exact(input_value(root_of(c.op), j));
  }
  return {};
}

bool matches(const BenchCase& c, double got, const Expected& want) {
  const double tolerance =
      2.0 * (c.ranks + 1) * unit_roundoff(c.type) * std::fmax(1.0, want.magnitude);
  return std::fabs(got - want.value) <= tolerance;  // false for NaN
}

}  // namespace

double input_value(int rank, std::size_t index) {
  const std::size_t k = 7 * static_cast<std::size_t>(rank) + 3 * (index % 11);
  return static_cast<double>(k % 11) - 5.0;
}

std::vector<std::byte> input_image(const BenchCase& c, Placement placement, int rank) {
  const std::size_t width = core::dtype_bytes(c.type);
  const bool gather_in_place =
      placement == Placement::in_place &&
      (c.op == CollectiveOp::all_gather || c.op == CollectiveOp::all_gatherv);
  const std::size_t offset = gather_in_place ? static_cast<std::size_t>(rank) * c.layout.count : 0;
  const std::size_t total = gather_in_place ? c.layout.recv_count : c.layout.send_count;
  std::vector<std::byte> image(total * width);
  for (std::size_t i = 0; i < c.layout.send_count; ++i)
    store_element(c.type, input_value(rank, i), image.data() + (offset + i) * width);
  return image;
}

ResultRegion result_region(const BenchCase& c, Placement placement, int rank) {
  if (placement == Placement::in_place && c.op == CollectiveOp::reduce_scatter)
    return {static_cast<std::size_t>(rank) * c.layout.count, c.layout.count};
  return {0, c.layout.recv_count};
}

std::int64_t count_wrong(const BenchCase& c, int rank, std::span<const std::byte> result) {
  const std::size_t width = core::dtype_bytes(c.type);
  const std::size_t elements = result.size() / width;
  std::int64_t wrong = 0;
  for (std::size_t j = 0; j < elements; ++j)
    wrong += !matches(c, load_element(c.type, result.data() + j * width), expected(c, rank, j));
  return wrong;
}

}  // namespace scaletune::collectives
