#include "oar/kernels/cpu/vec_math.h"

#include <immintrin.h>

#include <cstring>
#include <type_traits>

#include "oar/core/cpu_isa.h"
#include "oar/kernels/cpu/vec_exp.h"

#include <sleef.h>

// clang (the sanitizer build's compiler) ignores GCC's target pragmas, without which the 512-bit
// calls would not get their ABI: a clang build takes the 256-bit lanes on every AVX CPU.
#if !defined(__clang__)
#define OAR_VEC_MATH_512 1
#endif

#ifdef OAR_VEC_MATH_512
// SLEEF declares a width's functions only where the translation unit targets that width: the
// 512-bit ones used here are declared below (the library has them; they run only on AVX-512 CPUs).
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")
extern "C" {
#define OAR_SLEEF512(fn, facc, dacc)            \
  __m512 Sleef_##fn##f16_##facc##avx512f(__m512); \
  __m512d Sleef_##fn##d8_##dacc##avx512f(__m512d);
OAR_SLEEF512(exp, u10, u10)
OAR_SLEEF512(expm1, u10, u10)
OAR_SLEEF512(log, u10, u10)
OAR_SLEEF512(log2, u10, u10)
OAR_SLEEF512(log10, u10, u10)
OAR_SLEEF512(log1p, u10, u10)
OAR_SLEEF512(sin, u10, u10)
OAR_SLEEF512(cos, u10, u10)
OAR_SLEEF512(tan, u10, u10)
OAR_SLEEF512(asin, u10, u10)
OAR_SLEEF512(acos, u10, u10)
OAR_SLEEF512(atan, u10, u10)
OAR_SLEEF512(sinh, u10, u10)
OAR_SLEEF512(cosh, u10, u10)
OAR_SLEEF512(tanh, u35, u10)
OAR_SLEEF512(erf, u10, u10)
#undef OAR_SLEEF512
}
#pragma GCC pop_options
#endif

// The wide vector types live only inside functions of their own target, so the ABI note about
// passing them by value is moot.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace oar::kernels {

// One copy of the lanes per vector width, each compiled for its instructions (everything in a
// target region is, templates included) and picked at run time: a build for AVX2 CPUs still
// takes 512-bit lanes where the CPU has them (measured: log of 4M floats 2.25 -> 1.30 ms on 2
// cores against 256-bit lanes).
namespace {

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
#define OAR_LANE_BYTES 32
using SleefF = __m256;
using SleefD = __m256d;
#define OAR_SLEEF_F(fn, acc) Sleef_##fn##f8_##acc##avx2
#define OAR_SLEEF_D(fn, acc) Sleef_##fn##d4_##acc##avx2
#include "oar/kernels/cpu/vec_math_lanes.inc"
#undef OAR_LANE_BYTES
#undef OAR_SLEEF_F
#undef OAR_SLEEF_D
}  // namespace avx2
#pragma GCC pop_options

#ifdef OAR_VEC_MATH_512
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")
namespace avx512 {
#define OAR_LANE_BYTES 64
using SleefF = __m512;
using SleefD = __m512d;
#define OAR_SLEEF_F(fn, acc) Sleef_##fn##f16_##acc##avx512f
#define OAR_SLEEF_D(fn, acc) Sleef_##fn##d8_##acc##avx512f
#include "oar/kernels/cpu/vec_math_lanes.inc"
#undef OAR_LANE_BYTES
#undef OAR_SLEEF_F
#undef OAR_SLEEF_D
}  // namespace avx512
#pragma GCC pop_options
#endif

}  // namespace

// Without AVX2 the scalar libm loops serve every op.
SpanFn<float> vec_span_f32(UnaryOp op) {
  switch (cpu_isa()) {
    case CpuIsa::Avx512:
#ifdef OAR_VEC_MATH_512
      return avx512::span_for<float, avx512::Vf>(op);
#endif
    case CpuIsa::Avx2:
      return avx2::span_for<float, avx2::Vf>(op);
    default:
      return nullptr;
  }
}

SpanFn<double> vec_span_f64(UnaryOp op) {
  switch (cpu_isa()) {
    case CpuIsa::Avx512:
#ifdef OAR_VEC_MATH_512
      return avx512::span_for<double, avx512::Vd>(op);
#endif
    case CpuIsa::Avx2:
      return avx2::span_for<double, avx2::Vd>(op);
    default:
      return nullptr;
  }
}

}  // namespace oar::kernels

#pragma GCC diagnostic pop
