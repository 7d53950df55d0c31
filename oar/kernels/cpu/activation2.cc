#include "oar/kernels/cpu/activation2.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/convert.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/loops.h"
#include "oar/kernels/cpu/vec_exp.h"

namespace oar::kernels {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace {

typedef float V8 __attribute__((vector_size(32)));

// The lane type of V (V itself for scalars).
template <typename V> struct lane { using type = V; };
template <> struct lane<V8> { using type = float; };

template <typename V> inline V splat(double c) { return V{} + typename lane<V>::type(c); }

inline V8 vexp(V8 x) { return exp_f32(x); }
inline float vexp(float x) { return exp_f32(x); }
inline double vexp(double x) { return std::exp(x); }

// log1p(e) for e in [0, 1] (float32 lanes): 2 atanh(z) with z = e / (2 + e) in [0, 1/3], by
// its odd series to z^17 (relative error < 1e-8 at z = 1/3, exact in the limit e -> 0).
inline V8 vlog1p_unit(V8 e) {
  const V8 z = e / (e + 2.0f);
  const V8 z2 = z * z;
  V8 p = V8{} + 1.0f / 17;
  p = p * z2 + 1.0f / 15;
  p = p * z2 + 1.0f / 13;
  p = p * z2 + 1.0f / 11;
  p = p * z2 + 1.0f / 9;
  p = p * z2 + 1.0f / 7;
  p = p * z2 + 1.0f / 5;
  p = p * z2 + 1.0f / 3;
  p = p * z2 + 1.0f;
  return 2.0f * z * p;
}
inline float vlog1p_unit(float e) { return std::log1p(e); }
inline double vlog1p_unit(double e) { return std::log1p(e); }

template <typename V> inline V vabs(V x) { return x < splat<V>(0) ? -x : x; }

// tanh(x) = sign(x) (1 - e) / (1 + e) with e = exp(-2|x|) (no overflow).
template <typename V> inline V vtanh(V x) {
  const V e = vexp(splat<V>(-2) * vabs(x));
  const V t = (splat<V>(1) - e) / (splat<V>(1) + e);
  return x < splat<V>(0) ? -t : t;
}

// sigmoid(x) from e = exp(-|x|): 1 / (1 + e) for x >= 0, e / (1 + e) below.
template <typename V> inline V vsigmoid(V x) {
  const V e = vexp(-vabs(x));
  const V r = splat<V>(1) / (splat<V>(1) + e);
  return x < splat<V>(0) ? e * r : r;
}

// erf from erfc(|x|) = t exp(P(t) - x^2), t = 1 / (1 + |x| / 2): Numerical Recipes' erfcc, whose
// relative error in erfc is under 1.2e-7 everywhere, so erf is within 2.4e-7 (absolute) with one
// exp and no branches. float64 keeps libm's erf.
template <typename V> inline V verf(V x) {
  const V z = vabs(x);
  const V t = splat<V>(1) / (splat<V>(1) + splat<V>(0.5) * z);
  V p = splat<V>(0.17087277);
  for (const double c : {-0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418,
                         0.37409196, 1.00002368, -1.26551223})
    p = p * t + splat<V>(c);
  const V e = splat<V>(1) - t * vexp(p - z * z);
  return x < splat<V>(0) ? -e : e;
}
inline double verf(double x) { return std::erf(x); }

constexpr double kSqrtHalf = 0.70710678118654752440, kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kGeluK = 0.7978845608028654, kGeluC = 0.044715;  // tanh form: sqrt(2/pi), cubic term

template <typename V> struct Params { V a, b, ia; };

template <typename V> __attribute__((always_inline)) inline V forward(Act2 op, V x, const Params<V>& p) {
  const V zero = splat<V>(0), one = splat<V>(1);
  switch (op) {
    case Act2::Celu: return x > zero ? x : p.a * (vexp(x * p.ia) - one);
    case Act2::Selu: return x > zero ? p.a * x : p.a * p.b * (vexp(x) - one);
    case Act2::Mish: {
      // tanh(softplus(x)) = n / (n + 2) with n = e (e + 2), e = exp(x); softplus(x) = x above 20.
      const V e = vexp(x < splat<V>(20) ? x : zero);
      const V n = e * (e + splat<V>(2));
      return x > splat<V>(20) ? x : x * n / (n + splat<V>(2));
    }
    case Act2::Softsign: return x / (one + vabs(x));
    case Act2::Softshrink: return x > p.a ? x - p.a : (x < -p.a ? x + p.a : zero);
    case Act2::Hardshrink: return (x > p.a || x < -p.a) ? x : zero;
    case Act2::Hardtanh: return x < p.a ? p.a : (x > p.b ? p.b : x);
    case Act2::Tanhshrink: return x - vtanh(x);
    case Act2::ThresholdedRelu: return x > p.a ? x : p.b;
    case Act2::LogSigmoid: {
      // log sigmoid(x) = min(x, 0) - log1p(exp(-|x|))
      return (x < zero ? x : zero) - vlog1p_unit(vexp(-vabs(x)));
    }
    case Act2::Swish: return x * vsigmoid(x);
    case Act2::Relu: return x > zero ? x : zero;
    case Act2::Gelu: return splat<V>(0.5) * x * (one + verf(x * splat<V>(kSqrtHalf)));
    case Act2::GeluTanh:
      return splat<V>(0.5) * x * (one + vtanh(splat<V>(kGeluK) * (x + splat<V>(kGeluC) * x * x * x)));
  }
  return x;
}

template <typename V> __attribute__((always_inline)) inline V backward(Act2 op, V x, V g, const Params<V>& p) {
  const V zero = splat<V>(0), one = splat<V>(1);
  switch (op) {
    case Act2::Celu: return x > zero ? g : g * vexp(x * p.ia);
    case Act2::Selu: return x > zero ? g * p.a : g * p.a * p.b * vexp(x);
    case Act2::Mish: {
      // d/dx x tanh(sp(x)) = t + x (1 - t^2) sigmoid(x)
      const V e = vexp(x < splat<V>(20) ? x : zero);
      const V n = e * (e + splat<V>(2));
      const V t = n / (n + splat<V>(2));
      const V d = t + x * (one - t * t) * vsigmoid(x);
      return x > splat<V>(20) ? g : g * d;
    }
    case Act2::Softsign: {
      const V d = one + vabs(x);
      return g / (d * d);
    }
    case Act2::Softshrink:
    case Act2::Hardshrink: return (x > p.a || x < -p.a) ? g : zero;
    case Act2::Hardtanh: return (x > p.a && x < p.b) ? g : zero;
    case Act2::Tanhshrink: {
      const V t = vtanh(x);
      return g * t * t;
    }
    case Act2::ThresholdedRelu: return x > p.a ? g : zero;
    case Act2::LogSigmoid: return g * vsigmoid(-x);
    case Act2::Swish: {
      const V s = vsigmoid(x);
      return g * s * (one + x * (one - s));
    }
    case Act2::Relu: return x > zero ? g : zero;
    case Act2::Gelu: {  // Phi(x) + x phi(x)
      const V cdf = splat<V>(0.5) * (one + verf(x * splat<V>(kSqrtHalf)));
      const V pdf = vexp(splat<V>(-0.5) * x * x) * splat<V>(kInvSqrt2Pi);
      return g * (cdf + x * pdf);
    }
    case Act2::GeluTanh: {  // 0.5 (1 + t) + 0.5 x (1 - t^2) u', t = tanh(u), u = k (x + c x^3)
      const V x2 = x * x;
      const V t = vtanh(splat<V>(kGeluK) * (x + splat<V>(kGeluC) * x * x2));
      const V du = splat<V>(kGeluK) * (one + splat<V>(3 * kGeluC) * x2);
      return g * (splat<V>(0.5) * (one + t) + splat<V>(0.5) * x * (one - t * t) * du);
    }
  }
  return g;
}

// g * op''(x) (0 for the piecewise-linear ops).
template <typename V> __attribute__((always_inline)) inline V second(Act2 op, V x, V g, const Params<V>& p) {
  const V zero = splat<V>(0), one = splat<V>(1), two = splat<V>(2);
  switch (op) {
    case Act2::Celu: return x > zero ? zero : g * vexp(x * p.ia) * p.ia;
    case Act2::Selu: return x > zero ? zero : g * p.a * p.b * vexp(x);
    case Act2::Mish: {
      // with t = tanh(softplus(x)), s = sigmoid(x), u = (1 - t^2) s:
      // f'' = 2 u + x u ((1 - s) - 2 t s)
      const V e = vexp(x < splat<V>(20) ? x : zero);
      const V n = e * (e + two);
      const V t = n / (n + two);
      const V s = vsigmoid(x);
      const V u = (one - t * t) * s;
      const V d = two * u + x * u * ((one - s) - two * t * s);
      return x > splat<V>(20) ? zero : g * d;
    }
    case Act2::Softsign: {
      const V d = one + vabs(x);
      const V r = -two / (d * d * d);
      return g * (x < zero ? -r : (x > zero ? r : zero));
    }
    case Act2::Softshrink:
    case Act2::Hardshrink:
    case Act2::Hardtanh:
    case Act2::ThresholdedRelu: return zero;
    case Act2::Tanhshrink: {
      const V t = vtanh(x);
      return g * two * t * (one - t * t);
    }
    case Act2::LogSigmoid: {
      const V s = vsigmoid(x);
      return -g * s * (one - s);
    }
    case Act2::Swish: {
      const V s = vsigmoid(x);
      return g * s * (one - s) * (two + x * (one - two * s));
    }
    case Act2::Relu: return zero;
    case Act2::Gelu: return g * vexp(splat<V>(-0.5) * x * x) * splat<V>(kInvSqrt2Pi) * (two - x * x);
    case Act2::GeluTanh: {  // s (u' + x (u'' - 2 t u'^2) / 2), s = 1 - t^2
      const V x2 = x * x;
      const V t = vtanh(splat<V>(kGeluK) * (x + splat<V>(kGeluC) * x * x2));
      const V du = splat<V>(kGeluK) * (one + splat<V>(3 * kGeluC) * x2);
      const V d2u = splat<V>(6 * kGeluK * kGeluC) * x;
      return g * (one - t * t) * (du + splat<V>(0.5) * x * (d2u - two * t * du * du));
    }
  }
  return zero;
}

template <typename V> Params<V> params(double a, double b) {
  return {splat<V>(a), splat<V>(b), splat<V>(a != 0 ? 1.0 / a : 0.0)};
}

// Runs f on [0, n) of contiguous float32 arrays: whole 8-lane vectors, then the tail through a
// padded buffer (every element goes through the same code).
template <int NIn, typename F>
void span_f32(const float* const* in, float* out, int64_t n, const F& f) {
  int64_t i = 0;
  V8 v[NIn];
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < NIn; ++k) std::memcpy(&v[k], in[k] + i, sizeof(V8));
    const V8 r = f(v);
    std::memcpy(out + i, &r, sizeof(V8));
  }
  if (i < n) {
    float buf[8];
    for (int k = 0; k < NIn; ++k) {
      std::fill(buf, buf + 8, 0.0f);
      std::memcpy(buf, in[k] + i, (n - i) * sizeof(float));
      std::memcpy(&v[k], buf, sizeof(V8));
    }
    const V8 r = f(v);
    std::memcpy(buf, &r, sizeof(V8));
    std::memcpy(out + i, buf, (n - i) * sizeof(float));
  }
}

