// More reductions on reduce.cuh's engine: prod, all, any, logsumexp, p_norm (over a set of axes)
// and argmax, argmin (over one axis or all). amax/amin are reduce.cu's max/min (plugin.cc).
//
// Contract (plugins/custom_cpu/reduce.cc is the reference): attrs axis (INT_ARRAY; empty, absent
// or None = all axes; negative entries count from the end) and keepdim (only the output's shape,
// already computed by oar); the output is contiguous in row-major order of the kept dims.
// - prod: out's dtype is the dtype attr's; an input that does not accumulate into it is cast
//   first (as sum); accumulation float (16-bit floats, float32), double (float64) or wrapping
//   int64 (integers, bool); empty set: 1.
// - all / any: any input dtype, bool out; an element is true when nonzero (NaN is true); empty:
//   true / false.
// - logsumexp: float dtypes, out alike; the running (max, sum of exp(x - max)) pairs are merged,
//   so large inputs do not overflow; -inf adds nothing, +inf gives +inf, NaN gives NaN; empty:
//   -inf.
// - p_norm: float dtypes; porder (float, default 2): inf / -inf give max / min |x| (NaN
//   propagates; an empty set is an error), 0 counts nonzeros, 1 sums |x|, 2 is sqrt(sum x^2),
//   others (sum |x|^p)^(1/p) (an empty set gives 0, or inf for p < 0).
// - argmax / argmin: axis is an int or None (None: the flat row-major index over all of x);
//   out int64 or int32; the first best index wins; NaN is passed over unless every value is NaN
//   (index 0); an empty set is an error. Ties resolve by position inside the policy, so the
//   parallel grouping gives the sequential answer.
#include <cmath>

#include "plugins/cuda/common.h"
#include "plugins/cuda/dtype.cuh"
#include "plugins/cuda/kernels.h"
#include "plugins/cuda/reduce.cuh"

namespace oar_cuda {
namespace {

template <class T>
using acc2_t = std::conditional_t<std::is_same_v<T, double>, double,
                                  std::conditional_t<is_float_v<T>, float, int64_t>>;

template <class AccT>
struct ProdPolicy {
  using Acc = AccT;
  void* out;
  int32_t dtype;
  __device__ Acc identity() const { return Acc(1); }
  __device__ Acc combine(Acc a, Acc b) const {
    if constexpr (std::is_integral_v<Acc>)  // wraps as two's complement, as the CPU kernel
      return static_cast<Acc>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    else return a * b;
  }
  template <class T>
  __device__ Acc load(T v, int64_t) const { return static_cast<Acc>(to_compute(v)); }
  __device__ void store(uint32_t o, Acc v) const { store_as(out, dtype, o, v); }
};

template <bool kAll>
struct LogicalPolicy {
  using Acc = int32_t;
  bool* out;
  __device__ Acc identity() const { return kAll ? 1 : 0; }
  __device__ Acc combine(Acc a, Acc b) const { return kAll ? (a & b) : (a | b); }
  template <class T>
  __device__ Acc load(T v, int64_t) const {
    if constexpr (std::is_same_v<T, bool>) return v ? 1 : 0;
    else return to_compute(v) != compute_t<T>(0) ? 1 : 0;
  }
  __device__ void store(uint32_t o, Acc v) const { out[o] = v != 0; }
};

template <class C>
struct LseAcc {
  C m;  // running maximum (-inf when empty)
  C s;  // sum of exp(x - m); 0 only for the empty set
};

template <class T>
struct LsePolicy {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  using Acc = LseAcc<C>;
  T* out;
  __device__ Acc identity() const { return Acc{-INFINITY, C(0)}; }
  __device__ Acc combine(Acc a, Acc b) const {
    if (b.s == C(0)) return a;
    if (a.s == C(0)) return b;
    if (a.m != a.m || b.m != b.m) return Acc{NAN, C(1)};
    if (a.m < b.m) {
      const Acc t = a;
      a = b;
      b = t;
    }
    if (b.m == a.m) return Acc{a.m, a.s + b.s};  // also both +inf or both -inf
    return Acc{a.m, a.s + b.s * exp(b.m - a.m)};
  }
  template <class U>
  __device__ Acc load(U v, int64_t) const { return Acc{static_cast<C>(to_compute(v)), C(1)}; }
  __device__ void store(uint32_t o, Acc v) const {
    out[o] = convert<T>(v.s == C(0) ? C(-INFINITY) : v.m + log(v.s));
  }
};

enum NormMode { kNormMax, kNormMin, kNormZero, kNormOne, kNormTwo, kNormP };

template <class T>
struct NormPolicy {
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  T* out;
  int32_t mode;
  Acc p;
  __device__ Acc identity() const { return mode == kNormMin ? Acc(INFINITY) : Acc(0); }
  __device__ Acc combine(Acc a, Acc b) const {
    if (mode == kNormMax || mode == kNormMin) {
      if (a != a) return a;  // NaN propagates
      if (b != b) return b;
      return mode == kNormMax ? (b > a ? b : a) : (b < a ? b : a);
    }
    return a + b;
  }
  template <class U>
  __device__ Acc load(U v, int64_t) const {
    const Acc m = fabs(static_cast<Acc>(to_compute(v)));
    switch (mode) {
      case kNormZero: return m != Acc(0) ? Acc(1) : Acc(0);
      case kNormTwo: return m * m;
      case kNormP: return pow(m, p);
      default: return m;  // max, min, one
    }
  }
  __device__ void store(uint32_t o, Acc v) const {
    if (mode == kNormTwo) v = sqrt(v);
    else if (mode == kNormP) v = pow(v, Acc(1) / p);
    out[o] = convert<T>(v);
  }
};

template <class C>
struct ArgAcc {
  C v;
  int64_t i;  // position; -1: empty
};

template <class T>
struct ArgPolicy {
  using C = compute_t<T>;
  using Acc = ArgAcc<C>;
  void* out;
  int32_t dtype;  // int32 or int64
  bool is_min;
  __device__ Acc identity() const { return Acc{C(0), -1}; }
  __device__ Acc combine(Acc a, Acc b) const {
    if (b.i < 0) return a;
    if (a.i < 0) return b;
    if constexpr (is_float_v<T>) {
      const bool an = a.v != a.v, bn = b.v != b.v;
      if (an != bn) return an ? b : a;  // a number beats NaN
      if (an) return b.i < a.i ? b : a;  // all NaN: the first
    }
    const bool better = is_min ? b.v < a.v : b.v > a.v;
    if (better || (b.v == a.v && b.i < a.i)) return b;
    return a;
  }
  template <class U>
  __device__ Acc load(U v, int64_t pos) const { return Acc{to_compute(v), pos}; }
  __device__ void store(uint32_t o, Acc v) const {
    if (dtype == OAR_INT64) static_cast<int64_t*>(out)[o] = v.i;
    else static_cast<int32_t*>(out)[o] = static_cast<int32_t>(v.i);
  }
};

// Plans the reduction of x over `reduced` into out_numel outputs and launches it with the policy
// make(Tag<T>) for x's element type (one of `types`).
template <class TypeList, class Make>
OarStatus reduce_with(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& x,
                      const bool (&reduced)[64], int64_t out_numel, TypeList types,
                      Make&& make) {
  ReduceArgs a;
  bool rows = false;
  if (!plan_reduce(ctx, x, reduced, out_numel, &a, &rows)) return OAR_STATUS_ERROR;
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(types, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = launch_reduce(ctx, stream, static_cast<const T*>(x.data), a, rows, make(tag));
  });
  return found ? st : unsupported(ctx, x.dtype);
}

// The common start: one input and output, dtypes this plug-in knows, the reduced axes.
OarStatus begin_reduce(const OarKernelContext* ctx, bool (&reduced)[64], cudaStream_t* stream) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (dtype_size(x.dtype) == 0) return unsupported(ctx, x.dtype);
  if (dtype_size(out.dtype) == 0) return unsupported(ctx, out.dtype);
  if (!is_contiguous(out)) return fail(ctx, "%s on gpu: out must be contiguous", ctx->op);
  if (!reduce_axes(ctx, x, reduced)) return OAR_STATUS_ERROR;
  return begin_kernel(ctx, stream);
}

