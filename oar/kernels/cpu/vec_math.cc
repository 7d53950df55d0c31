#include "oar/kernels/cpu/vec_math.h"

#include <cstring>
#include <type_traits>

#include "oar/kernels/cpu/vec_exp.h"

#ifdef __AVX2__
#include <immintrin.h>
#include <sleef.h>
#endif

namespace oar::kernels {

#ifdef __AVX2__
namespace {

// Applies the L-lane function F to in[0, n): whole vectors, then the tail through a padded
// buffer, so every element goes through the same code (results do not depend on alignment).
template <typename T, typename V, V (*F)(V)>
void span(const T* in, T* out, int64_t n) {
  constexpr int64_t L = sizeof(V) / sizeof(T);
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    V v;
    std::memcpy(&v, in + i, sizeof(V));
    v = F(v);
    std::memcpy(out + i, &v, sizeof(V));
  }
  if (i < n) {
    T buf[L] = {};
    std::memcpy(buf, in + i, (n - i) * sizeof(T));
    V v;
    std::memcpy(&v, buf, sizeof(V));
    v = F(v);
    std::memcpy(buf, &v, sizeof(V));
    std::memcpy(out + i, buf, (n - i) * sizeof(T));
  }
}

// Lane types as plain GCC vectors (SLEEF's __m256/__m512 carry may_alias, which templates drop),
// as wide as the build target allows: 512-bit lanes with AVX-512 (measured: log of 4M floats
// 2.25 -> 1.30 ms on 2 cores against 256-bit lanes), else 256-bit.
#ifdef __AVX512F__
typedef float Vf __attribute__((vector_size(64)));
typedef double Vd __attribute__((vector_size(64)));
using SleefF = __m512;
using SleefD = __m512d;
#define OAR_SLEEF_F(fn, acc) Sleef_##fn##f16_##acc##avx512f
#define OAR_SLEEF_D(fn, acc) Sleef_##fn##d8_##acc##avx512f
#else
typedef float Vf __attribute__((vector_size(32)));
typedef double Vd __attribute__((vector_size(32)));
using SleefF = __m256;
using SleefD = __m256d;
#define OAR_SLEEF_F(fn, acc) Sleef_##fn##f8_##acc##avx2
#define OAR_SLEEF_D(fn, acc) Sleef_##fn##d4_##acc##avx2
#endif

// One overload pair per SLEEF function: float lanes with accuracy facc, double lanes with dacc
// (u10: at most 1 ulp of error; u35: 3.5 ulp).
#define OAR_SLEEF_FN(name, fn, facc, dacc)                                                      \
  Vf name(Vf x) { return reinterpret_cast<Vf>(OAR_SLEEF_F(fn, facc)(reinterpret_cast<SleefF>(x))); } \
  Vd name(Vd x) { return reinterpret_cast<Vd>(OAR_SLEEF_D(fn, dacc)(reinterpret_cast<SleefD>(x))); }
// float32 exp is our own (vec_exp.h: 1.6x SLEEF's here); float32 tanh takes SLEEF's 3.5-ulp
// variant (2.5x its 1-ulp one, still far inside float32 test tolerances).
Vf exp_v(Vf x) { return exp_f32(x); }
Vd exp_v(Vd x) { return reinterpret_cast<Vd>(OAR_SLEEF_D(exp, u10)(reinterpret_cast<SleefD>(x))); }
OAR_SLEEF_FN(expm1_v, expm1, u10, u10)
OAR_SLEEF_FN(log_v, log, u10, u10)
OAR_SLEEF_FN(log2_v, log2, u10, u10)
OAR_SLEEF_FN(log10_v, log10, u10, u10)
OAR_SLEEF_FN(log1p_v, log1p, u10, u10)
OAR_SLEEF_FN(sin_v, sin, u10, u10)
OAR_SLEEF_FN(cos_v, cos, u10, u10)
OAR_SLEEF_FN(tan_v, tan, u10, u10)
OAR_SLEEF_FN(asin_v, asin, u10, u10)
OAR_SLEEF_FN(acos_v, acos, u10, u10)
OAR_SLEEF_FN(atan_v, atan, u10, u10)
OAR_SLEEF_FN(sinh_v, sinh, u10, u10)
OAR_SLEEF_FN(cosh_v, cosh, u10, u10)
OAR_SLEEF_FN(tanh_v, tanh, u35, u10)
OAR_SLEEF_FN(erf_v, erf, u10, u10)
#undef OAR_SLEEF_FN
#undef OAR_SLEEF_F
#undef OAR_SLEEF_D

// Activations built from them, written once for both lane types (GCC vectors take scalar
// operands of their element type, broadcast).
template <typename V>
using lane_t = std::remove_cvref_t<decltype(V{}[0])>;
template <typename V>
V sigmoid_v(V x) {
  using T = lane_t<V>;
  return T(1) / (T(1) + exp_v(-x));
}
template <typename V>
V silu_v(V x) {
  using T = lane_t<V>;
  return x / (T(1) + exp_v(-x));
}
template <typename V>
V gelu_v(V x) {
  using T = lane_t<V>;
  return T(0.5) * x * (T(1) + erf_v(x * T(0.70710678118654752440)));
}
template <typename V>
V gelu_tanh_v(V x) {
  using T = lane_t<V>;
  const T k = T(0.7978845608028654);  // sqrt(2/pi)
  return T(0.5) * x * (T(1) + tanh_v(k * (x + T(0.044715) * x * x * x)));
}

// Which vector function serves which op, for element type T in lanes V.
template <typename T, typename V>
SpanFn<T> span_for(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp: return span<T, V, exp_v>;
    case UnaryOp::Expm1: return span<T, V, expm1_v>;
    case UnaryOp::Log: return span<T, V, log_v>;
    case UnaryOp::Log2: return span<T, V, log2_v>;
    case UnaryOp::Log10: return span<T, V, log10_v>;
    case UnaryOp::Log1p: return span<T, V, log1p_v>;
    case UnaryOp::Sin: return span<T, V, sin_v>;
    case UnaryOp::Cos: return span<T, V, cos_v>;
    case UnaryOp::Tan: return span<T, V, tan_v>;
    case UnaryOp::Asin: return span<T, V, asin_v>;
    case UnaryOp::Acos: return span<T, V, acos_v>;
    case UnaryOp::Atan: return span<T, V, atan_v>;
    case UnaryOp::Sinh: return span<T, V, sinh_v>;
    case UnaryOp::Cosh: return span<T, V, cosh_v>;
    case UnaryOp::Tanh: return span<T, V, tanh_v>;
    case UnaryOp::Erf: return span<T, V, erf_v>;
    case UnaryOp::Sigmoid: return span<T, V, sigmoid_v<V>>;
    case UnaryOp::Silu: return span<T, V, silu_v<V>>;
    case UnaryOp::Gelu: return span<T, V, gelu_v<V>>;
    case UnaryOp::GeluTanh: return span<T, V, gelu_tanh_v<V>>;
    default: return nullptr;
  }
}

}  // namespace

SpanFn<float> vec_span_f32(UnaryOp op) { return span_for<float, Vf>(op); }
SpanFn<double> vec_span_f64(UnaryOp op) { return span_for<double, Vd>(op); }

#else  // no AVX2 at build time: the scalar libm loops serve every op

SpanFn<float> vec_span_f32(UnaryOp) { return nullptr; }
SpanFn<double> vec_span_f64(UnaryOp) { return nullptr; }

#endif

}  // namespace oar::kernels