constexpr int64_t kGrain = 16384;

// f(std::integral_constant<Act2, op>): the op becomes a compile-time constant, so the inlined
// formulas lose their switch and the loops vectorise.
template <typename F> void with_op(Act2 op, const F& f) {
  using A = Act2;
  switch (op) {
    case A::Celu: return f(std::integral_constant<A, A::Celu>{});
    case A::Selu: return f(std::integral_constant<A, A::Selu>{});
    case A::Mish: return f(std::integral_constant<A, A::Mish>{});
    case A::Softsign: return f(std::integral_constant<A, A::Softsign>{});
    case A::Softshrink: return f(std::integral_constant<A, A::Softshrink>{});
    case A::Hardshrink: return f(std::integral_constant<A, A::Hardshrink>{});
    case A::Hardtanh: return f(std::integral_constant<A, A::Hardtanh>{});
    case A::Tanhshrink: return f(std::integral_constant<A, A::Tanhshrink>{});
    case A::ThresholdedRelu: return f(std::integral_constant<A, A::ThresholdedRelu>{});
    case A::LogSigmoid: return f(std::integral_constant<A, A::LogSigmoid>{});
    case A::Swish: return f(std::integral_constant<A, A::Swish>{});
    case A::Relu: return f(std::integral_constant<A, A::Relu>{});
    case A::Gelu: return f(std::integral_constant<A, A::Gelu>{});
    case A::GeluTanh: return f(std::integral_constant<A, A::GeluTanh>{});
  }
}

}  // namespace

