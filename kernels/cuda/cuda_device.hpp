#pragma once
// CUDA devices as this process sees them.

#include <cstdint>
#include <string>

namespace scaletune::kernels::cuda {

/// Number of usable CUDA devices. 0 when there is no driver or no device (cudaGetDeviceCount
/// returning cudaErrorInsufficientDriver (35) or cudaErrorNoDevice (100), TOOLCHAIN.md);
/// throws CudaError on any other failure.
int device_count();

/// Name and global memory of device `index`, e.g. {"NVIDIA H200", 150 GB}.
struct DeviceInfo {
  std::string name;
  std::int64_t memory_bytes = 0;
};

/// Describes device `index`; throws CudaError when it does not exist.
DeviceInfo device_info(int index);

/// Binds the calling process to device `local_rank % device_count()`. Throws CudaError with
/// "no CUDA device" when there is none.
int bind_device(int local_rank);

/// CUDA runtime version as "13.0".
std::string runtime_version();

}  // namespace scaletune::kernels::cuda
