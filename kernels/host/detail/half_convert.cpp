#include "half_convert.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#ifdef SCALETUNE_HOST_X86_VARIANTS
#include <immintrin.h>
#endif

namespace scaletune::kernels::detail {

namespace {

/// Throws unless isa is available and the spans have the same length.
void require_conversion(std::string_view op, HostIsa isa, std::size_t src_size,
                        std::size_t dst_size) {
  require_host_isa(op, isa);
  if (src_size != dst_size)
    throw std::invalid_argument(std::string(op) + ": src has " + std::to_string(src_size) +
                                " values but dst has " + std::to_string(dst_size) +
                                " (they must be equal)");
}

/// The conversion loops of every variant, written once: the compiler vectorizes them for the
/// target of the function they are inlined into.
template <class T>
[[gnu::always_inline]] inline void widen_loop(const T* src, float* dst, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = widen(src[i]);
}

[[gnu::always_inline]] inline void narrow_loop(const float* src, Eigen::bfloat16* dst,
                                               std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i].value = bf16_bits(src[i]);
}

[[gnu::always_inline]] inline void narrow_loop(const float* src, Eigen::half* dst, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = Eigen::half(src[i]);
}

/// Baseline variants.
template <class T>
void widen_baseline(const T* src, float* dst, std::size_t n) {
  widen_loop(src, dst, n);
}

template <class T>
void narrow_baseline(const float* src, T* dst, std::size_t n) {
  narrow_loop(src, dst, n);
}

#ifdef SCALETUNE_HOST_X86_VARIANTS
/// AVX2 variants (kAvx512 runs them too: the optimizer steps that convert are bound by memory,
/// not by the width of the conversion). bf16: the shared loops in ymm registers.
[[gnu::target(SCALETUNE_TARGET_AVX2)]] void widen_avx2(const Eigen::bfloat16* src, float* dst,
                                                       std::size_t n) {
  widen_loop(src, dst, n);
}

[[gnu::target(SCALETUNE_TARGET_AVX2)]] void narrow_avx2(const float* src, Eigen::bfloat16* dst,
                                                        std::size_t n) {
  narrow_loop(src, dst, n);
}

/// fp16: VCVTPH2PS, 8 values an instruction, the rest one by one (VCVTSH2SS's equivalent).
[[gnu::target(SCALETUNE_TARGET_AVX2)]] void widen_avx2(const Eigen::half* src, float* dst,
                                                       std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
  for (; i < n; ++i) dst[i] = _cvtsh_ss(src[i].x);
}

/// fp16: VCVTPS2PH rounding to nearest even (its immediate, whatever MXCSR says), which equals
/// Eigen's conversion on every non-NaN fp32 (checked over all 2^32); NaNs are first replaced by
/// the fp32 quiet NaN 0x7fc00000 with their sign, which converts to Eigen's 0x7e00 with the sign
/// (VCVTPS2PH itself keeps the top of the payload). The rest go through Eigen one by one.
[[gnu::target(SCALETUNE_TARGET_AVX2)]] void narrow_avx2(const float* src, Eigen::half* dst,
                                                        std::size_t n) {
  const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(0x80000000u)));
  const __m256 quiet_nan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_loadu_ps(src + i);
    const __m256 is_nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    x = _mm256_blendv_ps(x, _mm256_or_ps(_mm256_and_ps(x, sign), quiet_nan), is_nan);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT));
  }
  narrow_loop(src + i, dst + i, n - i);
}
#endif

/// The variant of widen or narrow for isa (baseline where the build has no other).
template <class T>
void (*widen_for([[maybe_unused]] HostIsa isa))(const T*, float*, std::size_t) {
#ifdef SCALETUNE_HOST_X86_VARIANTS
  if (isa != HostIsa::kBaseline) return widen_avx2;
#endif
  return widen_baseline<T>;
}

template <class T>
void (*narrow_for([[maybe_unused]] HostIsa isa))(const float*, T*, std::size_t) {
#ifdef SCALETUNE_HOST_X86_VARIANTS
  if (isa != HostIsa::kBaseline) return narrow_avx2;
#endif
  return narrow_baseline<T>;
}

template <class T>
void to_float_span(HostIsa isa, std::span<const T> src, std::span<float> dst) {
  require_conversion("to_float", isa, src.size(), dst.size());
  widen_for<T>(isa)(src.data(), dst.data(), src.size());
}

template <class T>
void from_float_span(HostIsa isa, std::span<const float> src, std::span<T> dst) {
  require_conversion("from_float", isa, src.size(), dst.size());
  narrow_for<T>(isa)(src.data(), dst.data(), src.size());
}

}  // namespace

void to_float(HostIsa isa, std::span<const Eigen::half> src, std::span<float> dst) {
  to_float_span(isa, src, dst);
}

void to_float(HostIsa isa, std::span<const Eigen::bfloat16> src, std::span<float> dst) {
  to_float_span(isa, src, dst);
}

void from_float(HostIsa isa, std::span<const float> src, std::span<Eigen::half> dst) {
  from_float_span(isa, src, dst);
}

void from_float(HostIsa isa, std::span<const float> src, std::span<Eigen::bfloat16> dst) {
  from_float_span(isa, src, dst);
}

}  // namespace scaletune::kernels::detail
