#include "mlp.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/host/activation.hpp"
#include "kernels/host/detail/op_checks.hpp"
#include "kernels/host/linear.hpp"

namespace scaletune::kernels {

namespace {

std::string widths_string(std::span<const int> widths) {
  std::string text = "[";
  for (std::size_t i = 0; i < widths.size(); ++i)
    text += (i > 0 ? ", " : "") + std::to_string(widths[i]);
  return text + "]";
}

/// Throws std::invalid_argument unless widths has >= 2 entries, each >= 1.
void require_widths(const char* who, std::span<const int> widths) {
  const bool ok = widths.size() >= 2 && std::ranges::all_of(widths, [](int w) { return w >= 1; });
  if (!ok)
    throw std::invalid_argument(std::string(who) + ": widths " + widths_string(widths) +
                                ", expected at least 2 layer widths, each >= 1");
}

/// Throws std::invalid_argument unless `buffer` holds exactly mlp_parameter_count(widths) floats.
void require_parameter_buffer(const char* who, const char* name, std::span<const int> widths,
                              std::span<float> buffer) {
  const std::int64_t want = mlp_parameter_count(widths);
  if (static_cast<std::int64_t>(buffer.size()) != want)
    throw std::invalid_argument(std::string(who) + ": " + name + " has " +
                                std::to_string(buffer.size()) + " floats, expected " +
                                std::to_string(want) + " (mlp_parameter_count of widths " +
                                widths_string(widths) + ")");
}

void require_max_batch(int max_batch) {
  if (max_batch < 1)
    throw std::invalid_argument("Mlp: max_batch is " + std::to_string(max_batch) +
                                ", expected >= 1");
}

/// Floats of the widest layer output: the size of one backward gradient row.
std::size_t widest_output(std::span<const int> widths) {
  return static_cast<std::size_t>(*std::ranges::max_element(widths.subspan(1)));
}

/// The first n rows of `buffer` (still contiguous: LayoutRight).
Tensor2 first_rows(const Tensor2& buffer, std::size_t n) {
  return Kokkos::subview(buffer, std::make_pair(std::size_t{0}, n), Kokkos::ALL);
}

/// `buffer`'s first n * cols floats seen as a contiguous [n, cols] matrix.
Tensor2 as_matrix(const Vector& buffer, std::size_t n, int cols) {
  return Tensor2(buffer.data(), n, static_cast<std::size_t>(cols));
}

}  // namespace

std::int64_t mlp_parameter_count(std::span<const int> widths) {
  require_widths("mlp_parameter_count", widths);
  std::int64_t count = 0;
  for (std::size_t i = 0; i + 1 < widths.size(); ++i)
    count += std::int64_t{widths[i + 1]} * widths[i] + widths[i + 1];
  return count;
}

double mlp_macs_per_sample(std::span<const int> widths) {
  require_widths("mlp_macs_per_sample", widths);
  double macs = 0.0;
  for (std::size_t i = 0; i + 1 < widths.size(); ++i)
    macs += static_cast<double>(widths[i + 1]) * widths[i];
  return macs;
}

void init_mlp_parameters(std::span<const int> widths, std::uint64_t seed, std::span<float> params) {
  require_widths("init_mlp_parameters", widths);
  require_parameter_buffer("init_mlp_parameters", "params", widths, params);
  std::mt19937_64 gen(seed);
  float* next = params.data();
  const auto fill = [&](std::size_t count, double stddev) {
    std::normal_distribution<float> dist(0.0f, static_cast<float>(stddev));
    for (std::size_t k = 0; k < count; ++k) *next++ = dist(gen);
  };
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    const double in = widths[i], out = widths[i + 1];
    fill(static_cast<std::size_t>(in * out), std::sqrt(2.0 / (out + in)));
    fill(static_cast<std::size_t>(out), std::sqrt(1.0 / out));
  }
}

