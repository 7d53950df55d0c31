// Activations with attributes (gelu, leaky_relu, elu, hardsigmoid, softplus), the act2 family
// (celu ... swish, one op number each, with their first and second derivatives act2_grad and
// act2_grad2) and clip.
// Contract: see kernels.h. Each is one map_elements loop; x is any strided view of a floating
// type (float16 and bfloat16 compute in float and round once, as the host does), out has x's
// shape and dtype. The formulas, thresholds and defaults are those of oar's CPU kernels
// (oar/kernels/cpu/elementwise.cc, activation2.cc), with the standard library's exp and log
// where the host uses its vectorised approximations (the results agree to a few ulps).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>

#include "plugins/common/clip_bound.h"
#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/map.h"

namespace oar_custom_cpu {
namespace {

// out = f(x) with f = make(C{}) on the compute type C.
template <typename Make>
void float_unary(const OarKernelContext* ctx, Make make) {
  const TensorDesc x = input(ctx, 0, "x");
  const TensorDesc out = output(ctx);
  expect_shape(out, x.shape, "out");
  visit_float_dtype(x.dtype, op_name(ctx), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const auto f = make(C{});
    map_elements<T, T>(ctx, out, {x}, [f](T a) { return T(f(C(a))); });
  });
}

// out = f(x, g) for the gradient ops: x and out_grad of x's dtype, broadcast to out.
template <typename Make>
void float_binary(const OarKernelContext* ctx, Make make) {
  const TensorDesc x = input(ctx, 0, "x"), g = input(ctx, 1, "out_grad");
  const TensorDesc out = output(ctx);
  expect_dtype(g, x.dtype, "out_grad");
  expect_shape(out, broadcast_shape(x.shape, g.shape), "out");
  visit_float_dtype(x.dtype, op_name(ctx), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const auto f = make(C{});
    map_elements<T, T, T>(ctx, out, {x, g}, [f](T a, T b) { return T(f(C(a), C(b))); });
  });
}

// sigmoid(x) from e = exp(-|x|): no overflow on either side (the host's form).
template <typename C> C stable_sigmoid(C x) {
  const C e = std::exp(-std::fabs(x));
  const C r = C(1) / (C(1) + e);
  return x < C(0) ? e * r : r;
}

// ---- the act2 family: op numbers as oar's kernels::Act2 (the `op` attribute of act2_grad) ----

enum class Act2 : int64_t {
  Celu = 0, Selu, Mish, Softsign, Softshrink, Hardshrink, Hardtanh, Tanhshrink, ThresholdedRelu,
  LogSigmoid, Swish, Relu, Gelu, GeluTanh, kCount
};

// gelu's pieces: Phi(x) and phi(x), and the tanh form's t = tanh(u), u = k (x + c x^3), and u'.
template <typename C> C gelu_cdf(C x) { return C(0.5) * (C(1) + std::erf(x * C(0.70710678118654752440))); }
template <typename C> C gelu_pdf(C x) { return std::exp(C(-0.5) * x * x) * C(0.39894228040143267794); }
constexpr double kGeluK = 0.7978845608028654, kGeluC = 0.044715;
template <typename C> C gelu_tanh_t(C x) { return std::tanh(C(kGeluK) * (x + C(kGeluC) * x * x * x)); }
template <typename C> C gelu_tanh_du(C x) { return C(kGeluK) * (C(1) + C(3 * kGeluC) * x * x); }

template <typename C> struct Act2Params {
  C a, b, ia;  // ia = 1 / a (celu's alpha), 0 when a is 0
};

template <typename C> Act2Params<C> act2_params(double a, double b) {
  return {C(a), C(b), C(a != 0 ? 1.0 / a : 0.0)};
}

// mish's tanh(softplus(x)) = n / (n + 2) with n = e (e + 2), e = exp(x); mish(x) = x above 20.
// (The host evaluates e = exp(0) at exactly x = 20; here that point takes the formula, whose
// value there is 20 to float precision.)
template <typename C> C mish_tanh_sp(C x) {
  const C e = std::exp(x);
  const C n = e * (e + C(2));
  return n / (n + C(2));
}

