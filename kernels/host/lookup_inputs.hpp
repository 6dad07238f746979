#pragma once
// Synthetic embedding-bag inputs of a DLRM-style model: bag sizes around the pooling factor and
// row indices drawn uniform or Zipf (heavy-hitter rows, as in real click logs), in CSR form.

#include <cstdint>
#include <random>
#include <vector>

#include "harness/job/option_values.hpp"

namespace scaletune::kernels {

/// The one random engine of the input generators. std::mt19937_64 is fully specified by the
/// standard (algorithm and single-value seeding), so a seed gives the same bits everywhere.
using InputRng = std::mt19937_64;

/// Law of the row indices of one table, and the index distribution: `uniform`, or `zipf` with
/// exponent zipf_alpha (the job's [workload] index_distribution, parsed by the job parser).
using job::IndexDistribution;
using job::IndexLaw;

/// Draws row indices in [0, rows) from an IndexDistribution.
/// uniform: every row with probability 1/rows (unbiased rejection on 64-bit draws).
/// zipf: row r (0-based) with probability (r+1)^-alpha / H(rows, alpha), H the generalised
/// harmonic number: row 0 is the hottest and hotness falls with the row id (callers that want
/// hot rows spread over the table permute the ids). Exact for any number of rows, O(1) per draw,
/// no per-row table: rejection-inversion of Hörmann & Derflinger, "Rejection-inversion to generate
/// variates from monotone discrete distributions", ACM TOMACS 6(3), 1996, in the form of Apache
/// Commons RNG's RejectionInversionZipfSampler. The uniform bits are portable; Zipf draws also
/// depend on std::log/exp/log1p/expm1, so a platform whose libm rounds differently may rarely
/// move a draw that falls on an acceptance boundary.
class IndexSampler {
 public:
  /// rows >= 1; throws std::invalid_argument otherwise or for a Zipf exponent that is not > 0.
  IndexSampler(const IndexDistribution& distribution, std::int64_t rows);

  /// One row index in [0, rows).
  std::int64_t operator()(InputRng& rng) const;

 private:
  std::int64_t sample_zipf(InputRng& rng) const;
  double h(double x) const;
  double h_integral(double x) const;
  double h_integral_inverse(double x) const;

  IndexDistribution m_distribution;
  std::int64_t m_rows;
  double m_h_integral_x1 = 0.0;    ///< H(1.5) - 1
  double m_h_integral_rows = 0.0;  ///< H(rows + 0.5)
  double m_s = 0.0;                ///< squeeze bound 2 - H^-1(H(2.5) - h(2))
};

/// Law of the number of lookups per bag (sample): the job's [workload] bag_size.
using job::BagSizeLaw;

/// What to generate for one table and one batch.
struct LookupBatchSpec {
  std::int64_t batch = 1;  ///< number of bags (samples), >= 1
  double pooling = 1.0;    ///< mean lookups per bag, finite and >= 1
  BagSizeLaw bag_law = BagSizeLaw::poisson;
  IndexDistribution distribution;
  std::int64_t rows = 1;   ///< rows of the table, >= 1
  std::uint64_t seed = 1;  ///< seeds InputRng; bag sizes and indices share the stream
};

/// One batch of embedding-bag lookups in CSR form: bag b reads
/// indices[offsets[b] .. offsets[b+1]). offsets [batch + 1] with offsets[0] = 0,
/// indices [offsets[batch]] in [0, rows); host.
struct LookupBatch {
  std::vector<std::int64_t> offsets;
  std::vector<std::int64_t> indices;
};

/// Generates a LookupBatch: for each bag in turn, its size, then its indices, from one
/// InputRng seeded with spec.seed (the same spec gives the same batch). Poisson draws use
/// Knuth's product-of-uniforms method (TAOCP vol. 2, 3.4.1) in chunks of mean <= 64 (a sum of
/// independent Poissons is Poisson), so they are portable and never underflow.
/// Throws std::invalid_argument for batch < 1, rows < 1, pooling not finite or < 1, a fixed
/// law with a non-integer pooling, or a bad distribution; the message names the field.
LookupBatch generate_lookup_batch(const LookupBatchSpec& spec);

}  // namespace scaletune::kernels