const char* act2_name(Act2 op) {
  static const char* names[] = {"celu", "selu", "mish", "softsign", "softshrink", "hardshrink",
                                "hardtanh", "tanhshrink", "thresholded_relu", "log_sigmoid",
                                "swish", "relu", "gelu", "gelu"};
  return names[static_cast<int>(op)];
}

void act2(Act2 op, const Tensor& x, double a, double b, const Tensor& out) {
  const Tensor xc = x.contiguous();
  const int64_t n = xc.numel();
  dispatch_floating(x.dtype(), act2_name(op), [&](auto tag) {
    using T = decltype(tag);
    const T* px = xc.data<T>();
    T* po = out.data<T>();
    if constexpr (std::is_same_v<T, float>) {
      const Params<V8> p = params<V8>(a, b);
      with_op(op, [&](auto OP) {
        parallel_for(0, n, kGrain, [&](int64_t s, int64_t e) {
          const float* in[1] = {px + s};
          span_f32<1>(in, po + s, e - s, [&](const V8* v) { return forward<V8>(OP.value, v[0], p); });
        });
      });
    } else {
      using C = compute_t<T>;
      const Params<C> p = params<C>(a, b);
      parallel_for(0, n, kGrain, [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) po[i] = T(forward<C>(op, C(px[i]), p));
      });
    }
  });
}

