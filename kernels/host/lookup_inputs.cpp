#include "kernels/host/lookup_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace scaletune::kernels {
namespace {

/// Uniform double in (0, 1] from the top 53 bits of one draw.
double uniform_open_closed(InputRng& rng) {
  return static_cast<double>((rng() >> 11) + 1) * 0x1.0p-53;
}

/// Uniform double in [0, 1) from the top 53 bits of one draw (Commons RNG nextDouble).
double uniform_closed_open(InputRng& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

/// Unbiased uniform integer in [0, n), n >= 1: draws below 2^64 mod n are rejected, so the
/// accepted range is a whole number of copies of [0, n).
std::uint64_t uniform_below(InputRng& rng, std::uint64_t n) {
  const std::uint64_t threshold = (0 - n) % n;
  for (;;) {
    const std::uint64_t x = rng();
    if (x >= threshold) return x % n;
  }
}

/// Poisson(mean) by Knuth's product of uniforms, for 0 <= mean <= 64 (exp(-mean) stays normal).
std::int64_t poisson_small(InputRng& rng, double mean) {
  const double limit = std::exp(-mean);
  std::int64_t k = 0;
  for (double product = uniform_open_closed(rng); product > limit; ++k) {
    product *= uniform_open_closed(rng);
  }
  return k;
}

/// Poisson(mean), mean >= 0: a sum of independent Poisson draws of means <= 64.
std::int64_t poisson(InputRng& rng, double mean) {
  constexpr double chunk = 64.0;
  std::int64_t total = 0;
  for (double left = mean; left > 0.0; left -= chunk)
    total += poisson_small(rng, std::min(left, chunk));
  return total;
}

/// log1p(x) / x, continuous at 0 (Commons RNG helper1).
double log1p_over_x(double x) {
  if (std::abs(x) > 1e-8) return std::log1p(x) / x;
  return 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

/// expm1(x) / x, continuous at 0 (Commons RNG helper2).
double expm1_over_x(double x) {
  if (std::abs(x) > 1e-8) return std::expm1(x) / x;
  return 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
}

void check_rows(std::int64_t rows) {
  if (rows < 1) {
    throw std::invalid_argument("lookup inputs: rows = " + std::to_string(rows) +
                                ", expected at least 1");
  }
}

std::int64_t bag_size(InputRng& rng, const LookupBatchSpec& spec) {
  if (spec.bag_law == BagSizeLaw::fixed) return static_cast<std::int64_t>(spec.pooling);
  return 1 + poisson(rng, spec.pooling - 1.0);
}

void check_spec(const LookupBatchSpec& spec) {
  if (spec.batch < 1) {
    throw std::invalid_argument("lookup inputs: batch = " + std::to_string(spec.batch) +
                                ", expected at least 1 bag");
  }
  if (!std::isfinite(spec.pooling) || spec.pooling < 1.0) {
    throw std::invalid_argument("lookup inputs: pooling = " + std::to_string(spec.pooling) +
                                ", expected a finite mean of at least 1 lookup per bag");
  }
  if (spec.bag_law == BagSizeLaw::fixed && spec.pooling != std::floor(spec.pooling)) {
    throw std::invalid_argument("lookup inputs: pooling = " + std::to_string(spec.pooling) +
                                " with fixed bag sizes, expected an integer");
  }
}

}  // namespace

IndexSampler::IndexSampler(const IndexDistribution& distribution, std::int64_t rows)
    : m_distribution(distribution), m_rows(rows) {
  check_rows(rows);
  if (distribution.law != IndexLaw::zipf) return;
  if (!std::isfinite(distribution.zipf_alpha) || distribution.zipf_alpha <= 0.0) {
    throw std::invalid_argument(
        "index distribution: zipf alpha = " + std::to_string(distribution.zipf_alpha) +
        ", expected finite and > 0");
  }
  m_h_integral_x1 = h_integral(1.5) - 1.0;
  m_h_integral_rows = h_integral(static_cast<double>(rows) + 0.5);
  m_s = 2.0 - h_integral_inverse(h_integral(2.5) - h(2.0));
}

std::int64_t IndexSampler::operator()(InputRng& rng) const {
  if (m_distribution.law == IndexLaw::zipf) return sample_zipf(rng);
  return static_cast<std::int64_t>(uniform_below(rng, static_cast<std::uint64_t>(m_rows)));
}

// Hörmann & Derflinger (1996), as in Commons RNG RejectionInversionZipfSampler.sample(): invert
// the integral of the hat h over (1/2, rows + 1/2], round to the nearest rank k, and accept when
// k lies inside the squeeze or u falls under the integral of the hat over (k - 1/2, k + 1/2]
// minus h(k).
std::int64_t IndexSampler::sample_zipf(InputRng& rng) const {
  const double rows = static_cast<double>(m_rows);
  for (;;) {
    const double u =
        m_h_integral_rows + uniform_closed_open(rng) * (m_h_integral_x1 - m_h_integral_rows);
    const double x = h_integral_inverse(u);
    const double k = std::clamp(std::floor(x + 0.5), 1.0, rows);
    if (k - x <= m_s || u >= h_integral(k + 0.5) - h(k)) return static_cast<std::int64_t>(k) - 1;
  }
}

// h(x) = x^-alpha, the hat function.
double IndexSampler::h(double x) const {
  return std::exp(-m_distribution.zipf_alpha * std::log(x));
}

// H(x) = (x^(1-alpha) - 1) / (1 - alpha), or log(x) for alpha = 1: an antiderivative of h.
double IndexSampler::h_integral(double x) const {
  const double log_x = std::log(x);
  return expm1_over_x((1.0 - m_distribution.zipf_alpha) * log_x) * log_x;
}

// The inverse of H; the clamp keeps the logarithm's argument >= 0 against rounding.
double IndexSampler::h_integral_inverse(double x) const {
  const double t = std::max(x * (1.0 - m_distribution.zipf_alpha), -1.0);
  return std::exp(log1p_over_x(t) * x);
}

LookupBatch generate_lookup_batch(const LookupBatchSpec& spec) {
  check_spec(spec);
  const IndexSampler sampler(spec.distribution, spec.rows);
  InputRng rng(spec.seed);
  LookupBatch batch;
  batch.offsets.reserve(static_cast<std::size_t>(spec.batch) + 1);
  batch.offsets.push_back(0);
  batch.indices.reserve(static_cast<std::size_t>(std::ceil(spec.pooling * spec.batch)));
  for (std::int64_t b = 0; b < spec.batch; ++b) {
    const std::int64_t size = bag_size(rng, spec);
    for (std::int64_t i = 0; i < size; ++i) batch.indices.push_back(sampler(rng));
    batch.offsets.push_back(static_cast<std::int64_t>(batch.indices.size()));
  }
  return batch;
}

}  // namespace scaletune::kernels
