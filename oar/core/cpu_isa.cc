#include "oar/core/cpu_isa.h"

#include <cstdlib>
#include <cstring>

namespace oar {

namespace {

CpuIsa detect() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return CpuIsa::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CpuIsa::Avx2;
  return CpuIsa::Baseline;
}

}  // namespace

CpuIsa cpu_isa() {
  static const CpuIsa isa = [] {
    CpuIsa found = detect();
    // A request for a narrower level is honoured; a wider one than the CPU has is not.
    if (const char* want = std::getenv("OAR_CPU_ISA")) {
      if (std::strcmp(want, "avx2") == 0 && found > CpuIsa::Avx2) found = CpuIsa::Avx2;
      if (std::strcmp(want, "baseline") == 0) found = CpuIsa::Baseline;
    }
    return found;
  }();
  return isa;
}

bool cpu_has_bf16_dot() {
  static const bool has = [] {
    __builtin_cpu_init();
#if defined(__clang__) && __clang_major__ < 16
    const bool amx = false;  // clang before 16 has no "amx-bf16" feature string (the sanitizer build)
#else
    const bool amx = __builtin_cpu_supports("amx-bf16");
#endif
    return cpu_isa() == CpuIsa::Avx512 && (__builtin_cpu_supports("avx512bf16") || amx);
  }();
  return has;
}

const char* cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::Avx512: return "avx512";
    case CpuIsa::Avx2: return "avx2";
    default: return "baseline";
  }
}

}  // namespace oar