template <typename C> C act2_forward(Act2 op, C x, const Act2Params<C>& p) {
  switch (op) {
    case Act2::Celu: return x > C(0) ? x : p.a * (std::exp(x * p.ia) - C(1));
    case Act2::Selu: return x > C(0) ? p.a * x : p.a * p.b * (std::exp(x) - C(1));
    case Act2::Mish: return x > C(20) ? x : x * mish_tanh_sp(x);
    case Act2::Softsign: return x / (C(1) + std::fabs(x));
    case Act2::Softshrink: return x > p.a ? x - p.a : (x < -p.a ? x + p.a : C(0));
    case Act2::Hardshrink: return (x > p.a || x < -p.a) ? x : C(0);
    case Act2::Hardtanh: return x < p.a ? p.a : (x > p.b ? p.b : x);
    case Act2::Tanhshrink: return x - std::tanh(x);
    case Act2::ThresholdedRelu: return x > p.a ? x : p.b;
    case Act2::LogSigmoid: return std::min(x, C(0)) - std::log1p(std::exp(-std::fabs(x)));
    case Act2::Swish: return x * stable_sigmoid(x);
    case Act2::Relu: return x > C(0) ? x : C(0);
    case Act2::Gelu: return x * gelu_cdf(x);
    case Act2::GeluTanh: return C(0.5) * x * (C(1) + gelu_tanh_t(x));
    case Act2::kCount: break;
  }
  return x;
}

// g * op'(x)
template <typename C> C act2_backward(Act2 op, C x, C g, const Act2Params<C>& p) {
  switch (op) {
    case Act2::Celu: return x > C(0) ? g : g * std::exp(x * p.ia);
    case Act2::Selu: return x > C(0) ? g * p.a : g * p.a * p.b * std::exp(x);
    case Act2::Mish: {
      if (x > C(20)) return g;
      const C t = mish_tanh_sp(x);  // d/dx x tanh(sp(x)) = t + x (1 - t^2) sigmoid(x)
      return g * (t + x * (C(1) - t * t) * stable_sigmoid(x));
    }
    case Act2::Softsign: {
      const C d = C(1) + std::fabs(x);
      return g / (d * d);
    }
    case Act2::Softshrink:
    case Act2::Hardshrink: return (x > p.a || x < -p.a) ? g : C(0);
    case Act2::Hardtanh: return (x > p.a && x < p.b) ? g : C(0);
    case Act2::Tanhshrink: {
      const C t = std::tanh(x);
      return g * t * t;
    }
    case Act2::ThresholdedRelu: return x > p.a ? g : C(0);
    case Act2::LogSigmoid: return g * stable_sigmoid(-x);
    case Act2::Swish: {
      const C s = stable_sigmoid(x);
      return g * s * (C(1) + x * (C(1) - s));
    }
    case Act2::Relu: return x > C(0) ? g : C(0);  // x is relu's output
    case Act2::Gelu: return g * (gelu_cdf(x) + x * gelu_pdf(x));
    case Act2::GeluTanh: {
      const C t = gelu_tanh_t(x);
      return g * (C(0.5) * (C(1) + t) + C(0.5) * x * (C(1) - t * t) * gelu_tanh_du(x));
    }
    case Act2::kCount: break;
  }
  return g;
}

