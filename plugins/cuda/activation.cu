// Activations: silu, relu6, hardswish, gelu, leaky_relu, elu, hardsigmoid, softplus, the act2
// family (celu, selu, mish, softsign, softshrink, hardshrink, hardtanh, tanhshrink,
// thresholded_relu, log_sigmoid, swish) with its first and second derivatives act2_grad and
// act2_grad2, clip (numeric) and masked_fill (any dtype).
//
// Contract: x may be any strided view; out has x's dtype (and shape, or the broadcast shape of the
// two inputs for act2_grad/act2_grad2 and masked_fill). The 16-bit floats compute in float and
// round once; parameters are first converted to the compute type, as custom_cpu does
// (plugins/custom_cpu/activation.cc, whose formulas, thresholds, attribute names and defaults
// these follow exactly): softplus is x where beta * x > threshold; mish is x above 20;
// log_sigmoid is min(x, 0) - log1p(exp(-|x|)); swish and the sigmoid factors of the gradients use
// the overflow-free sigmoid from exp(-|x|). act2_grad(x, out_grad; op, a, b) computes
// out_grad * f'(x), act2_grad2 out_grad * f''(x), with `op` the Act2 number (celu = 0 ... swish =
// 10) and (a, b) the forward's parameters. clip keeps NaN; on integers its bounds saturate to the
// type's range. masked_fill writes `value` (converted to x's dtype) where the bool mask is set.
#include "plugins/common/clip_bound.h"
#include "plugins/cuda/elementwise2.cuh"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

using namespace ew2;

// ---- attribute-free and simple parameterised activations -------------------------------------

struct SiluOp {
  template <class C> __device__ C operator()(C a) const { return a / (C(1) + m_exp(-a)); }
};
struct Relu6Op {
  template <class C> __device__ C operator()(C a) const { return smin(smax(a, C(0)), C(6)); }
};
struct HardswishOp {
  template <class C> __device__ C operator()(C a) const {
    return a * smin(smax(C(a + C(3)), C(0)), C(6)) / C(6);
  }
};

template <class C>
struct GeluOp {
  bool approximate;
  __device__ C operator()(C a) const {
    if (approximate) {
      const C k = C(0.7978845608028654);  // sqrt(2/pi)
      return C(0.5) * a * (C(1) + m_tanh(k * (a + C(0.044715) * a * a * a)));
    }
    return C(0.5) * a * (C(1) + m_erf(a * C(0.70710678118654752440)));  // 1/sqrt(2)
  }
};

template <class C>
struct LeakyReluOp {
  C slope;
  __device__ C operator()(C a) const { return a > C(0) ? a : a * slope; }
};

template <class C>
struct EluOp {
  C alpha;
  __device__ C operator()(C a) const { return a > C(0) ? a : C(alpha * m_expm1(a)); }
};

template <class C>
struct HardsigmoidOp {
  C slope, offset;
  __device__ C operator()(C a) const { return smin(smax(C(slope * a + offset), C(0)), C(1)); }
};

template <class C>
struct SoftplusOp {
  C beta, threshold;
  __device__ C operator()(C a) const {
    return a * beta > threshold ? a : C(m_log1p(m_exp(a * beta)) / beta);
  }
};

// ---- the act2 family: op numbers as oar's kernels::Act2 (the `op` attribute of act2_grad) ----

enum Act2 : int {
  kCelu = 0, kSelu, kMish, kSoftsign, kSoftshrink, kHardshrink, kHardtanh, kTanhshrink,
  kThresholdedRelu, kLogSigmoid, kSwish, kRelu, kGelu, kGeluTanh, kAct2Count
};

template <class C>
struct Act2Params {
  C a, b, ia;  // ia = 1 / a (celu's alpha), 0 when a is 0
};

template <class C>
Act2Params<C> act2_params(double a, double b) {
  return {static_cast<C>(a), static_cast<C>(b), static_cast<C>(a != 0 ? 1.0 / a : 0.0)};
}

