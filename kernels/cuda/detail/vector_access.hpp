#pragma once
// Pack<T, V>: V consecutive stored elements (float, Fp16 or Bf16 of cast_math.hpp) read or
// written as one aligned vector access, and their conversion to and from fp32 (exact on load,
// round to nearest even on store), for the row-wise kernels (embedding bags, sparse optimizer
// steps). Host and device; on the host (unit tests) the bytes are copied with memcpy.

#include <cstring>

#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// V consecutive elements of T, aligned to their size so that the device moves them with one
/// vector instruction (V * sizeof(T) <= 16 bytes where the kernels use it).
template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

/// out[0, V) = the V elements of T at `p` (aligned to sizeof(T) * V bytes), as float.
template <class T, int V>
SCALETUNE_HOST_DEVICE inline void load_as_floats(const T* p, float (&out)[V]) {
  Pack<T, V> pack;
#if defined(__CUDA_ARCH__)
  pack = *reinterpret_cast<const Pack<T, V>*>(p);
#else
  std::memcpy(&pack, p, sizeof(pack));
#endif
  for (int i = 0; i < V; ++i) out[i] = to_float(pack.v[i]);
}

/// Stores values[0, V) rounded to T at `p` (aligned to sizeof(T) * V bytes).
template <class T, int V>
SCALETUNE_HOST_DEVICE inline void store_floats(T* p, const float (&values)[V]) {
  Pack<T, V> pack;
  for (int i = 0; i < V; ++i) pack.v[i] = from_float<T>(values[i]);
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<Pack<T, V>*>(p) = pack;
#else
  std::memcpy(p, &pack, sizeof(pack));
#endif
}

}  // namespace scaletune::kernels::cuda::detail
