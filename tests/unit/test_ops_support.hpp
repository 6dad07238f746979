#pragma once
// Helpers the host-op tests share: seeded random fills, flat copies in double and an
// element-wise comparison that reports the first mismatch.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels::test {

/// Fills the contiguous view `v` with uniform values in [lo, hi) drawn from mt19937(seed).
template <class ViewType>
void fill_uniform(const ViewType& v, unsigned seed, float lo, float hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (std::size_t i = 0; i < v.size(); ++i) v.data()[i] = dist(gen);
}

/// The elements of the contiguous view `v`, row-major, as doubles.
template <class ViewType>
std::vector<double> to_doubles(const ViewType& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}

/// Success when |actual[i] - expected[i]| <= abs_tol + rel_tol * |expected[i]| for every i;
/// otherwise names the first failing index and how many failed.
inline ::testing::AssertionResult all_near(std::span<const double> actual,
                                           std::span<const double> expected, double abs_tol,
                                           double rel_tol = 0.0) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure()
           << "sizes differ: " << actual.size() << " vs " << expected.size();
  std::size_t failures = 0;
  std::size_t first = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const bool ok = std::abs(actual[i] - expected[i]) <= abs_tol + rel_tol * std::abs(expected[i]);
    if (!ok && failures++ == 0) first = i;
  }
  if (failures == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << failures << " of " << actual.size() << " elements differ; first at " << first << ": "
         << actual[first] << " vs expected " << expected[first];
}

/// Runs `call` and succeeds when it throws ExceptionType whose what() contains `needle`.
template <class ExceptionType, class Call>
::testing::AssertionResult throws_naming(const Call& call, const std::string& needle) {
  try {
    call();
  } catch (const ExceptionType& e) {
    if (std::string(e.what()).find(needle) != std::string::npos)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "message \"" << e.what() << "\" lacks \"" << needle << "\"";
  }
  return ::testing::AssertionFailure() << "no exception thrown";
}

}  // namespace scaletune::kernels::test
