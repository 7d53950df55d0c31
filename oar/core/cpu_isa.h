// Which vector instructions this CPU runs, read once at run time. oar's default build targets
// x86-64-v3 (AVX2 + FMA, see CMakeLists.txt's OAR_NATIVE) and reaches wider instructions only
// through functions compiled for them (OAR_TARGET_AVX512) that a kernel picks with cpu_isa():
// one build runs on every CPU it targets and takes the AVX-512 paths where they exist.
#pragma once

namespace oar {

enum class CpuIsa { Baseline = 0, Avx2 = 1, Avx512 = 2 };

// The widest level this CPU supports (AVX-512 means F, DQ, BW and VL; AVX2 means AVX2 and FMA),
// lowered by the environment variable OAR_CPU_ISA=avx2|baseline so that the narrower paths can
// be tested on a wide machine. Read once per process.
CpuIsa cpu_isa();
const char* cpu_isa_name(CpuIsa isa);

// Whether the CPU multiplies bfloat16 natively (AVX512_BF16 or AMX-BF16): bfloat16 matrix
// products then run in bfloat16 with float32 accumulation; elsewhere they convert to float32.
// False when OAR_CPU_ISA lowers the level below AVX-512.
bool cpu_has_bf16_dot();

}  // namespace oar

// Function attributes of the per-ISA variants. A variant calls only always_inline helpers or
// functions of its own target: anything else it calls runs at the build's baseline.
#define OAR_TARGET_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")))
#define OAR_TARGET_AVX2 __attribute__((target("avx2,fma")))
