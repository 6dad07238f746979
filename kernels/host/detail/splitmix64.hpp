#pragma once
// SplitMix64, the counter-based hash behind the synthetic inputs and masks that must not depend
// on how work is split over ranks.

#include <cstdint>

namespace scaletune::kernels::detail {

/// SplitMix64's output function (Steele, Lea, Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): a bijective mix of 64 bits.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace scaletune::kernels::detail
