#include "loss.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"

namespace scaletune::kernels {

namespace {

constexpr const char* kOp = "softmax_cross_entropy";

void require_labels_in_range(const Labels& labels, std::size_t classes) {
  for (std::size_t i = 0; i < labels.extent(0); ++i)
    if (labels(i) < 0 || static_cast<std::size_t>(labels(i)) >= classes)
      throw std::invalid_argument(std::string(kOp) + ": labels(" + std::to_string(i) + ") is " +
                                  std::to_string(labels(i)) + ", expected a class in [0, " +
                                  std::to_string(classes) + ")");
}

constexpr const char* kBceOp = "binary_cross_entropy_with_logits";

void require_binary_labels(const Vector& labels) {
  for (std::size_t i = 0; i < labels.extent(0); ++i)
    if (labels(i) != 0.0f && labels(i) != 1.0f)
      throw std::invalid_argument(std::string(kBceOp) + ": labels(" + std::to_string(i) + ") is " +
                                  std::to_string(labels(i)) + ", expected 0 or 1");
}

}  // namespace

double softmax_cross_entropy(const Tensor2& logits, const Labels& labels, float scale,
                             const Tensor2& dlogits) {
  const std::size_t n = logits.extent(0);
  const std::size_t classes = logits.extent(1);
  detail::require_shape(kOp, "labels", labels, {n});
  detail::require_shape(kOp, "dlogits", dlogits, {n, classes});
  if (n > 0 && classes == 0)
    throw std::invalid_argument(std::string(kOp) + ": logits is " +
                                detail::shape_string(logits, 2) + ", expected K >= 1 classes");
  require_labels_in_range(labels, classes);

  double total = 0.0;
  Kokkos::parallel_reduce(
      "softmax_cross_entropy", detail::host_range(n),
      [=](std::size_t i, double& sum) {
        // log softmax[k] = l[k] - m - log(sum_j exp(l[j] - m)), m = max_j l[j].
        float m = logits(i, 0);
        for (std::size_t k = 1; k < classes; ++k) m = logits(i, k) > m ? logits(i, k) : m;
        double z = 0.0;
        for (std::size_t k = 0; k < classes; ++k) z += std::exp(double{logits(i, k)} - m);
        const auto label = static_cast<std::size_t>(labels(i));
        sum += (std::log(z) + m - logits(i, label)) * scale;
        for (std::size_t k = 0; k < classes; ++k) {
          const double p = std::exp(double{logits(i, k)} - m) / z;
          dlogits(i, k) = static_cast<float>((p - (k == label ? 1.0 : 0.0)) * scale);
        }
      },
      total);
  return total;
}

double binary_cross_entropy_with_logits(const Tensor2& logits, const Vector& labels, float scale,
                                        const Tensor2& dlogits) {
  const std::size_t n = logits.extent(0);
  detail::require_shape(kBceOp, "logits", logits, {n, 1});
  detail::require_shape(kBceOp, "labels", labels, {n});
  detail::require_shape(kBceOp, "dlogits", dlogits, {n, 1});
  require_binary_labels(labels);

  double total = 0.0;
  Kokkos::parallel_reduce(
      kBceOp, detail::host_range(n),
      [=](std::size_t i, double& sum) {
        const double x = logits(i, 0), y = labels(i);
        // -y log s(x) - (1 - y) log(1 - s(x)) = max(x, 0) - x y + log(1 + e^-|x|). With
        // t = e^-|x| / (1 + e^-|x|) = s(-|x|): s(x) - y = (1 - y) - t for x >= 0, t - y
        // otherwise (no 1 - t, which would round a gradient of e^-100 to 0).
        const double e = std::exp(-std::abs(x));
        sum += (std::max(x, 0.0) - x * y + std::log1p(e)) * scale;
        const double t = e / (1.0 + e);
        dlogits(i, 0) = static_cast<float>((x >= 0.0 ? (1.0 - y) - t : t - y) * scale);
      },
      total);
  return total;
}

}  // namespace scaletune::kernels
