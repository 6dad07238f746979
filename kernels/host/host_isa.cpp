#include "host_isa.hpp"

#include <stdexcept>
#include <string>

#ifdef SCALETUNE_HOST_X86_VARIANTS
#include <cpuid.h>
#endif

namespace scaletune::kernels {

namespace {

/// Whether the CPU runs kAvx2's code: AVX2 and F16C (CPUID leaf 1, ECX bit 29; GCC's
/// __builtin_cpu_supports knows "f16c", Clang 14's does not).
bool cpu_runs_avx2_f16c() {
#ifdef SCALETUNE_HOST_X86_VARIANTS
  __builtin_cpu_init();
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
  return f16c && __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

/// Whether the CPU has AVX-512 F and BW (kAvx512 also needs cpu_runs_avx2_f16c()).
bool cpu_runs_avx512() {
#ifdef SCALETUNE_HOST_X86_VARIANTS
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#else
  return false;
#endif
}

}  // namespace

std::string_view to_string(HostIsa isa) {
  switch (isa) {
    case HostIsa::kAvx2:
      return "avx2";
    case HostIsa::kAvx512:
      return "avx512";
    case HostIsa::kBaseline:
      break;
  }
  return "baseline";
}

bool host_isa_available(HostIsa isa) {
  // CPUID is slow (in a virtual machine it traps to the hypervisor): ask once.
  static const bool avx2 = cpu_runs_avx2_f16c();
  static const bool avx512 = avx2 && cpu_runs_avx512();
  switch (isa) {
    case HostIsa::kAvx2:
      return avx2;
    case HostIsa::kAvx512:
      return avx512;
    case HostIsa::kBaseline:
      break;
  }
  return true;
}

HostIsa best_host_isa() {
  if (host_isa_available(HostIsa::kAvx512)) return HostIsa::kAvx512;
  if (host_isa_available(HostIsa::kAvx2)) return HostIsa::kAvx2;
  return HostIsa::kBaseline;
}

void require_host_isa(std::string_view op, HostIsa isa) {
  if (host_isa_available(isa)) return;
  throw std::invalid_argument(std::string(op) + ": the " + std::string(to_string(isa)) +
                              " variant cannot run here (this build and CPU support up to " +
                              std::string(to_string(best_host_isa())) + ")");
}

}  // namespace scaletune::kernels
