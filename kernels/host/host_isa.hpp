#pragma once
// The instruction sets the host ops on 16-bit embedding tables are compiled for
// (embedding_bag_forward, and the fp16 and bf16 conversions of the sparse optimizer steps): on
// x86-64 each op is built for all of them with per-function target attributes, so the build
// needs no -march flag, and the widest the CPU runs is picked at run time.

#include <string_view>

// Whether the x86-64 variants are compiled, and the target attribute each is compiled with (one
// definition for every file that builds them). AVX-512 F has fused multiply-adds, and GCC
// contracts a * b + c into one (rounded once, not twice) whenever the target has them, even
// under -std=c++20: code for SCALETUNE_TARGET_AVX512 must not compute a * b + c whose bits
// matter. SCALETUNE_TARGET_AVX2 leaves FMA out for the same reason.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SCALETUNE_HOST_X86_VARIANTS 1
#define SCALETUNE_TARGET_AVX2 "avx2,f16c"
#define SCALETUNE_TARGET_AVX512 "avx512f,avx512bw,f16c"
#endif

namespace scaletune::kernels {

/// An instruction-set variant of the host ops on 16-bit tables.
enum class HostIsa {
  kBaseline,  ///< the build's own ISA (SSE2 on x86-64): fp16 converted by Eigen's bit arithmetic
  kAvx2,      ///< AVX2 and F16C (fp16 converted by VCVTPH2PS / VCVTPS2PH)
  kAvx512,    ///< AVX-512 F and BW, and F16C
};

/// "baseline", "avx2" or "avx512".
std::string_view to_string(HostIsa isa);

/// Whether this build has the variant and this CPU can run it: kBaseline always; kAvx2 and
/// kAvx512 on x86-64 CPUs with the listed extensions when built with GCC or Clang (the CPU is
/// asked once, then the answers are kept).
bool host_isa_available(HostIsa isa);

/// The widest available HostIsa: what the ops use by default.
HostIsa best_host_isa();

/// Throws std::invalid_argument naming op, isa and best_host_isa() unless
/// host_isa_available(isa).
void require_host_isa(std::string_view op, HostIsa isa);

}  // namespace scaletune::kernels