// g * op''(x) (0 for the piecewise-linear ops)
template <typename C> C act2_second(Act2 op, C x, C g, const Act2Params<C>& p) {
  const C one = C(1), two = C(2);
  switch (op) {
    case Act2::Celu: return x > C(0) ? C(0) : g * std::exp(x * p.ia) * p.ia;
    case Act2::Selu: return x > C(0) ? C(0) : g * p.a * p.b * std::exp(x);
    case Act2::Mish: {
      if (x > C(20)) return C(0);
      // with t = tanh(softplus(x)), s = sigmoid(x), u = (1 - t^2) s: f'' = 2 u + x u ((1 - s) - 2 t s)
      const C t = mish_tanh_sp(x);
      const C s = stable_sigmoid(x);
      const C u = (one - t * t) * s;
      return g * (two * u + x * u * ((one - s) - two * t * s));
    }
    case Act2::Softsign: {
      const C d = one + std::fabs(x);
      const C r = -two / (d * d * d);
      return g * (x < C(0) ? -r : (x > C(0) ? r : C(0)));
    }
    case Act2::Softshrink:
    case Act2::Hardshrink:
    case Act2::Hardtanh:
    case Act2::ThresholdedRelu: return C(0);
    case Act2::Tanhshrink: {
      const C t = std::tanh(x);
      return g * two * t * (one - t * t);
    }
    case Act2::LogSigmoid: {
      const C s = stable_sigmoid(x);
      return -g * s * (one - s);
    }
    case Act2::Swish: {
      const C s = stable_sigmoid(x);
      return g * s * (one - s) * (two + x * (one - two * s));
    }
    case Act2::Relu: return C(0);
    case Act2::Gelu: return g * gelu_pdf(x) * (two - x * x);
    case Act2::GeluTanh: {  // (1 - t^2) (u' + x (u'' - 2 t u'^2) / 2)
      const C t = gelu_tanh_t(x), du = gelu_tanh_du(x), d2u = C(6 * kGeluK * kGeluC) * x;
      return g * (one - t * t) * (du + C(0.5) * x * (d2u - two * t * du * du));
    }
    case Act2::kCount: break;
  }
  return C(0);
}

// The forward ops' attributes as act2's (a, b), by their spec names and defaults.
void act2_attrs(const OarKernelContext* ctx, Act2 op, double& a, double& b) {
  a = b = 0.0;
  switch (op) {
    case Act2::Celu: a = float_attr(ctx, "alpha", 1.0); break;
    case Act2::Selu:
      a = float_attr(ctx, "scale", 1.0507009873554805);
      b = float_attr(ctx, "alpha", 1.6732632423543772);
      break;
    case Act2::Softshrink:
    case Act2::Hardshrink: a = float_attr(ctx, "threshold", 0.5); break;
    case Act2::Hardtanh:
      a = float_attr(ctx, "min", -1.0);
      b = float_attr(ctx, "max", 1.0);
      break;
    case Act2::ThresholdedRelu:
      a = float_attr(ctx, "threshold", 1.0);
      b = float_attr(ctx, "value", 0.0);
      break;
    default: break;
  }
}

template <int64_t I>
OarStatus act2_forward_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    constexpr Act2 op = static_cast<Act2>(I);
    double a, b;
    act2_attrs(ctx, op, a, b);
    float_unary(ctx, [a, b](auto tag) {
      using C = decltype(tag);
      const Act2Params<C> p = act2_params<C>(a, b);
      return [p](C x) { return act2_forward(op, x, p); };
    });
  });
}

// act2_grad (order 1) and act2_grad2 (order 2): x, out_grad; attrs op, a, b.
template <int order>
OarStatus act2_grad_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const int64_t n = int_attr(ctx, "op", -1);
    if (n < 0 || n >= static_cast<int64_t>(Act2::kCount)) fail("op %lld is not an act2 activation", static_cast<long long>(n));
    const Act2 op = static_cast<Act2>(n);
    const double a = float_attr(ctx, "a", 0.0), b = float_attr(ctx, "b", 0.0);
    float_binary(ctx, [op, a, b](auto tag) {
      using C = decltype(tag);
      const Act2Params<C> p = act2_params<C>(a, b);
      return [op, p](C x, C g) { return order == 1 ? act2_backward(op, x, g, p) : act2_second(op, x, g, p); };
    });
  });
}

template <size_t... I>
constexpr std::array<OarKernelFn, sizeof...(I)> act2_table(std::index_sequence<I...>) {
  return {&act2_forward_kernel<static_cast<int64_t>(I)>...};
}

}  // namespace