// sigmoid(x) from e = exp(-|x|): no overflow on either side.
template <class C>
__device__ __forceinline__ C stable_sigmoid(C x) {
  const C e = m_exp(-m_fabs(x));
  const C r = C(1) / (C(1) + e);
  return x < C(0) ? e * r : r;
}

// mish's tanh(softplus(x)) = n / (n + 2) with n = e (e + 2), e = exp(x) (used for x <= 20).
template <class C>
__device__ __forceinline__ C mish_tanh_sp(C x) {
  const C e = m_exp(x);
  const C n = e * (e + C(2));
  return n / (n + C(2));
}

// gelu's pieces: Phi(x) and phi(x), and the tanh form's t = tanh(u), u = k (x + c x^3), and u'.
constexpr double kGeluK = 0.7978845608028654, kGeluC = 0.044715;
template <class C>
__device__ __forceinline__ C gelu_cdf(C x) { return C(0.5) * (C(1) + m_erf(x * C(0.70710678118654752440))); }
template <class C>
__device__ __forceinline__ C gelu_pdf(C x) { return m_exp(C(-0.5) * x * x) * C(0.39894228040143267794); }
template <class C>
__device__ __forceinline__ C gelu_tanh_t(C x) { return m_tanh(C(kGeluK) * (x + C(kGeluC) * x * x * x)); }
template <class C>
__device__ __forceinline__ C gelu_tanh_du(C x) { return C(kGeluK) * (C(1) + C(3 * kGeluC) * x * x); }

template <class C>
__device__ __forceinline__ C act2_forward(int op, C x, const Act2Params<C>& p) {
  switch (op) {
    case kCelu: return x > C(0) ? x : p.a * (m_exp(x * p.ia) - C(1));
    case kSelu: return x > C(0) ? p.a * x : p.a * p.b * (m_exp(x) - C(1));
    case kMish: return x > C(20) ? x : x * mish_tanh_sp(x);
    case kSoftsign: return x / (C(1) + m_fabs(x));
    case kSoftshrink: return x > p.a ? x - p.a : (x < -p.a ? x + p.a : C(0));
    case kHardshrink: return (x > p.a || x < -p.a) ? x : C(0);
    case kHardtanh: return x < p.a ? p.a : (x > p.b ? p.b : x);
    case kTanhshrink: return x - m_tanh(x);
    case kThresholdedRelu: return x > p.a ? x : p.b;
    case kLogSigmoid: return smin(x, C(0)) - m_log1p(m_exp(-m_fabs(x)));
    case kSwish: return x * stable_sigmoid(x);
    case kRelu: return x > C(0) ? x : C(0);
    case kGelu: return x * gelu_cdf(x);
    case kGeluTanh: return C(0.5) * x * (C(1) + gelu_tanh_t(x));
    default: return x;
  }
}

// g * f'(x)
template <class C>
__device__ __forceinline__ C act2_backward(int op, C x, C g, const Act2Params<C>& p) {
  switch (op) {
    case kCelu: return x > C(0) ? g : g * m_exp(x * p.ia);
    case kSelu: return x > C(0) ? g * p.a : g * p.a * p.b * m_exp(x);
    case kMish: {
      if (x > C(20)) return g;
      const C t = mish_tanh_sp(x);  // d/dx x tanh(sp(x)) = t + x (1 - t^2) sigmoid(x)
      return g * (t + x * (C(1) - t * t) * stable_sigmoid(x));
    }
    case kSoftsign: {
      const C d = C(1) + m_fabs(x);
      return g / (d * d);
    }
    case kSoftshrink:
    case kHardshrink: return (x > p.a || x < -p.a) ? g : C(0);
    case kHardtanh: return (x > p.a && x < p.b) ? g : C(0);
    case kTanhshrink: {
      const C t = m_tanh(x);
      return g * t * t;
    }
    case kThresholdedRelu: return x > p.a ? g : C(0);
    case kLogSigmoid: return g * stable_sigmoid(-x);
    case kSwish: {
      const C s = stable_sigmoid(x);
      return g * s * (C(1) + x * (C(1) - s));
    }
    case kRelu: return x > C(0) ? g : C(0);  // x is relu's output
    case kGelu: return g * (gelu_cdf(x) + x * gelu_pdf(x));
    case kGeluTanh: {
      const C t = gelu_tanh_t(x);
      return g * (C(0.5) * (C(1) + t) + C(0.5) * x * (C(1) - t * t) * gelu_tanh_du(x));
    }
    default: return g;
  }
}

