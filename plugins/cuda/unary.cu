// Unary elementwise ops (relu, exp, log, sqrt, rsqrt, tanh, sigmoid, abs, neg, square, sin, cos,
// reciprocal), scale and pow with a Scalar exponent. Input views may be strided.
//
// Contract: out has x's dtype. Transcendental ops take float dtypes only (oar casts integer
// inputs to float first: `float_inputs` in the op specs); relu, abs, neg, square, scale and pow
// also take int32/int64. Math follows oar's CPU kernels: 16-bit floats compute in float, full
// precision libm-style functions (no fast-math intrinsics), integer scale computes in double and
// truncates, integer pow rounds pow(double(x), y) to the nearest integer.
#include <cmath>

#include "plugins/cuda/elementwise.cuh"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

#define OAR_FLOAT_FN(Name, float_expr, double_expr)                       \
  struct Name {                                                           \
    template <class C> __device__ C operator()(C a) const {               \
      if constexpr (std::is_same_v<C, float>) return float_expr;          \
      else return double_expr;                                            \
    }                                                                     \
  };

OAR_FLOAT_FN(ExpOp, expf(a), exp(a))
OAR_FLOAT_FN(LogOp, logf(a), log(a))
OAR_FLOAT_FN(SqrtOp, sqrtf(a), sqrt(a))
OAR_FLOAT_FN(RsqrtOp, rsqrtf(a), rsqrt(a))
OAR_FLOAT_FN(TanhOp, tanhf(a), tanh(a))
OAR_FLOAT_FN(SigmoidOp, 1.0f / (1.0f + expf(-a)), 1.0 / (1.0 + exp(-a)))
OAR_FLOAT_FN(SinOp, sinf(a), sin(a))
OAR_FLOAT_FN(CosOp, cosf(a), cos(a))
OAR_FLOAT_FN(ReciprocalOp, 1.0f / a, 1.0 / a)
#undef OAR_FLOAT_FN

struct ReluOp {
  template <class C> __device__ C operator()(C a) const { return a > C(0) ? a : C(0); }
};
struct AbsOp {
  template <class C> __device__ C operator()(C a) const { return a < C(0) ? -a : a; }
};
struct NegOp { template <class C> __device__ C operator()(C a) const { return -a; } };
struct SquareOp { template <class C> __device__ C operator()(C a) const { return a * a; } };

template <class T, class Op>
struct UnaryFn {
  __device__ T operator()(T a) const { return convert<T>(Op{}(to_compute(a))); }
};

// Checks the common shape of a same-dtype unary op and resolves the stream.
OarStatus begin_unary(const OarKernelContext* ctx, cudaStream_t* stream) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  if (ctx->outputs[0].dtype != ctx->inputs[0].dtype)
    return fail(ctx, "%s on gpu: output dtype %s differs from the input's %s", ctx->op,
                dtype_name(ctx->outputs[0].dtype), dtype_name(ctx->inputs[0].dtype));
  return begin_kernel(ctx, stream);
}

template <class Op, class TypeList>
OarStatus unary(const OarKernelContext* ctx, TypeList types) {
  cudaStream_t stream;
  if (OarStatus st = begin_unary(ctx, &stream)) return st;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor* const ins[2] = {&x, nullptr};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(types, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = run_elementwise<T, T>(ctx, stream, UnaryFn<T, Op>{}, ctx->outputs[0], ins);
  });
  return found ? st : unsupported(ctx, x.dtype);
}

// scale: S is the type the affine map runs in (double for integers and float64).
template <class T, class S>
struct ScaleFn {
  S scale, bias;
  bool bias_after_scale;
  __device__ T operator()(T a) const {
    const S v = static_cast<S>(to_compute(a));
    return convert<T>(bias_after_scale ? v * scale + bias : (v + bias) * scale);
  }
};

