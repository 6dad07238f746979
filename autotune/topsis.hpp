#pragma once
// TOPSIS: rank alternatives (clusters, configurations) by a weighted multi-criteria score.

#include <cstddef>
#include <vector>

namespace scaletune::autotune {

/// One criterion (one column of the decision matrix).
struct Criterion {
  double weight = 1.0;  ///< relative importance, >= 0; weights are normalised to sum 1
  bool benefit = true;  ///< true: larger is better (throughput); false: a cost (time, money)
};

/// TOPSIS relative closeness of each alternative to the ideal solution
/// (Hwang & Yoon, "Multiple Attribute Decision Making", Springer 1981, ch. 3):
///   r_ij = x_ij / sqrt(sum_k x_kj^2)                    vector normalisation per criterion j
///   v_ij = w_j r_ij,  w_j = weight_j / sum_k weight_k  (equal weights when all are equal)
///   A+_j = max_i v_ij for a benefit, min_i v_ij for a cost; A-_j the opposite
///   S+_i = ||v_i - A+||_2,  S-_i = ||v_i - A-||_2,  C_i = S-_i / (S+_i + S-_i) in [0, 1]
/// When S+_i + S-_i = 0 (every weighted criterion is constant over the alternatives) C_i = 0.5:
/// the alternative is both ideal and anti-ideal, so all alternatives tie.
/// matrix: [alternatives][criteria], any consistent units per column; criteria: [criteria].
/// Returns [alternatives] closeness values (dimensionless).
/// Throws std::invalid_argument on an empty matrix, ragged rows, a criteria count that differs
/// from the column count, a negative, non-finite or all-zero weight set, a non-finite value,
/// or a column of all zeros (vector normalisation divides by its norm).
std::vector<double> topsis_scores(const std::vector<std::vector<double>>& matrix,
                                  const std::vector<Criterion>& criteria);

/// Alternatives ordered best first: indices into matrix by decreasing topsis_scores, ties to the
/// lower index. Throws as topsis_scores.
std::vector<std::size_t> topsis_order(const std::vector<std::vector<double>>& matrix,
                                      const std::vector<Criterion>& criteria);

}  // namespace scaletune::autotune