// g * f''(x) (0 for the piecewise-linear ops)
template <class C>
__device__ __forceinline__ C act2_second(int op, C x, C g, const Act2Params<C>& p) {
  const C one = C(1), two = C(2);
  switch (op) {
    case kCelu: return x > C(0) ? C(0) : g * m_exp(x * p.ia) * p.ia;
    case kSelu: return x > C(0) ? C(0) : g * p.a * p.b * m_exp(x);
    case kMish: {
      if (x > C(20)) return C(0);
      // t = tanh(softplus(x)), s = sigmoid(x), u = (1 - t^2) s: f'' = 2 u + x u ((1 - s) - 2 t s)
      const C t = mish_tanh_sp(x);
      const C s = stable_sigmoid(x);
      const C u = (one - t * t) * s;
      return g * (two * u + x * u * ((one - s) - two * t * s));
    }
    case kSoftsign: {
      const C d = one + m_fabs(x);
      const C r = -two / (d * d * d);
      return g * (x < C(0) ? -r : (x > C(0) ? r : C(0)));
    }
    case kTanhshrink: {
      const C t = m_tanh(x);
      return g * two * t * (one - t * t);
    }
    case kLogSigmoid: {
      const C s = stable_sigmoid(x);
      return -g * s * (one - s);
    }
    case kSwish: {
      const C s = stable_sigmoid(x);
      return g * s * (one - s) * (two + x * (one - two * s));
    }
    case kGelu: return g * gelu_pdf(x) * (two - x * x);
    case kGeluTanh: {  // (1 - t^2) (u' + x (u'' - 2 t u'^2) / 2)
      const C t = gelu_tanh_t(x), du = gelu_tanh_du(x), d2u = C(6 * kGeluK * kGeluC) * x;
      return g * (one - t * t) * (du + C(0.5) * x * (d2u - two * t * du * du));
    }
    default: return C(0);  // relu, softshrink, hardshrink, hardtanh, thresholded_relu
  }
}

template <int kOp, class C>
struct Act2ForwardOp {
  Act2Params<C> p;
  __device__ C operator()(C x) const { return act2_forward(kOp, x, p); }
};

template <int kOrder, class C>
struct Act2GradOp {
  int op;
  Act2Params<C> p;
  __device__ C operator()(C x, C g) const {
    if constexpr (kOrder == 1) return act2_backward(op, x, g, p);
    else return act2_second(op, x, g, p);
  }
};

// The forward ops' attributes as act2's (a, b), by their spec names and defaults.
void act2_attrs(const OarKernelContext* ctx, int op, double* a, double* b) {
  *a = *b = 0.0;
  switch (op) {
    case kCelu: *a = attr_float(ctx, "alpha", 1.0); break;
    case kSelu:
      *a = attr_float(ctx, "scale", 1.0507009873554805);
      *b = attr_float(ctx, "alpha", 1.6732632423543772);
      break;
    case kSoftshrink:
    case kHardshrink: *a = attr_float(ctx, "threshold", 0.5); break;
    case kHardtanh:
      *a = attr_float(ctx, "min", -1.0);
      *b = attr_float(ctx, "max", 1.0);
      break;
    case kThresholdedRelu:
      *a = attr_float(ctx, "threshold", 1.0);
      *b = attr_float(ctx, "value", 0.0);
      break;
    default: break;
  }
}

template <int kOp>
OarStatus act2_forward_kernel(const OarKernelContext* ctx) {
  double a, b;
  act2_attrs(ctx, kOp, &a, &b);
  return map_unary<false>(ctx, FloatTypes{}, [&](auto tag) {
    using C = compute_t<typename decltype(tag)::type>;
    return Act2ForwardOp<kOp, C>{act2_params<C>(a, b)};
  });
}

