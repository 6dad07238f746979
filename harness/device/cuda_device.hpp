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

/// What one device is, e.g. {"NVIDIA H200", 150 GB, 9, 0, true}.
struct DeviceInfo {
  std::string name;               ///< cudaDeviceProp::name
  std::int64_t memory_bytes = 0;  ///< global memory, bytes
  int compute_major = 0;          ///< compute capability, major (9 for Hopper)
  int compute_minor = 0;          ///< compute capability, minor
  bool bf16 = false;              ///< bfloat16 arithmetic: compute capability >= 8.0 (Ampere)
};

/// Describes device `index`; throws CudaError when it does not exist.
DeviceInfo device_info(int index);

/// device_count(), or throws CudaError "no CUDA device: <user> needs one ..." when it is 0.
/// Called before creating anything (allocation, cuBLAS or cuDNN handle) that needs a device.
int require_device(std::string_view user);

/// Binds the calling process to device `local_rank % device_count()`. Throws CudaError with
/// "no CUDA device" when there is none.
int bind_device(int local_rank);

/// Free global memory of the calling thread's current device (cudaMemGetInfo), bytes. Throws
/// CudaError (e.g. without a device).
std::int64_t free_memory_bytes();

/// CUDA runtime version as "13.0".
std::string runtime_version();

}  // namespace scaletune::device
