// Helpers shared by elementwise2.cu, unary2.cu and activation.cu: precise math overloads for
// float and double, std::min/std::max with the standard's NaN behaviour, wrapping integer
// negation, host-side attribute readers (int, Scalar with its kind) and the two map launchers
// (one input, or two broadcast inputs of one dtype) over run_elementwise.
//
// Contract: map_unary / map_binary check the counts of inputs and outputs, that the inputs share
// a dtype and that the output has the input's dtype (or bool for predicates), resolve the stream,
// then call make(Tag<T>{}) for x's dtype T in the given type list; the returned functor maps
// compute_t<T> values (float for the 16-bit floats) and its result is converted once to the
// output type. A dtype outside the list gives the usual unsupported error.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "plugins/cuda/elementwise.cuh"

namespace oar_cuda {
namespace ew2 {

// ---- device math: the full-precision float or double function by argument type ---------------

#define OAR_EW2_MATH1(name, ffn, dfn)                                    \
  __device__ __forceinline__ float name(float a) { return ffn(a); }     \
  __device__ __forceinline__ double name(double a) { return dfn(a); }
#define OAR_EW2_MATH2(name, ffn, dfn)                                             \
  __device__ __forceinline__ float name(float a, float b) { return ffn(a, b); }  \
  __device__ __forceinline__ double name(double a, double b) { return dfn(a, b); }

OAR_EW2_MATH1(m_exp, expf, exp)
OAR_EW2_MATH1(m_expm1, expm1f, expm1)
OAR_EW2_MATH1(m_log1p, log1pf, log1p)
OAR_EW2_MATH1(m_log2, log2f, log2)
OAR_EW2_MATH1(m_log10, log10f, log10)
OAR_EW2_MATH1(m_tan, tanf, tan)
OAR_EW2_MATH1(m_asin, asinf, asin)
OAR_EW2_MATH1(m_acos, acosf, acos)
OAR_EW2_MATH1(m_atan, atanf, atan)
OAR_EW2_MATH1(m_sinh, sinhf, sinh)
OAR_EW2_MATH1(m_cosh, coshf, cosh)
OAR_EW2_MATH1(m_tanh, tanhf, tanh)
OAR_EW2_MATH1(m_asinh, asinhf, asinh)
OAR_EW2_MATH1(m_acosh, acoshf, acosh)
OAR_EW2_MATH1(m_atanh, atanhf, atanh)
OAR_EW2_MATH1(m_erf, erff, erf)
OAR_EW2_MATH1(m_floor, floorf, floor)
OAR_EW2_MATH1(m_ceil, ceilf, ceil)
OAR_EW2_MATH1(m_trunc, truncf, trunc)
OAR_EW2_MATH1(m_rint, rintf, rint)  // round half to even, as std::nearbyint
OAR_EW2_MATH1(m_fabs, fabsf, fabs)
OAR_EW2_MATH2(m_fmod, fmodf, fmod)
OAR_EW2_MATH2(m_atan2, atan2f, atan2)
OAR_EW2_MATH2(m_fmax, fmaxf, fmax)
OAR_EW2_MATH2(m_fmin, fminf, fmin)
#undef OAR_EW2_MATH1
#undef OAR_EW2_MATH2

// std::max / std::min exactly: max(a, b) = a < b ? b : a, min(a, b) = b < a ? b : a (so a NaN
// in `a` comes through, one in `b` does not).
template <class C> __device__ __forceinline__ C smax(C a, C b) { return a < b ? b : a; }
template <class C> __device__ __forceinline__ C smin(C a, C b) { return b < a ? b : a; }

// Two's complement negation without signed overflow (-INT_MIN == INT_MIN).
template <class C> __device__ __forceinline__ C wrap_neg(C a) {
  using U = std::make_unsigned_t<C>;
  return static_cast<C>(static_cast<U>(U(0) - static_cast<U>(a)));
}

template <class C> constexpr bool is_signed_int_v = std::is_integral_v<C> && std::is_signed_v<C>;

// ---- host-side attributes ---------------------------------------------------------------------

// An int attribute (INT or SCALAR_INT); absent or None gives the fallback.
inline int64_t attr_int(const OarKernelContext* ctx, const char* name, int64_t fallback) {
  const OarAttr* a = oar_find_attr(ctx, name);
  if (!a) return fallback;
  switch (a->kind) {
    case OAR_ATTR_INT: case OAR_ATTR_SCALAR_INT: case OAR_ATTR_BOOL: case OAR_ATTR_SCALAR_BOOL:
      return a->i;
    case OAR_ATTR_FLOAT: case OAR_ATTR_SCALAR_FLOAT: return static_cast<int64_t>(a->f);
    default: return fallback;
  }
}

// A number attribute as double (any numeric kind); absent or None gives the fallback.
inline double attr_float(const OarKernelContext* ctx, const char* name, double fallback) {
  double v = fallback;
  return attr_scalar(ctx, name, &v) ? v : fallback;
}

// A Scalar attribute with its kind: an integer (or bool) Scalar converts to the kernel's type
// from its int64 value, a float one from its double.
struct HostScalar {
  bool is_float = true;
  double f = 0;
  int64_t i = 0;
  double to_double() const { return is_float ? f : static_cast<double>(i); }
};

inline HostScalar attr_host_scalar(const OarKernelContext* ctx, const char* name,
                                   HostScalar fallback) {
  const OarAttr* a = oar_find_attr(ctx, name);
  if (!a) return fallback;
  switch (a->kind) {
    case OAR_ATTR_FLOAT: case OAR_ATTR_SCALAR_FLOAT: case OAR_ATTR_SCALAR_COMPLEX:
      return HostScalar{true, a->f, 0};
    case OAR_ATTR_INT: case OAR_ATTR_SCALAR_INT: case OAR_ATTR_BOOL: case OAR_ATTR_SCALAR_BOOL:
      return HostScalar{false, 0, a->i};
    default: return fallback;
  }
}

// A host value converted to element type T with oar's CPU rules: to bool means != 0; the 16-bit
// floats round through float; a float to an integer type is the type's minimum when NaN or out of
// range (as x86 gives), through int32 for types narrower than 32 bits; integers narrow by
// wrapping.
template <class T>
T host_convert_float(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0.0;
  } else if constexpr (is_float_v<T>) {
    return convert<T>(v);
  } else if constexpr (sizeof(T) < 4) {
    return static_cast<T>(host_convert_float<int32_t>(v));
  } else {
    constexpr double lo = static_cast<double>(std::numeric_limits<std::make_signed_t<T>>::min());
    if constexpr (std::is_signed_v<T>) {
      if (!(v > lo - 1.0 && v < -lo)) return std::numeric_limits<T>::min();
      return static_cast<T>(v);
    } else {
      // unsigned 32/64-bit: through the signed type of the same width, then wrap
      using S = std::make_signed_t<T>;
      return static_cast<T>(host_convert_float<S>(v));
    }
  }
}

template <class T>
T host_convert(const HostScalar& s) {
  if (s.is_float) return host_convert_float<T>(s.f);
  if constexpr (std::is_same_v<T, bool>) return s.i != 0;
  else if constexpr (is_half_v<T>) return convert<T>(static_cast<float>(s.i));
  else return static_cast<T>(s.i);
}

// ---- launchers --------------------------------------------------------------------------------

template <class T, class Out, class Op>
struct UnaryMapFn {
  Op op;
  __device__ Out operator()(T a) const { return convert<Out>(op(to_compute(a))); }
};

template <class T, class Out, class Op>
struct BinaryMapFn {
  Op op;
  __device__ Out operator()(T a, T b) const {
    return convert<Out>(op(to_compute(a), to_compute(b)));
  }
};

// out = op(x): out has x's dtype, or bool when kBoolOut.
template <bool kBoolOut, class TypeList, class Make>
OarStatus map_unary(const OarKernelContext* ctx, TypeList types, Make&& make) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  const int32_t want = kBoolOut ? OAR_BOOL : x.dtype;
  if (out.dtype != want)
    return fail(ctx, "%s on gpu: output dtype %s, expected %s", ctx->op, dtype_name(out.dtype),
                dtype_name(want));
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  const OarTensor* const ins[2] = {&x, nullptr};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(types, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Out = std::conditional_t<kBoolOut, bool, T>;
    const auto op = make(tag);
    st = run_elementwise<Out, T>(ctx, stream, UnaryMapFn<T, Out, decltype(op)>{op}, out, ins);
  });
  return found ? st : unsupported(ctx, x.dtype);
}