OarKernelFn act2_kernel(const char* op) {
  static constexpr const char* names[] = {"celu", "selu", "mish", "softsign", "softshrink", "hardshrink",
                                          "hardtanh", "tanhshrink", "thresholded_relu", "log_sigmoid", "swish"};
  static constexpr auto table = act2_table(std::make_index_sequence<size_t(Act2::kCount)>{});
  for (size_t i = 0; i < table.size(); ++i)
    if (std::string_view(names[i]) == op) return table[i];
  return nullptr;
}

OarStatus act2_grad_kernel(const OarKernelContext* ctx) { return act2_grad_kernel<1>(ctx); }
OarStatus act2_grad2_kernel(const OarKernelContext* ctx) { return act2_grad_kernel<2>(ctx); }

OarStatus gelu_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const bool approximate = bool_attr(ctx, "approximate", false);
    float_unary(ctx, [approximate](auto tag) {
      using C = decltype(tag);
      return [approximate](C a) {
        if (approximate) {
          const C k = C(0.7978845608028654);  // sqrt(2/pi)
          return C(C(0.5) * a * (C(1) + std::tanh(k * (a + C(0.044715) * a * a * a))));
        }
        return C(C(0.5) * a * (C(1) + std::erf(a * C(M_SQRT1_2))));
      };
    });
  });
}

OarStatus leaky_relu_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const double slope = float_attr(ctx, "negative_slope", 0.01);
    float_unary(ctx, [slope](auto tag) {
      using C = decltype(tag);
      const C s = C(slope);
      return [s](C a) { return a > C(0) ? a : a * s; };
    });
  });
}

OarStatus elu_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const double alpha = float_attr(ctx, "alpha", 1.0);
    float_unary(ctx, [alpha](auto tag) {
      using C = decltype(tag);
      const C al = C(alpha);
      return [al](C a) { return a > C(0) ? a : C(al * std::expm1(a)); };
    });
  });
}

OarStatus hardsigmoid_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const double slope = float_attr(ctx, "slope", 0.1666667), offset = float_attr(ctx, "offset", 0.5);
    float_unary(ctx, [slope, offset](auto tag) {
      using C = decltype(tag);
      const C s = C(slope), o = C(offset);
      return [s, o](C a) { return std::min(std::max(C(s * a + o), C(0)), C(1)); };
    });
  });
}

OarStatus softplus_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const double beta = float_attr(ctx, "beta", 1.0), threshold = float_attr(ctx, "threshold", 20.0);
    float_unary(ctx, [beta, threshold](auto tag) {
      using C = decltype(tag);
      const C b = C(beta), th = C(threshold);
      return [b, th](C a) { return a * b > th ? a : C(std::log1p(std::exp(a * b)) / b); };
    });
  });
}

namespace {
// A clip bound for integer x: plugins/common/clip_bound.h's rule, as the host's.
template <typename T> T int_bound(const Scalar& s) { return oar_common::int_clip_bound<T>(s.is_float, s.i, s.f); }
}  // namespace

// clip: x; min, max (Scalars). NaN stays NaN, as on the host.
OarStatus clip_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    expect_shape(out, x.shape, "out");
    const Scalar lo_s = scalar_attr(ctx, "min", Scalar{true, -3.4028234663852886e38, 0});
    const Scalar hi_s = scalar_attr(ctx, "max", Scalar{true, 3.4028234663852886e38, 0});
    visit_math_dtype(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>) {
        fail("no clip kernel for bool");
      } else if constexpr (is_int_v<T>) {
        const T lo = int_bound<T>(lo_s), hi = int_bound<T>(hi_s);
        map_elements<T, T>(ctx, out, {x}, [lo, hi](T a) { return a < lo ? lo : (a > hi ? hi : a); });
      } else {
        using C = compute_t<T>;
        const C lo = lo_s.to<C>(), hi = hi_s.to<C>();
        map_elements<T, T>(ctx, out, {x}, [lo, hi](T v) {
          const C a = C(v);
          if (a != a) return v;
          return T(a < lo ? lo : (a > hi ? hi : a));
        });
      }
    });
  });
}

}  // namespace oar_custom_cpu
