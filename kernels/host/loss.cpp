#include "loss.hpp"

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

}  // namespace scaletune::kernels
