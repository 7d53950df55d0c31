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

// Lane types as plain GCC vectors (SLEEF's __m256 carries may_alias, which templates drop).
typedef float V8f __attribute__((vector_size(32)));
typedef double V4d __attribute__((vector_size(32)));

// One overload pair per SLEEF function (u10: at most 1 ulp of error).
#define OAR_SLEEF_FN(name, f32, f64)                              \
  V8f name(V8f x) { return reinterpret_cast<V8f>(f32(reinterpret_cast<__m256>(x))); } \
  V4d name(V4d x) { return reinterpret_cast<V4d>(f64(reinterpret_cast<__m256d>(x))); }
// float32 exp is our own (vec_exp.h: 1.6x SLEEF's here); float32 tanh takes SLEEF's 3.5-ulp
// variant (2.5x its 1-ulp one, still far inside float32 test tolerances).
V8f exp_v(V8f x) { return exp_f32(x); }
V4d exp_v(V4d x) { return reinterpret_cast<V4d>(Sleef_expd4_u10avx2(reinterpret_cast<__m256d>(x))); }
OAR_SLEEF_FN(expm1_v, Sleef_expm1f8_u10avx2, Sleef_expm1d4_u10avx2)
OAR_SLEEF_FN(log_v, Sleef_logf8_u10avx2, Sleef_logd4_u10avx2)
OAR_SLEEF_FN(log2_v, Sleef_log2f8_u10avx2, Sleef_log2d4_u10avx2)
OAR_SLEEF_FN(log10_v, Sleef_log10f8_u10avx2, Sleef_log10d4_u10avx2)
OAR_SLEEF_FN(log1p_v, Sleef_log1pf8_u10avx2, Sleef_log1pd4_u10avx2)
OAR_SLEEF_FN(sin_v, Sleef_sinf8_u10avx2, Sleef_sind4_u10avx2)
OAR_SLEEF_FN(cos_v, Sleef_cosf8_u10avx2, Sleef_cosd4_u10avx2)
OAR_SLEEF_FN(tan_v, Sleef_tanf8_u10avx2, Sleef_tand4_u10avx2)
OAR_SLEEF_FN(asin_v, Sleef_asinf8_u10avx2, Sleef_asind4_u10avx2)
OAR_SLEEF_FN(acos_v, Sleef_acosf8_u10avx2, Sleef_acosd4_u10avx2)
OAR_SLEEF_FN(atan_v, Sleef_atanf8_u10avx2, Sleef_atand4_u10avx2)
OAR_SLEEF_FN(sinh_v, Sleef_sinhf8_u10avx2, Sleef_sinhd4_u10avx2)
OAR_SLEEF_FN(cosh_v, Sleef_coshf8_u10avx2, Sleef_coshd4_u10avx2)
OAR_SLEEF_FN(tanh_v, Sleef_tanhf8_u35avx2, Sleef_tanhd4_u10avx2)
OAR_SLEEF_FN(erf_v, Sleef_erff8_u10avx2, Sleef_erfd4_u10avx2)
#undef OAR_SLEEF_FN

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

SpanFn<float> vec_span_f32(UnaryOp op) { return span_for<float, V8f>(op); }
SpanFn<double> vec_span_f64(UnaryOp op) { return span_for<double, V4d>(op); }

#else  // no AVX2 at build time: the scalar libm loops serve every op

SpanFn<float> vec_span_f32(UnaryOp) { return nullptr; }
SpanFn<double> vec_span_f64(UnaryOp) { return nullptr; }

#endif

}  // namespace oar::kernels