OarStatus same_dtype(const OarKernelContext* ctx) {
  const int32_t in = ctx->inputs[0].dtype, out = ctx->outputs[0].dtype;
  if (in == out) return OAR_STATUS_OK;
  return fail(ctx, "%s on gpu: output dtype %s differs from the input's %s", ctx->op,
              dtype_name(out), dtype_name(in));
}

bool is_float_dtype(int32_t d) {
  return d == OAR_FLOAT16 || d == OAR_BFLOAT16 || d == OAR_FLOAT32 || d == OAR_FLOAT64;
}

template <bool kAll>
OarStatus logical(const OarKernelContext* ctx) {
  bool reduced[64];
  cudaStream_t stream;
  if (OarStatus st = begin_reduce(ctx, reduced, &stream)) return st;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (out.dtype != OAR_BOOL)
    return fail(ctx, "%s on gpu: out must be bool, got %s", ctx->op, dtype_name(out.dtype));
  if (out.numel == 0) return OAR_STATUS_OK;
  return reduce_with(ctx, stream, x, reduced, out.numel, AllTypes{}, [&](auto) {
    return LogicalPolicy<kAll>{static_cast<bool*>(out.data)};
  });
}

OarStatus arg_reduce(const OarKernelContext* ctx, bool is_min) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (x.ndim > 64) return fail(ctx, "%s on gpu: too many dims (%d)", ctx->op, x.ndim);
  if (out.dtype != OAR_INT64 && out.dtype != OAR_INT32)
    return fail(ctx, "%s on gpu: out must be int32 or int64, got %s", ctx->op,
                dtype_name(out.dtype));
  if (!is_contiguous(out)) return fail(ctx, "%s on gpu: out must be contiguous", ctx->op);
  const int nd = x.ndim;
  bool reduced[64] = {};
  const OarAttr* axis = oar_find_attr(ctx, "axis");
  if (axis && axis->kind != OAR_ATTR_NONE) {
    if (axis->kind != OAR_ATTR_INT && axis->kind != OAR_ATTR_SCALAR_INT)
      return fail(ctx, "%s on gpu: axis must be an int", ctx->op);
    const int64_t a = axis->i;
    if (nd == 0 ? (a != 0 && a != -1) : (a < -nd || a >= nd))
      return fail(ctx, "%s on gpu: axis %lld is out of range for x with %d dimensions", ctx->op,
                  static_cast<long long>(a), nd);
    if (nd > 0) reduced[a < 0 ? a + nd : a] = true;
  } else {
    for (int d = 0; d < nd; ++d) reduced[d] = true;
  }
  int64_t slots = 1;
  for (int d = 0; d < nd; ++d)
    if (!reduced[d]) slots *= x.shape[d];
  if (out.numel != slots)
    return fail(ctx, "%s on gpu: out has %lld elements, expected %lld", ctx->op,
                static_cast<long long>(out.numel), static_cast<long long>(slots));
  if (x.numel == 0 && slots > 0)
    return fail(ctx, "%s on gpu: cannot take the %s over a zero-size dimension", ctx->op,
                is_min ? "min" : "max");
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (slots == 0) return OAR_STATUS_OK;
  return reduce_with(ctx, stream, x, reduced, slots, AllTypes{}, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return ArgPolicy<T>{out.data, out.dtype, is_min};
  });
}

}  // namespace

