#include "kernels/dlrm/mlp.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

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

/// Throws std::invalid_argument unless `count` is mlp_parameter_count(widths).
void require_parameter_count(const char* who, const char* name, std::span<const int> widths,
                             std::int64_t count) {
  const std::int64_t want = mlp_parameter_count(widths);
  if (count != want)
    throw std::invalid_argument(std::string(who) + ": " + name + " has " + std::to_string(count) +
                                " floats, expected " + std::to_string(want) +
                                " (mlp_parameter_count of widths " + widths_string(widths) + ")");
}

void require_parameters(std::span<const int> widths, const MlpParameters& p) {
  require_parameter_count("Mlp", "values", widths, p.values.numel());
  require_parameter_count("Mlp", "master", widths, p.master.numel());
  require_parameter_count("Mlp", "grads", widths, p.grads.numel());
  ops::require_dtype("Mlp", "master", p.master, ops::DType::fp32);
  ops::require_dtype("Mlp", "grads", p.grads, ops::DType::fp32);
}

void require_max_batch(int max_batch) {
  if (max_batch < 1)
    throw std::invalid_argument("Mlp: max_batch is " + std::to_string(max_batch) +
                                ", expected >= 1");
}

/// Values of the widest layer output: the size of one backward gradient row.
std::int64_t widest_output(std::span<const int> widths) {
  return *std::ranges::max_element(widths.subspan(1));
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
  require_parameter_count("init_mlp_parameters", "params", widths,
                          static_cast<std::int64_t>(params.size()));
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

Mlp::Mlp(std::vector<int> widths, bool relu_last, const MlpParameters& params,
         ops::MemoryLedger& ledger, int max_batch)
    : m_backend(ledger.backend()),
      m_widths(std::move(widths)),
      m_relu_last(relu_last),
      m_max_batch(max_batch) {
  require_widths("Mlp", m_widths);
  require_parameters(m_widths, params);
  require_max_batch(max_batch);
  const ops::DType dtype = params.values.dtype();
  const std::int64_t before = ledger.bytes();
  std::int64_t at = 0;
  for (std::size_t i = 0; i + 1 < m_widths.size(); ++i) {
    const std::int64_t in = m_widths[i], out = m_widths[i + 1];
    Layer layer;
    layer.offset = params.offset + at;
    layer.weight = params.values.window(at, {out, in});
    layer.weight_grad = params.grads.window(at, {out, in});
    at += out * in;
    layer.bias = params.master.window(at, {out});
    layer.bias_grad = params.grads.window(at, {out});
    at += out;
    layer.output = ledger.make("mlp_output", dtype, {max_batch, out});
    m_layers.push_back(layer);
  }
  const std::int64_t grad_values = max_batch * widest_output(m_widths);
  m_grad_a = ledger.make("mlp_grad_a", dtype, {grad_values});
  m_grad_b = ledger.make("mlp_grad_b", dtype, {grad_values});
  m_activation_bytes = ledger.bytes() - before;
}

bool Mlp::has_relu(std::size_t layer) const {
  return m_relu_last || layer + 2 < m_widths.size();
}

ops::Tensor Mlp::other_grad_buffer(const ops::Tensor& grad, std::int64_t n, int cols) const {
  const ops::Tensor& other = grad.data() == m_grad_a.data() ? m_grad_b : m_grad_a;
  return other.window(0, {n, cols});
}

ops::Tensor Mlp::forward(const ops::Tensor& x) {
  const std::int64_t n = x.rank() == 2 ? x.dim(0) : -1;
  if (n < 0 || x.dim(1) != m_widths[0] || n > m_max_batch)
    throw std::invalid_argument("Mlp::forward: x is " + x.describe() + ", expected [N, " +
                                std::to_string(m_widths[0]) + "] with N <= max_batch " +
                                std::to_string(m_max_batch));
  ops::require_dtype("Mlp::forward", "x", x, m_layers.front().output.dtype());
  ops::Tensor in = x;
  for (std::size_t i = 0; i < m_layers.size(); ++i) {
    const Layer& layer = m_layers[i];
    const ops::Tensor y = layer.output.rows(0, n);
    m_backend.linear_forward(in, layer.weight, layer.bias, y);
    if (has_relu(i)) m_backend.relu_forward(y, y);
    in = y;
  }
  m_input = x;
  return in;
}

void Mlp::check_backward(const ops::Tensor& dy, const ops::Tensor& dx) const {
  constexpr const char* kOp = "Mlp::backward";
  if (!m_input.defined()) throw std::invalid_argument("Mlp::backward: called before forward");
  const std::int64_t n = m_input.dim(0);
  ops::require_shape(kOp, "dy", dy, {n, m_widths.back()});
  if (!dx.defined()) return;
  ops::require_shape(kOp, "dx", dx, {n, m_widths[0]});
  if (dx.data() == m_input.data() || dx.data() == dy.data())
    throw std::invalid_argument("Mlp::backward: dx must not alias x or dy");
}

void Mlp::backward(const ops::Tensor& dy, const ops::Tensor& dx, const GradientsReady& ready) {
  check_backward(dy, dx);
  const std::int64_t n = m_input.dim(0);
  // grad: d loss / d (output of layer i); layer i's input gradient goes to the other buffer.
  ops::Tensor grad = dy;
  for (std::size_t i = m_layers.size(); i-- > 0;) {
    const Layer& layer = m_layers[i];
    if (has_relu(i)) {
      const ops::Tensor masked = other_grad_buffer(grad, n, m_widths[i + 1]);
      m_backend.relu_backward(layer.output.rows(0, n), grad, masked);
      grad = masked;
    }
    const ops::Tensor in = i == 0 ? m_input : m_layers[i - 1].output.rows(0, n);
    const ops::Tensor grad_in = i == 0 ? dx : other_grad_buffer(grad, n, m_widths[i]);
    m_backend.linear_backward(in, layer.weight, grad, layer.weight_grad, layer.bias_grad, grad_in,
                              ops::GradMode::overwrite);
    if (ready) ready(layer.offset);
    grad = grad_in;
  }
}

std::int64_t Mlp::activation_bytes() const {
  return m_activation_bytes;
}

std::int64_t Mlp::activation_bytes(std::span<const int> widths, int max_batch, int value_bytes) {
  require_widths("Mlp::activation_bytes", widths);
  require_max_batch(max_batch);
  std::int64_t values = 2 * widest_output(widths);
  for (std::size_t i = 1; i < widths.size(); ++i) values += widths[i];
  return values * max_batch * value_bytes;
}

}  // namespace scaletune::kernels
