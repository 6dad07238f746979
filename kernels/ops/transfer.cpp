#include "kernels/ops/transfer.hpp"

#include <stdexcept>
#include <string>

namespace scaletune::ops {
namespace {

void require_count(const char* op, const Tensor& t, std::size_t host) {
  if (static_cast<std::size_t>(t.numel()) != host)
    throw std::invalid_argument(std::string(op) + ": " + std::to_string(host) +
                                " host values for " + t.describe());
}

template <class T>
std::span<const std::byte> bytes_of(std::span<const T> host) {
  return std::as_bytes(host);
}

}  // namespace

void upload_floats(Backend& backend, const Tensor& dst, std::span<const float> host) {
  require_count("upload_floats", dst, host.size());
  if (dst.dtype() == DType::fp32) return backend.upload(dst, bytes_of(host));
  const Buffer staging = backend.allocate(host.size_bytes(), "upload staging");
  const Tensor fp32 = staging.tensor(DType::fp32, {dst.numel()});
  backend.upload(fp32, bytes_of(host));
  backend.copy(fp32, dst);  // the staging buffer's release waits for it (cudaFree synchronises)
}

std::vector<float> download_floats(Backend& backend, const Tensor& src) {
  std::vector<float> host(static_cast<std::size_t>(src.numel()));
  if (src.dtype() == DType::fp32) {
    backend.download(src, std::as_writable_bytes(std::span<float>(host)));
    return host;
  }
  const Buffer staging = backend.allocate(host.size() * sizeof(float), "download staging");
  const Tensor fp32 = staging.tensor(DType::fp32, {src.numel()});
  backend.copy(src, fp32);
  backend.download(fp32, std::as_writable_bytes(std::span<float>(host)));
  return host;
}

void upload_ints(Backend& backend, const Tensor& dst, std::span<const std::int32_t> host) {
  require_count("upload_ints", dst, host.size());
  require_dtype("upload_ints", "dst", dst, DType::int32);
  backend.upload(dst, bytes_of(host));
}

std::vector<std::int32_t> download_ints(Backend& backend, const Tensor& src) {
  require_dtype("download_ints", "src", src, DType::int32);
  std::vector<std::int32_t> host(static_cast<std::size_t>(src.numel()));
  backend.download(src, std::as_writable_bytes(std::span<std::int32_t>(host)));
  return host;
}

double download_scalar(Backend& backend, const Tensor& src) {
  require_shape("download_scalar", "src", src, {1});
  require_dtype("download_scalar", "src", src, DType::fp64);
  double value = 0.0;
  backend.download(src, std::as_writable_bytes(std::span<double>(&value, 1)));
  return value;
}

}  // namespace scaletune::ops