OarStatus k_prod(const OarKernelContext* ctx) {
  bool reduced[64];
  cudaStream_t stream;
  if (OarStatus st = begin_reduce(ctx, reduced, &stream)) return st;
  const OarTensor& x0 = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (out.numel == 0) return OAR_STATUS_OK;
  // As sum: an input that does not accumulate into the output's type is cast to it first.
  const bool fx = is_float_dtype(x0.dtype), fo = is_float_dtype(out.dtype);
  const bool direct = fx && fo ? (out.dtype != OAR_FLOAT64 || x0.dtype == OAR_FLOAT64) : fx == fo;
  OarTensor x = x0;
  void* cast_buf = nullptr;
  int64_t cast_strides[64];
  if (!direct && x0.numel > 0)
    if (OarStatus st = cast_to_scratch(ctx, stream, x0, out.dtype, &x, &cast_buf, cast_strides))
      return st;
  if (x.numel == 0) x.dtype = out.dtype;  // nothing to read: reduce as the output type
  const OarStatus st = reduce_with(ctx, stream, x, reduced, out.numel, AllTypes{}, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return ProdPolicy<acc2_t<T>>{out.data, out.dtype};
  });
  scratch_free(cast_buf, stream);
  return st;
}

OarStatus k_all(const OarKernelContext* ctx) { return logical<true>(ctx); }
OarStatus k_any(const OarKernelContext* ctx) { return logical<false>(ctx); }

OarStatus k_logsumexp(const OarKernelContext* ctx) {
  bool reduced[64];
  cudaStream_t stream;
  if (OarStatus st = begin_reduce(ctx, reduced, &stream)) return st;
  if (OarStatus st = same_dtype(ctx)) return st;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (out.numel == 0) return OAR_STATUS_OK;
  return reduce_with(ctx, stream, x, reduced, out.numel, FloatTypes{}, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return LsePolicy<T>{static_cast<T*>(out.data)};
  });
}

OarStatus k_p_norm(const OarKernelContext* ctx) {
  bool reduced[64];
  cudaStream_t stream;
  if (OarStatus st = begin_reduce(ctx, reduced, &stream)) return st;
  if (OarStatus st = same_dtype(ctx)) return st;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  double p = 2.0;
  const OarAttr* pa = oar_find_attr(ctx, "porder");
  if (pa && pa->kind != OAR_ATTR_NONE && !attr_scalar(ctx, "porder", &p))
    return fail(ctx, "%s on gpu: porder must be a number", ctx->op);
  int64_t count = 1;
  for (int d = 0; d < x.ndim; ++d)
    if (reduced[d]) count *= x.shape[d];
  if (std::isinf(p) && count == 0 && out.numel > 0)
    return fail(ctx, "%s on gpu: cannot take the %sinf norm over a zero-size dimension", ctx->op,
                p > 0 ? "" : "-");
  if (out.numel == 0) return OAR_STATUS_OK;
  const int32_t mode = std::isinf(p) ? (p > 0 ? kNormMax : kNormMin)
                       : p == 0      ? kNormZero
                       : p == 1      ? kNormOne
                       : p == 2      ? kNormTwo
                                     : kNormP;
  return reduce_with(ctx, stream, x, reduced, out.numel, FloatTypes{}, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = typename NormPolicy<T>::Acc;
    return NormPolicy<T>{static_cast<T*>(out.data), mode, static_cast<Acc>(p)};
  });
}

OarStatus k_argmax(const OarKernelContext* ctx) { return arg_reduce(ctx, false); }
OarStatus k_argmin(const OarKernelContext* ctx) { return arg_reduce(ctx, true); }

}  // namespace oar_cuda
