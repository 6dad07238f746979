#pragma once
// CUDA devices as this process sees them.

#include <cstdint>
#include <string>
#include <string_view>

namespace scaletune::device {

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

/// device_count(), or throws CudaError "no CUDA device: <user> needs one ..." when it is 0.
/// Called before creating anything (allocation, cuBLAS or cuDNN handle) that needs a device.
int require_device(std::string_view user);

/// Binds the calling process to device `local_rank % device_count()`. Throws CudaError with
/// "no CUDA device" when there is none.
int bind_device(int local_rank);

/// CUDA runtime version as "13.0".
std::string runtime_version();

}  // namespace scaletune::device