// out = op(x, y), x and y of one dtype broadcast to out: out has x's dtype, or bool when
// kBoolOut.
template <bool kBoolOut, class TypeList, class Make>
OarStatus map_binary(const OarKernelContext* ctx, TypeList types, Make&& make) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& y = ctx->inputs[1];
  const OarTensor& out = ctx->outputs[0];
  if (x.dtype != y.dtype)
    return fail(ctx, "%s on gpu needs inputs of one dtype, got %s and %s", ctx->op,
                dtype_name(x.dtype), dtype_name(y.dtype));
  const int32_t want = kBoolOut ? OAR_BOOL : x.dtype;
  if (out.dtype != want)
    return fail(ctx, "%s on gpu: output dtype %s, expected %s", ctx->op, dtype_name(out.dtype),
                dtype_name(want));
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  const OarTensor* const ins[3] = {&x, &y, nullptr};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(types, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Out = std::conditional_t<kBoolOut, bool, T>;
    const auto op = make(tag);
    st = run_elementwise<Out, T, T>(ctx, stream, BinaryMapFn<T, Out, decltype(op)>{op}, out,
                                    ins);
  });
  return found ? st : unsupported(ctx, x.dtype);
}

// make(tag) for a stateless op: Op{}.
template <class Op>
struct MakeStateless {
  template <class Tg> Op operator()(Tg) const { return Op{}; }
};

}  // namespace ew2
}  // namespace oar_cuda
