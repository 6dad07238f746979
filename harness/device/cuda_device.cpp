#include "cuda_device.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

#include "harness/device/cuda_error.hpp"

namespace scaletune::device {

int device_count() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice) {
    cudaGetLastError();  // clear the error so later calls start clean
    return 0;
  }
  SCALETUNE_CUDA_CHECK(err);
  return count;
}

DeviceInfo device_info(int index) {
  cudaDeviceProp prop{};
  SCALETUNE_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  return {prop.name, static_cast<std::int64_t>(prop.totalGlobalMem), prop.major, prop.minor,
          prop.major >= 8};
}

int require_device(std::string_view user) {
  const int count = device_count();
  if (count > 0) return count;
  throw CudaError("no CUDA device: " + std::string(user) +
                  " needs one, but cudaGetDeviceCount found none (is a GPU and its driver here?)");
}

int bind_device(int local_rank) {
  const int device = local_rank % require_device("bind_device");
  SCALETUNE_CUDA_CHECK(cudaSetDevice(device));
  return device;
}

std::int64_t free_memory_bytes() {
  std::size_t free = 0, total = 0;
  SCALETUNE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return static_cast<std::int64_t>(free);
}

std::string runtime_version() {
  int v = 0;
  SCALETUNE_CUDA_CHECK(cudaRuntimeGetVersion(&v));
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace scaletune::device