template <int kOrder>
OarStatus act2_grad_kernel(const OarKernelContext* ctx) {
  const int64_t op = attr_int(ctx, "op", -1);
  if (op < 0 || op >= kAct2Count)
    return fail(ctx, "%s on gpu: op %lld is not an act2 activation", ctx->op,
                static_cast<long long>(op));
  const double a = attr_float(ctx, "a", 0.0), b = attr_float(ctx, "b", 0.0);
  return map_binary<false>(ctx, FloatTypes{}, [&](auto tag) {
    using C = compute_t<typename decltype(tag)::type>;
    return Act2GradOp<kOrder, C>{static_cast<int>(op), act2_params<C>(a, b)};
  });
}

// ---- clip and masked_fill ----------------------------------------------------------------------

// A clip bound for integer x: plugins/common/clip_bound.h's rule, as the host's.
template <typename T> T int_bound(const HostScalar& s) { return oar_common::int_clip_bound<T>(s.is_float, s.i, s.f); }

template <class T>
struct ClipIntFn {
  T lo, hi;
  __device__ T operator()(T a) const { return a < lo ? lo : (a > hi ? hi : a); }
};

template <class T>
struct ClipFloatFn {
  compute_t<T> lo, hi;
  __device__ T operator()(T v) const {
    const compute_t<T> a = to_compute(v);
    if (a != a) return v;  // NaN stays
    return convert<T>(a < lo ? lo : (a > hi ? hi : a));
  }
};

template <class T>
struct MaskedFillFn {
  T value;
  __device__ T operator()(T a, bool m) const { return m ? value : a; }
};

}  // namespace

OarStatus k_silu(const OarKernelContext* c) {
  return map_unary<false>(c, FloatTypes{}, MakeStateless<SiluOp>{});
}
OarStatus k_relu6(const OarKernelContext* c) {
  return map_unary<false>(c, FloatTypes{}, MakeStateless<Relu6Op>{});
}
OarStatus k_hardswish(const OarKernelContext* c) {
  return map_unary<false>(c, FloatTypes{}, MakeStateless<HardswishOp>{});
}

OarStatus k_gelu(const OarKernelContext* ctx) {
  const bool approximate = attr_bool(ctx, "approximate", false);
  return map_unary<false>(ctx, FloatTypes{}, [&](auto tag) {
    using C = compute_t<typename decltype(tag)::type>;
    return GeluOp<C>{approximate};
  });
}

OarStatus k_leaky_relu(const OarKernelContext* ctx) {
  const double slope = attr_float(ctx, "negative_slope", 0.01);
  return map_unary<false>(ctx, FloatTypes{}, [&](auto tag) {
    using C = compute_t<typename decltype(tag)::type>;
    return LeakyReluOp<C>{static_cast<C>(slope)};
  });
}

OarStatus k_elu(const OarKernelContext* ctx) {
  const double alpha = attr_float(ctx, "alpha", 1.0);
  return map_unary<false>(ctx, FloatTypes{}, [&](auto tag) {
    using C = compute_t<typename decltype(tag)::type>;
    return EluOp<C>{static_cast<C>(alpha)};
  });
}

OarStatus k_hardsigmoid(const OarKernelContext* ctx) {
  const double slope = attr_float(ctx, "slope", 0.1666667);
  const double offset = attr_float(ctx, "offset", 0.5);
  return map_unary<false>(ctx, FloatTypes{}, [&](auto tag) {
    using C = compute_t<typename decltype(tag)::type>;
    return HardsigmoidOp<C>{static_cast<C>(slope), static_cast<C>(offset)};
  });
}

OarStatus k_softplus(const OarKernelContext* ctx) {
  const double beta = attr_float(ctx, "beta", 1.0);
  const double threshold = attr_float(ctx, "threshold", 20.0);
  return map_unary<false>(ctx, FloatTypes{}, [&](auto tag) {
    using C = compute_t<typename decltype(tag)::type>;
    return SoftplusOp<C>{static_cast<C>(beta), static_cast<C>(threshold)};
  });
}