// pow with a Scalar exponent; mode 2 and 1 pick the exact square and sqrt, as the CPU kernel.
template <class T>
struct PowScalarFn {
  double e;
  int mode;  // 0: pow, 1: sqrt, 2: square
  __device__ T operator()(T a) const {
    using C = compute_t<T>;
    const C v = to_compute(a);
    if constexpr (std::is_integral_v<C>) {
      return static_cast<T>(llround(pow(static_cast<double>(v), e)));
    } else if constexpr (std::is_same_v<C, float>) {
      const float r = mode == 2 ? v * v : (mode == 1 ? sqrtf(v) : powf(v, static_cast<float>(e)));
      return convert<T>(r);
    } else {
      return mode == 2 ? v * v : (mode == 1 ? sqrt(v) : pow(v, e));
    }
  }
};

}  // namespace

OarStatus k_relu(const OarKernelContext* c) { return unary<ReluOp>(c, NumericTypes{}); }
OarStatus k_exp(const OarKernelContext* c) { return unary<ExpOp>(c, FloatTypes{}); }
OarStatus k_log(const OarKernelContext* c) { return unary<LogOp>(c, FloatTypes{}); }
OarStatus k_sqrt(const OarKernelContext* c) { return unary<SqrtOp>(c, FloatTypes{}); }
OarStatus k_rsqrt(const OarKernelContext* c) { return unary<RsqrtOp>(c, FloatTypes{}); }
OarStatus k_tanh(const OarKernelContext* c) { return unary<TanhOp>(c, FloatTypes{}); }
OarStatus k_sigmoid(const OarKernelContext* c) { return unary<SigmoidOp>(c, FloatTypes{}); }
OarStatus k_abs(const OarKernelContext* c) { return unary<AbsOp>(c, NumericTypes{}); }
OarStatus k_neg(const OarKernelContext* c) { return unary<NegOp>(c, NumericTypes{}); }
OarStatus k_square(const OarKernelContext* c) { return unary<SquareOp>(c, NumericTypes{}); }
OarStatus k_sin(const OarKernelContext* c) { return unary<SinOp>(c, FloatTypes{}); }
OarStatus k_cos(const OarKernelContext* c) { return unary<CosOp>(c, FloatTypes{}); }
OarStatus k_reciprocal(const OarKernelContext* c) { return unary<ReciprocalOp>(c, FloatTypes{}); }

OarStatus k_scale(const OarKernelContext* ctx) {
  cudaStream_t stream;
  if (OarStatus st = begin_unary(ctx, &stream)) return st;
  double scale = 1.0, bias = 0.0;
  attr_scalar(ctx, "scale", &scale);
  attr_scalar(ctx, "bias", &bias);
  const bool after = attr_bool(ctx, "bias_after_scale", true);
  const OarTensor& x = ctx->inputs[0];
  const OarTensor* const ins[2] = {&x, nullptr};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(NumericTypes{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using S = std::conditional_t<std::is_same_v<compute_t<T>, float>, float, double>;
    const ScaleFn<T, S> f{static_cast<S>(scale), static_cast<S>(bias), after};
    st = run_elementwise<T, T>(ctx, stream, f, ctx->outputs[0], ins);
  });
  return found ? st : unsupported(ctx, x.dtype);
}

OarStatus k_pow(const OarKernelContext* ctx) {
  cudaStream_t stream;
  if (OarStatus st = begin_unary(ctx, &stream)) return st;
  double e = 1.0;
  attr_scalar(ctx, "y", &e);
  const OarTensor& x = ctx->inputs[0];
  const OarTensor* const ins[2] = {&x, nullptr};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(NumericTypes{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    // The CPU kernel compares the exponent in the compute type (float for 16-bit floats).
    const C ec = static_cast<C>(e);
    const int mode = std::is_integral_v<C> ? 0 : (ec == C(2) ? 2 : (ec == C(0.5) ? 1 : 0));
    st = run_elementwise<T, T>(ctx, stream, PowScalarFn<T>{e, mode}, ctx->outputs[0], ins);
  });
  return found ? st : unsupported(ctx, x.dtype);
}

}  // namespace oar_cuda
