#include "kernels/ops/tensor.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace scaletune::ops {
namespace {

std::string extents(std::span<const std::int64_t> shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::int64_t product(std::span<const std::int64_t> shape) {
  std::int64_t n = 1;
  for (const std::int64_t e : shape) n *= e;
  return n;
}

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() {
  return DType::fp32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::fp64;
}
template <>
constexpr DType dtype_of<std::int32_t>() {
  return DType::int32;
}
template <>
constexpr DType dtype_of<std::int64_t>() {
  return DType::int64;
}

}  // namespace

Tensor::Tensor(void* data, DType dtype, std::initializer_list<std::int64_t> shape)
    : Tensor(data, dtype, std::span<const std::int64_t>(shape.begin(), shape.size())) {}

Tensor::Tensor(void* data, DType dtype, std::span<const std::int64_t> shape)
    : m_data(data), m_dtype(dtype), m_rank(static_cast<int>(shape.size())) {
  if (shape.empty() || shape.size() > kMaxRank)
    throw std::invalid_argument("ops::Tensor: rank " + std::to_string(shape.size()) +
                                ", expected 1 to " + std::to_string(kMaxRank) + " extents");
  if (std::ranges::any_of(shape, [](std::int64_t e) { return e < 0; }))
    throw std::invalid_argument("ops::Tensor: extents " + extents(shape) + ", expected >= 0");
  std::ranges::copy(shape, m_shape.begin());
}

std::int64_t Tensor::dim(int i) const {
  if (i < 0 || i >= m_rank)
    throw std::out_of_range("ops::Tensor::dim(" + std::to_string(i) + ") of a rank-" +
                            std::to_string(m_rank) + " tensor");
  return m_shape[static_cast<std::size_t>(i)];
}

std::int64_t Tensor::numel() const {
  return m_rank == 0 ? 0 : product(shape());
}

std::size_t Tensor::bytes() const {
  return static_cast<std::size_t>(numel()) * core::dtype_bytes(m_dtype);
}

std::string Tensor::describe() const {
  if (!defined()) return "none";
  return extents(shape()) + " " + std::string(core::dtype_key(m_dtype));
}

Tensor Tensor::reshaped(std::initializer_list<std::int64_t> shape) const {
  const std::span<const std::int64_t> s(shape.begin(), shape.size());
  if (product(s) != numel())
    throw std::invalid_argument("ops::Tensor::reshaped: " + describe() + " cannot be seen as " +
                                extents(s));
  return Tensor(m_data, m_dtype, s);
}

Tensor Tensor::rows(std::int64_t begin, std::int64_t count) const {
  if (begin < 0 || count < 0 || begin + count > dim(0))
    throw std::out_of_range("ops::Tensor::rows(" + std::to_string(begin) + ", " +
                            std::to_string(count) + ") of " + describe());
  const std::int64_t row_elements = numel() / std::max<std::int64_t>(1, dim(0));
  std::array<std::int64_t, kMaxRank> s = m_shape;
  s[0] = count;
  auto* base = static_cast<std::byte*>(m_data);
  void* at = base == nullptr ? nullptr
                             : base + static_cast<std::size_t>(begin * row_elements) *
                                          core::dtype_bytes(m_dtype);
  return Tensor(at, m_dtype, std::span<const std::int64_t>(s.data(), std::size_t(m_rank)));
}

Tensor Tensor::window(std::int64_t offset, std::initializer_list<std::int64_t> shape) const {
  const std::span<const std::int64_t> s(shape.begin(), shape.size());
  if (offset < 0 || offset + product(s) > numel())
    throw std::out_of_range("ops::Tensor::window: " + extents(s) + " at offset " +
                            std::to_string(offset) + " exceeds " + describe());
  auto* base = static_cast<std::byte*>(m_data);
  void* at =
      base == nullptr ? nullptr : base + static_cast<std::size_t>(offset) * core::dtype_bytes(m_dtype);
  return Tensor(at, m_dtype, s);
}

template <class T>
T* Tensor::as() const {
  if (m_dtype != dtype_of<T>())
    throw std::invalid_argument("ops::Tensor::as: the tensor holds " +
                                std::string(core::dtype_key(m_dtype)) + ", not " +
                                std::string(core::dtype_key(dtype_of<T>())));
  return static_cast<T*>(m_data);
}

template float* Tensor::as<float>() const;
template double* Tensor::as<double>() const;
template std::int32_t* Tensor::as<std::int32_t>() const;
template std::int64_t* Tensor::as<std::int64_t>() const;

bool same_shape(const Tensor& a, const Tensor& b) {
  return a.defined() && b.defined() && std::ranges::equal(a.shape(), b.shape());
}

void require_shape(const char* op, const char* name, const Tensor& t,
                   std::initializer_list<std::int64_t> want) {
  const std::span<const std::int64_t> w(want.begin(), want.size());
  if (t.defined() && std::ranges::equal(t.shape(), w)) return;
  throw std::invalid_argument(std::string(op) + ": " + name + " is " + t.describe() +
                              ", expected " + extents(w));
}

void require_dtype(const char* op, const char* name, const Tensor& t, DType want) {
  if (t.dtype() == want) return;
  throw std::invalid_argument(std::string(op) + ": " + name + " holds " +
                              std::string(core::dtype_key(t.dtype())) + ", expected " +
                              std::string(core::dtype_key(want)));
}

}  // namespace scaletune::ops
