#pragma once
// Inputs of the collective benchmark and the check of its results against a naive reference
// (each rank computes every rank's input from a formula, as nccl-tests does).

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "harness/collectives/bench_case.hpp"

namespace scaletune::collectives {

/// Element `index` of rank `rank`'s input: ((7 rank + 3 index) mod 11) - 5, an integer in
/// [-5, 5], exact in every element type.
double input_value(int rank, std::size_t index);

/// The bytes to upload to the start of the buffer the op reads on `rank`: out of place the send
/// buffer (layout.send_count elements of input); in place the one buffer, which for
/// all_gather(v) holds the rank's input at block `rank` of layout.recv_count elements (zeros
/// elsewhere). Every rank uploads its own input; a broadcast must deliver the root's.
std::vector<std::byte> input_image(const BenchCase& c, Placement placement, int rank);

/// Where the result lies in the receive buffer, elements: {offset, count}. In-place
/// reduce_scatter writes block `rank`; everything else starts at 0 with layout.recv_count.
struct ResultRegion {
  std::size_t offset = 0;
  std::size_t count = 0;
};
ResultRegion result_region(const BenchCase& c, Placement placement, int rank);

/// Elements of `result` (ResultRegion.count elements of c.type) that differ from the naive
/// reference for `rank`: sums and averages over every rank's input_value, gathers and
/// exchanges of them, rank 0's for broadcast. Floating types may differ by the rounding of
/// the reduction order, at most 2 (ranks + 1) u max(1, sum of |inputs|) (u the unit roundoff);
/// integers must match exactly (avg truncates toward zero). NaN is wrong.
std::int64_t count_wrong(const BenchCase& c, int rank, std::span<const std::byte> result);

}  // namespace scaletune::collectives