OarStatus k_celu(const OarKernelContext* c) { return act2_forward_kernel<kCelu>(c); }
OarStatus k_selu(const OarKernelContext* c) { return act2_forward_kernel<kSelu>(c); }
OarStatus k_mish(const OarKernelContext* c) { return act2_forward_kernel<kMish>(c); }
OarStatus k_softsign(const OarKernelContext* c) { return act2_forward_kernel<kSoftsign>(c); }
OarStatus k_softshrink(const OarKernelContext* c) { return act2_forward_kernel<kSoftshrink>(c); }
OarStatus k_hardshrink(const OarKernelContext* c) { return act2_forward_kernel<kHardshrink>(c); }
OarStatus k_hardtanh(const OarKernelContext* c) { return act2_forward_kernel<kHardtanh>(c); }
OarStatus k_tanhshrink(const OarKernelContext* c) { return act2_forward_kernel<kTanhshrink>(c); }
OarStatus k_thresholded_relu(const OarKernelContext* c) {
  return act2_forward_kernel<kThresholdedRelu>(c);
}
OarStatus k_log_sigmoid(const OarKernelContext* c) { return act2_forward_kernel<kLogSigmoid>(c); }
OarStatus k_swish(const OarKernelContext* c) { return act2_forward_kernel<kSwish>(c); }
OarStatus k_act2_grad(const OarKernelContext* c) { return act2_grad_kernel<1>(c); }
OarStatus k_act2_grad2(const OarKernelContext* c) { return act2_grad_kernel<2>(c); }

// clip: x; min, max (Scalars, default -+3.4028234663852886e38).
OarStatus k_clip(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (out.dtype != x.dtype)
    return fail(ctx, "%s on gpu: output dtype %s differs from the input's %s", ctx->op,
                dtype_name(out.dtype), dtype_name(x.dtype));
  const HostScalar lo_s = attr_host_scalar(ctx, "min", HostScalar{true, -3.4028234663852886e38, 0});
  const HostScalar hi_s = attr_host_scalar(ctx, "max", HostScalar{true, 3.4028234663852886e38, 0});
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  const OarTensor* const ins[2] = {&x, nullptr};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(NumericTypes{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      const ClipIntFn<T> f{int_bound<T>(lo_s), int_bound<T>(hi_s)};
      st = run_elementwise<T, T>(ctx, stream, f, out, ins);
    } else {
      using C = compute_t<T>;
      // As the CPU: a float Scalar converts from its double, an int one from its int64.
      const C lo = lo_s.is_float ? static_cast<C>(lo_s.f) : static_cast<C>(lo_s.i);
      const C hi = hi_s.is_float ? static_cast<C>(hi_s.f) : static_cast<C>(hi_s.i);
      st = run_elementwise<T, T>(ctx, stream, ClipFloatFn<T>{lo, hi}, out, ins);
    }
  });
  return found ? st : unsupported(ctx, x.dtype);
}

// masked_fill: x, mask (bool, broadcast); value (Scalar). out = mask ? value : x.
OarStatus k_masked_fill(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& mask = ctx->inputs[1];
  const OarTensor& out = ctx->outputs[0];
  if (mask.dtype != OAR_BOOL)
    return fail(ctx, "%s on gpu: mask must be bool, got %s", ctx->op, dtype_name(mask.dtype));
  if (out.dtype != x.dtype)
    return fail(ctx, "%s on gpu: output dtype %s differs from the input's %s", ctx->op,
                dtype_name(out.dtype), dtype_name(x.dtype));
  const HostScalar value = attr_host_scalar(ctx, "value", HostScalar{false, 0, 0});
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  const OarTensor* const ins[3] = {&x, &mask, nullptr};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(AllTypes{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const MaskedFillFn<T> f{host_convert<T>(value)};
    st = run_elementwise<T, T, bool>(ctx, stream, f, out, ins);
  });
  return found ? st : unsupported(ctx, x.dtype);
}

}  // namespace oar_cuda