Mlp::Mlp(std::vector<int> widths, bool relu_last, std::span<float> params, std::span<float> grads,
         int max_batch)
    : m_widths(std::move(widths)), m_relu_last(relu_last), m_max_batch(max_batch) {
  require_widths("Mlp", m_widths);
  require_parameter_buffer("Mlp", "params", m_widths, params);
  require_parameter_buffer("Mlp", "grads", m_widths, grads);
  require_max_batch(max_batch);
  const auto rows = static_cast<std::size_t>(max_batch);
  std::size_t offset = 0;
  for (std::size_t i = 0; i + 1 < m_widths.size(); ++i) {
    const auto in = static_cast<std::size_t>(m_widths[i]);
    const auto out = static_cast<std::size_t>(m_widths[i + 1]);
    m_weights.emplace_back(params.data() + offset, out, in);
    m_weight_grads.emplace_back(grads.data() + offset, out, in);
    offset += out * in;
    m_biases.emplace_back(params.data() + offset, out);
    m_bias_grads.emplace_back(grads.data() + offset, out);
    offset += out;
    m_outputs.emplace_back("mlp_output", rows, out);
  }
  const std::size_t grad_floats = rows * widest_output(m_widths);
  m_grad_a = Vector("mlp_grad_a", grad_floats);
  m_grad_b = Vector("mlp_grad_b", grad_floats);
}

bool Mlp::has_relu(std::size_t layer) const {
  return m_relu_last || layer + 2 < m_widths.size();
}

const Vector& Mlp::other_grad_buffer(const Tensor2& grad) const {
  return grad.data() == m_grad_a.data() ? m_grad_b : m_grad_a;
}

Tensor2 Mlp::forward(const Tensor2& x) {
  const std::size_t n = x.extent(0);
  if (x.extent(1) != static_cast<std::size_t>(m_widths[0]) ||
      n > static_cast<std::size_t>(m_max_batch))
    throw std::invalid_argument("Mlp::forward: x is " + detail::shape_string(x, 2) +
                                ", expected [N, " + std::to_string(m_widths[0]) +
                                "] with N <= max_batch " + std::to_string(m_max_batch));
  Tensor2 in = x;
  for (std::size_t i = 0; i < m_weights.size(); ++i) {
    const Tensor2 y = first_rows(m_outputs[i], n);
    linear_forward(in, m_weights[i], m_biases[i], y);
    if (has_relu(i)) relu_forward(y, y);
    in = y;
  }
  m_input = x;
  return in;
}

void Mlp::backward(const Tensor2& dy, const Tensor2& dx) {
  constexpr const char* kOp = "Mlp::backward";
  if (m_input.extent(1) == 0) throw std::invalid_argument("Mlp::backward: called before forward");
  const std::size_t n = m_input.extent(0);
  detail::require_shape(kOp, "dy", dy, {n, static_cast<std::size_t>(m_widths.back())});
  if (dx.data() != nullptr) {
    detail::require_shape(kOp, "dx", dx, {n, static_cast<std::size_t>(m_widths[0])});
    detail::require_distinct(kOp, "x", m_input, "dx", dx);
    detail::require_distinct(kOp, "dy", dy, "dx", dx);
  }
  // grad: d loss / d (output of layer i); layer i's input gradient goes to the other buffer.
  Tensor2 grad = dy;
  for (std::size_t i = m_weights.size(); i-- > 0;) {
    if (has_relu(i)) {
      const Tensor2 masked = as_matrix(other_grad_buffer(grad), n, m_widths[i + 1]);
      relu_backward(first_rows(m_outputs[i], n), grad, masked);
      grad = masked;
    }
    const Tensor2 in = i == 0 ? m_input : first_rows(m_outputs[i - 1], n);
    const Tensor2 grad_in = i == 0 ? dx : as_matrix(other_grad_buffer(grad), n, m_widths[i]);
    linear_backward(in, m_weights[i], grad, m_weight_grads[i], m_bias_grads[i], grad_in);
    grad = grad_in;
  }
}

std::int64_t Mlp::activation_bytes() const {
  std::size_t floats = m_grad_a.span() + m_grad_b.span();
  for (const Tensor2& out : m_outputs) floats += out.span();
  return static_cast<std::int64_t>(floats * sizeof(float));
}

std::int64_t Mlp::activation_bytes(std::span<const int> widths, int max_batch) {
  require_widths("Mlp::activation_bytes", widths);
  require_max_batch(max_batch);
  std::int64_t floats = 2 * static_cast<std::int64_t>(widest_output(widths));
  for (std::size_t i = 1; i < widths.size(); ++i) floats += widths[i];
  return floats * max_batch * static_cast<std::int64_t>(sizeof(float));
}

}  // namespace scaletune::kernels
