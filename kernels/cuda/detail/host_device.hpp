#pragma once
// SCALETUNE_HOST_DEVICE marks the per-element bodies (detail/*_math.hpp) that the CUDA kernels
// run and the host unit tests compile with the host compiler: __host__ __device__ under nvcc,
// nothing otherwise.

#if defined(__CUDACC__)
#define SCALETUNE_HOST_DEVICE __host__ __device__
#else
#define SCALETUNE_HOST_DEVICE
#endif