namespace {

// dx = grad * op'(x) (order 1) or grad * op''(x) (order 2).
void grad_impl(Act2 op, int order, const Tensor& x, const Tensor& grad, double a, double b,
               const Tensor& dx) {
  const Tensor xc = x.contiguous(), gc = grad.contiguous();
  const int64_t n = xc.numel();
  dispatch_floating(x.dtype(), act2_name(op), [&](auto tag) {
    using T = decltype(tag);
    const T* px = xc.data<T>();
    const T* pg = gc.data<T>();
    T* po = dx.data<T>();
    if constexpr (std::is_same_v<T, float>) {
      const Params<V8> p = params<V8>(a, b);
      with_op(op, [&](auto OP) {
        parallel_for(0, n, kGrain, [&](int64_t s, int64_t e) {
          const float* in[2] = {px + s, pg + s};
          if (order == 1)
            span_f32<2>(in, po + s, e - s,
                        [&](const V8* v) { return backward<V8>(OP.value, v[0], v[1], p); });
          else
            span_f32<2>(in, po + s, e - s,
                        [&](const V8* v) { return second<V8>(OP.value, v[0], v[1], p); });
        });
      });
    } else {
      using C = compute_t<T>;
      const Params<C> p = params<C>(a, b);
      parallel_for(0, n, kGrain, [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i)
          po[i] = T(order == 1 ? backward<C>(op, C(px[i]), C(pg[i]), p)
                               : second<C>(op, C(px[i]), C(pg[i]), p));
      });
    }
  });
}

}  // namespace

void act2_grad(Act2 op, const Tensor& x, const Tensor& grad, double a, double b, const Tensor& dx) {
  grad_impl(op, 1, x, grad, a, b, dx);
}

void act2_grad2(Act2 op, const Tensor& x, const Tensor& grad, double a, double b, const Tensor& dx) {
  grad_impl(op, 2, x, grad, a, b, dx);
}

#pragma GCC diagnostic pop

}  // namespace oar::kernels
