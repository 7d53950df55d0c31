// Ops neither family file had: integer bit ops (bitwise_and/or/xor/not, bitwise_left_shift /
// bitwise_right_shift with is_arithmetic, gcd, lcm), float helpers (copysign, heaviside,
// nextafter, frexp -> mantissa, exponent), isclose (rtol, atol, equal_nan; bool out), and the
// element moves roll (shifts, axis), linspace (start, stop, num, dtype), searchsorted
// (sorted_sequence, values; out_int32, right), masked_scatter (x, mask, value), unfold_base /
// fold_base (im2col / col2im) and max_unpool_base (x, indices; output_shape).
//
// Contract: as oar's CPU kernels (oar/kernels/cpu/{special,elementwise,shape,search,index,fold,
// unpool}.cc), which are the reference for every edge case:
// - integers wrap; a shift by a negative amount or by the type's width or more gives 0 (an
//   arithmetic right shift of a negative value: -1); gcd/lcm are non-negative (lcm(0, y) = 0);
// - bitwise ops on bool are the logical ones; the 16-bit floats compute in float (heaviside,
//   copysign, isclose), float16/bfloat16 frexp and copysign compute in double as the host;
// - nextafter takes float32/float64 only; frexp gives (0, 0) for 0 and (x, 0) for inf and NaN.
#include <cmath>
#include <cstring>

#include <cub/device/device_scan.cuh>

#include "plugins/cuda/compact.h"
#include "plugins/cuda/elementwise2.cuh"
#include "plugins/cuda/index.cuh"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

using namespace ew2;

using IntTypes = Types<int32_t, int64_t, int8_t, uint8_t, int16_t>;
using IntBoolTypes = Types<int32_t, int64_t, int8_t, uint8_t, int16_t, bool>;
using RealTypes = Types<float, double, half, bf16, int32_t, int64_t, int8_t, uint8_t, int16_t>;
using F32F64Types = Types<float, double>;

// ---- bit ops ----------------------------------------------------------------------------------

// a < 0, without a comparison the compiler calls pointless for unsigned types.
template <class C> __device__ __forceinline__ bool is_neg(C a) {
  if constexpr (std::is_unsigned_v<C>) return false;
  else return a < C(0);
}

struct BitAndOp {
  template <class C> __device__ C operator()(C a, C b) const {
    if constexpr (std::is_same_v<C, bool>) return a && b;
    else return static_cast<C>(a & b);
  }
};
struct BitOrOp {
  template <class C> __device__ C operator()(C a, C b) const {
    if constexpr (std::is_same_v<C, bool>) return a || b;
    else return static_cast<C>(a | b);
  }
};
struct BitXorOp {
  template <class C> __device__ C operator()(C a, C b) const {
    if constexpr (std::is_same_v<C, bool>) return a != b;
    else return static_cast<C>(a ^ b);
  }
};
struct BitNotOp {
  template <class C> __device__ C operator()(C a) const {
    if constexpr (std::is_same_v<C, bool>) return !a;
    else return static_cast<C>(~a);
  }
};

// kind 0: left, 1: arithmetic right, 2: logical right.
struct ShiftOp {
  int kind;
  template <class C> __device__ C operator()(C a, C b) const {
    using U = std::make_unsigned_t<C>;
    constexpr int64_t bits = sizeof(C) * 8;
    const bool out_of_range = is_neg(b) || static_cast<int64_t>(b) >= bits;
    if (kind == 1) {
      if (out_of_range) return is_neg(a) ? C(-1) : C(0);
      return static_cast<C>(a >> static_cast<int64_t>(b));
    }
    if (out_of_range) return C(0);
    if (kind == 0) return static_cast<C>(static_cast<U>(a) << static_cast<int64_t>(b));
    return static_cast<C>(static_cast<U>(a) >> static_cast<int64_t>(b));
  }
};

template <class C>
__device__ __forceinline__ std::make_unsigned_t<C> uabs(C a) {
  using U = std::make_unsigned_t<C>;
  return is_neg(a) ? static_cast<U>(U(0) - static_cast<U>(a)) : static_cast<U>(a);
}

template <class C>
__device__ __forceinline__ C int_gcd(C a, C b) {
  using U = std::make_unsigned_t<C>;
  U ua = uabs(a), ub = uabs(b);
  while (ub != 0) {
    const U t = static_cast<U>(ua % ub);
    ua = ub;
    ub = t;
  }
  return static_cast<C>(ua);
}

struct GcdOp {
  template <class C> __device__ C operator()(C a, C b) const { return int_gcd(a, b); }
};
struct LcmOp {
  template <class C> __device__ C operator()(C a, C b) const {
    using U = std::make_unsigned_t<C>;
    const C g = int_gcd(a, b);
    if (g == C(0)) return C(0);
    return static_cast<C>(static_cast<U>(static_cast<U>(uabs(a) / static_cast<U>(g)) * uabs(b)));
  }
};

// ---- float helpers ----------------------------------------------------------------------------

struct CopysignOp {
  template <class C> __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      using U = std::make_unsigned_t<C>;
      const U mag = uabs(a);
      return static_cast<C>(is_neg(b) ? static_cast<U>(U(0) - mag) : mag);
    } else {
      return static_cast<C>(::copysign(static_cast<double>(a), static_cast<double>(b)));
    }
  }
};

struct HeavisideOp {
  template <class C> __device__ C operator()(C a, C b) const {
    const double v = static_cast<double>(a);
    if (v != v) return a;
    return v < 0 ? C(0) : (v > 0 ? C(1) : b);
  }
};

struct NextafterOp {
  __device__ float operator()(float a, float b) const { return ::nextafterf(a, b); }
  __device__ double operator()(double a, double b) const { return ::nextafter(a, b); }
};

struct IscloseOp {
  double rtol, atol;
  bool equal_nan;
  template <class C> __device__ bool operator()(C ta, C tb) const {
    const double a = static_cast<double>(ta), b = static_cast<double>(tb);
    const bool na = a != a, nb = b != b;
    if (na || nb) return equal_nan && na && nb;
    if (a == b) return true;
    return ::fabs(a - b) <= atol + rtol * ::fabs(b);
  }
};

template <class T>
struct FrexpMantissaFn {
  __device__ T operator()(T v) const {
    int e = 0;
    return convert<T>(::frexp(static_cast<double>(to_compute(v)), &e));
  }
};
template <class T>
struct FrexpExponentFn {
  __device__ T operator()(T v) const {
    int e = 0;
    ::frexp(static_cast<double>(to_compute(v)), &e);
    return convert<T>(static_cast<double>(e));
  }
};

// ---- element moves ----------------------------------------------------------------------------

constexpr int kMaxMoveDims = 16;

// An int or int-array attribute; false when absent or of another kind.
bool attr_ints(const OarKernelContext* ctx, const char* name, int64_t* out, int* count, int cap) {
  const OarAttr* a = oar_find_attr(ctx, name);
  *count = 0;
  if (!a || a->kind == OAR_ATTR_NONE) return true;  // absent: an empty list
  if (a->kind == OAR_ATTR_INT || a->kind == OAR_ATTR_SCALAR_INT) {
    out[0] = a->i;
    *count = 1;
    return true;
  }
  if (a->kind != OAR_ATTR_INT_ARRAY || a->count > cap) return false;
  for (int64_t i = 0; i < a->count; ++i) out[i] = a->ints[i];
  *count = static_cast<int>(a->count);
  return true;
}

inline int64_t positive_mod(int64_t v, int64_t n) {
  const int64_t r = v % n;
  return r < 0 ? r + n : r;
}

struct RollParams {
  int ndim;
  bool flat;        // roll the flattened tensor by shift[0]
  int64_t numel;
  int64_t shape[kMaxMoveDims];
  int64_t xstride[kMaxMoveDims];
  int64_t shift[kMaxMoveDims];  // in [0, shape), per dim
};

template <class E>
__global__ void roll_kernel(RollParams p, const E* x, E* out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.numel;
       i += step) {
    int64_t rest = p.flat ? (i + p.numel - p.shift[0]) % p.numel : i;
    int64_t off = 0;
    for (int d = p.ndim - 1; d >= 0; --d) {
      const int64_t n = p.shape[d];
      int64_t c = rest % n;
      rest /= n;
      if (!p.flat) c = c >= p.shift[d] ? c - p.shift[d] : c - p.shift[d] + n;
      off += c * p.xstride[d];
    }
    out[i] = x[off];
  }
}

template <class T>
__global__ void linspace_kernel(T* out, int64_t n, double a, double b, double step) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    // no contraction into an fma: the host rounds the product and the sum separately
    const double v = i < n / 2 ? __dadd_rn(a, __dmul_rn(step, static_cast<double>(i)))
                               : __dsub_rn(b, __dmul_rn(step, static_cast<double>(n - 1 - i)));
    out[i] = convert<T>(v);
  }
}

template <class T, class I>
__global__ void searchsorted_kernel(const T* seq, const T* values, I* out, int64_t total,
                                    int64_t m, int64_t per, bool shared, bool right) {
  using C = compute_t<T>;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += stride) {
    const T* row = seq + (shared ? 0 : (i / per) * m);
    const C val = to_compute(values[i]);
    int64_t lo = 0, hi = m;
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      const C e = to_compute(row[mid]);
      if (right ? !(val < e) : e < val) lo = mid + 1;
      else hi = mid;
    }
    out[i] = static_cast<I>(lo);
  }
}

template <class E>
struct IdentityFn {
  __device__ E operator()(E v) const { return v; }
};

struct ToInt64Fn {
  __device__ int64_t operator()(bool b) const { return b ? 1 : 0; }
};

// incl: the inclusive scan of the 0/1 mask; position i is true where it steps up.
__global__ void masked_scatter_kernel(const int64_t* incl, int64_t n, const char* value, char* out,
                                      int64_t esize) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (incl[i] == (i > 0 ? incl[i - 1] : 0)) continue;
    const char* src = value + (incl[i] - 1) * esize;
    char* dst = out + i * esize;
    for (int64_t b = 0; b < esize; ++b) dst[b] = src[b];
  }
}

// Stream-ordered scratch freed when it goes out of scope (after the work queued before).
struct Scratch {
  void* p = nullptr;
  cudaStream_t stream = nullptr;
  ~Scratch() {
    if (p) scratch_free(p, stream);
  }
  OarStatus alloc(const OarKernelContext* ctx, cudaStream_t s, size_t bytes) {
    stream = s;
    const cudaError_t err = scratch_alloc(ctx->device_id, &p, bytes ? bytes : 1, s);
    if (err != cudaSuccess) {
      p = nullptr;
      return cuda_fail(ctx, err, "scratch");
    }
    return OAR_STATUS_OK;
  }
};

// `t` itself when contiguous, else a contiguous copy held by `hold`.
OarStatus contiguous_view(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& t,
                          CompactView* hold, OarTensor* view) {
  if (is_contiguous(t)) {
    *view = t;
    return OAR_STATUS_OK;
  }
  return hold->make(ctx, stream, t, view);
}

// ---- unfold / fold (im2col / col2im of whole images), 2-D ---------------------------------------

struct FoldGeom {
  int64_t N, C, H, W, kh, kw, sh, sw, pt, pl, dh, dw, Ho, Wo;
};

bool fold_geom(const OarKernelContext* ctx, int64_t N, int64_t C, int64_t H, int64_t W,
               FoldGeom* g) {
  int64_t k[4], s[4], p[4], d[4];
  int nk, ns, np, nd;
  if (!attr_ints(ctx, "kernel", k, &nk, 4) || !attr_ints(ctx, "stride", s, &ns, 4) ||
      !attr_ints(ctx, "padding", p, &np, 4) || !attr_ints(ctx, "dilation", d, &nd, 4) || nk != 2 ||
      ns != 2 || np != 4 || nd != 2) {
    fail(ctx, "%s on gpu: kernel, stride, dilation need 2 entries and padding 4", ctx->op);
    return false;
  }
  *g = FoldGeom{N, C, H, W, k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], 0, 0};
  g->Ho = (H + p[0] + p[2] - (d[0] * (k[0] - 1) + 1)) / s[0] + 1;
  g->Wo = (W + p[1] + p[3] - (d[1] * (k[1] - 1) + 1)) / s[1] + 1;
  return true;
}

// out [N, C * kh * kw, Ho * Wo] (contiguous) from x [N, C, H, W] (strided).
template <class T>
__global__ void unfold_kernel(FoldGeom g, const T* x, int64_t xs0, int64_t xs1, int64_t xs2,
                              int64_t xs3, T* out, int64_t total) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t L = g.Ho * g.Wo;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += stride) {
    const int64_t col = t % L, row = (t / L) % (g.C * g.kh * g.kw), n = t / (L * g.C * g.kh * g.kw);
    const int64_t j = row % g.kw, i = (row / g.kw) % g.kh, c = row / (g.kw * g.kh);
    const int64_t ow = col % g.Wo, oh = col / g.Wo;
    const int64_t ih = oh * g.sh - g.pt + i * g.dh, iw = ow * g.sw - g.pl + j * g.dw;
    out[t] = (ih >= 0 && ih < g.H && iw >= 0 && iw < g.W)
                 ? x[n * xs0 + c * xs1 + ih * xs2 + iw * xs3]
                 : T(0);
  }
}

// out [N, C, H, W] (contiguous): the sum over (i, j), in that order, of the columns of x
// [N, C * kh * kw, Ho * Wo] (strided) that land on each pixel.
template <class T>
__global__ void fold_kernel(FoldGeom g, const T* x, int64_t xs0, int64_t xs1, int64_t xs2, T* out,
                            int64_t total) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += stride) {
    const int64_t w = t % g.W, h = (t / g.W) % g.H, c = (t / (g.W * g.H)) % g.C,
                  n = t / (g.W * g.H * g.C);
    T acc = T(0);
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t ih = h + g.pt - i * g.dh;
      if (ih < 0 || ih % g.sh != 0 || ih / g.sh >= g.Ho) continue;
      const int64_t oh = ih / g.sh;
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t iw = w + g.pl - j * g.dw;
        if (iw < 0 || iw % g.sw != 0 || iw / g.sw >= g.Wo) continue;
        const int64_t ow = iw / g.sw;
        acc += x[n * xs0 + ((c * g.kh + i) * g.kw + j) * xs1 + (oh * g.Wo + ow) * xs2];
      }
    }
    out[t] = acc;
  }
}

// ---- max_unpool: the last input naming a position wins ------------------------------------------

__global__ void unpool_claim_kernel(const int32_t* idx, int64_t n, int64_t in_plane,
                                    int64_t out_plane, int32_t* winner, int* bad) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) {
    const int64_t p = t / in_plane, i = t % in_plane;
    const int32_t k = idx[t];
    if (k < 0 || k >= out_plane) {
      atomicExch(bad, 1);
      continue;
    }
    atomicMax(winner + p * out_plane + k, static_cast<int32_t>(i));
  }
}

template <class T>
__global__ void unpool_write_kernel(const int32_t* winner, int64_t n, int64_t in_plane,
                                    int64_t out_plane, const T* x, T* out) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) {
    const int32_t w = winner[t];
    out[t] = w >= 0 ? x[(t / out_plane) * in_plane + w] : T(0);
  }
}

// Reads a device int flag (after the work queued before it).
OarStatus read_flag(const OarKernelContext* ctx, cudaStream_t stream, const int* flag, int* value) {
  cudaError_t err = cudaMemcpyAsync(value, flag, sizeof(int), cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  return err == cudaSuccess ? OAR_STATUS_OK : cuda_fail(ctx, err, ctx->op);
}

}  // namespace

OarStatus k_bitwise_and(const OarKernelContext* c) {
  return map_binary<false>(c, IntBoolTypes{}, MakeStateless<BitAndOp>{});
}
OarStatus k_bitwise_or(const OarKernelContext* c) {
  return map_binary<false>(c, IntBoolTypes{}, MakeStateless<BitOrOp>{});
}
OarStatus k_bitwise_xor(const OarKernelContext* c) {
  return map_binary<false>(c, IntBoolTypes{}, MakeStateless<BitXorOp>{});
}
OarStatus k_bitwise_not(const OarKernelContext* c) {
  return map_unary<false>(c, IntBoolTypes{}, MakeStateless<BitNotOp>{});
}
OarStatus k_bitwise_left_shift(const OarKernelContext* c) {
  return map_binary<false>(c, IntTypes{}, [](auto) { return ShiftOp{0}; });
}
OarStatus k_bitwise_right_shift(const OarKernelContext* c) {
  const int kind = attr_bool(c, "is_arithmetic", true) ? 1 : 2;
  return map_binary<false>(c, IntTypes{}, [kind](auto) { return ShiftOp{kind}; });
}
OarStatus k_gcd(const OarKernelContext* c) {
  return map_binary<false>(c, IntTypes{}, MakeStateless<GcdOp>{});
}
OarStatus k_lcm(const OarKernelContext* c) {
  return map_binary<false>(c, IntTypes{}, MakeStateless<LcmOp>{});
}
OarStatus k_copysign(const OarKernelContext* c) {
  return map_binary<false>(c, RealTypes{}, MakeStateless<CopysignOp>{});
}
OarStatus k_heaviside(const OarKernelContext* c) {
  return map_binary<false>(c, RealTypes{}, MakeStateless<HeavisideOp>{});
}
OarStatus k_nextafter(const OarKernelContext* c) {
  return map_binary<false>(c, F32F64Types{}, MakeStateless<NextafterOp>{});
}
OarStatus k_isclose(const OarKernelContext* c) {
  const IscloseOp op{attr_float(c, "rtol", 1e-5), attr_float(c, "atol", 1e-8),
                     attr_bool(c, "equal_nan", false)};
  return map_binary<true>(c, RealTypes{}, [op](auto) { return op; });
}

OarStatus k_frexp(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 2)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  for (int i = 0; i < 2; ++i)
    if (ctx->outputs[i].dtype != x.dtype)
      return fail(ctx, "frexp on gpu: output %d has dtype %s, expected %s", i,
                  dtype_name(ctx->outputs[i].dtype), dtype_name(x.dtype));
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  const OarTensor* const ins[2] = {&x, nullptr};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(FloatTypes{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = run_elementwise<T, T>(ctx, stream, FrexpMantissaFn<T>{}, ctx->outputs[0], ins);
    if (st == OAR_STATUS_OK)
      st = run_elementwise<T, T>(ctx, stream, FrexpExponentFn<T>{}, ctx->outputs[1], ins);
  });
  return found ? st : unsupported(ctx, x.dtype);
}

OarStatus k_roll(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (out.dtype != x.dtype || out.numel != x.numel)
    return fail(ctx, "roll on gpu: output does not match x");
  if (x.ndim > kMaxMoveDims) return fail(ctx, "roll on gpu: at most %d dims", kMaxMoveDims);
  int64_t shifts[kMaxMoveDims], axes[kMaxMoveDims];
  int nshift = 0, naxis = 0;
  if (!attr_ints(ctx, "shifts", shifts, &nshift, kMaxMoveDims) ||
      !attr_ints(ctx, "axis", axes, &naxis, kMaxMoveDims))
    return fail(ctx, "roll on gpu: shifts and axis must be int lists of at most %d entries",
                kMaxMoveDims);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  RollParams p{};
  p.ndim = x.ndim;
  p.numel = out.numel;
  for (int d = 0; d < x.ndim; ++d) {
    p.shape[d] = x.shape[d];
    p.xstride[d] = x.strides[d];
  }
  if (naxis == 0) {
    p.flat = true;
    p.shift[0] = positive_mod(nshift ? shifts[0] : 0, out.numel);
  } else {
    if (naxis != nshift) return fail(ctx, "roll on gpu: shifts and axis differ in length");
    for (int i = 0; i < naxis; ++i) {
      if (x.ndim == 0) continue;
      int64_t a = axes[i] < 0 ? axes[i] + x.ndim : axes[i];
      if (a < 0 || a >= x.ndim) return fail(ctx, "roll on gpu: axis %lld out of range",
                                            static_cast<long long>(axes[i]));
      p.shift[a] = positive_mod(p.shift[a] + positive_mod(shifts[i], x.shape[a]), x.shape[a]);
    }
  }
  if (x.ndim == 0) {  // one element
    p.ndim = 1;
    p.shape[0] = 1;
    p.xstride[0] = 0;
    p.flat = false;
    p.shift[0] = 0;
  }
  const bool found = dispatch_bytes(x.dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    roll_kernel<E><<<ew_blocks(ctx->device_id, out.numel), kEwThreads, 0, stream>>>(
        p, static_cast<const E*>(x.data), static_cast<E*>(out.data));
  });
  return found ? check_launch(ctx, "roll") : unsupported(ctx, x.dtype);
}

OarStatus k_linspace(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 0, 1)) return OAR_STATUS_ERROR;
  const OarTensor& out = ctx->outputs[0];
  double a = 0, b = 0;
  if (!attr_scalar(ctx, "start", &a) || !attr_scalar(ctx, "stop", &b))
    return fail(ctx, "linspace on gpu: start and stop must be numbers");
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  const int64_t n = out.numel;
  if (n == 0) return OAR_STATUS_OK;
  const double step = n > 1 ? (b - a) / static_cast<double>(n - 1) : 0.0;
  const bool found = dispatch(RealTypes{}, out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    linspace_kernel<T><<<ew_blocks(ctx->device_id, n), kEwThreads, 0, stream>>>(
        static_cast<T*>(out.data), n, a, b, step);
  });
  return found ? check_launch(ctx, "linspace") : unsupported(ctx, out.dtype);
}

OarStatus k_searchsorted(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  const OarTensor& seq0 = ctx->inputs[0];
  const OarTensor& val0 = ctx->inputs[1];
  const OarTensor& out = ctx->outputs[0];
  if (seq0.dtype != val0.dtype)
    return fail(ctx, "searchsorted on gpu: sorted_sequence and values differ in dtype");
  if (out.dtype != OAR_INT32 && out.dtype != OAR_INT64)
    return fail(ctx, "searchsorted on gpu: output must be int32 or int64");
  const bool right = attr_bool(ctx, "right", false);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  CompactView hs, hv;
  OarTensor seq, val;
  if (OarStatus st = contiguous_view(ctx, stream, seq0, &hs, &seq)) return st;
  if (OarStatus st = contiguous_view(ctx, stream, val0, &hv, &val)) return st;
  const int64_t m = seq.ndim ? seq.shape[seq.ndim - 1] : 1;
  const int64_t per = val.ndim ? val.shape[val.ndim - 1] : 1;
  const bool shared = seq.ndim <= 1;
  const int64_t total = val.numel;
  const bool found = dispatch(RealTypes{}, seq.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const unsigned blocks = ew_blocks(ctx->device_id, total);
    if (out.dtype == OAR_INT32)
      searchsorted_kernel<T, int32_t><<<blocks, kEwThreads, 0, stream>>>(
          static_cast<const T*>(seq.data), static_cast<const T*>(val.data),
          static_cast<int32_t*>(out.data), total, m, per > 0 ? per : 1, shared, right);
    else
      searchsorted_kernel<T, int64_t><<<blocks, kEwThreads, 0, stream>>>(
          static_cast<const T*>(seq.data), static_cast<const T*>(val.data),
          static_cast<int64_t*>(out.data), total, m, per > 0 ? per : 1, shared, right);
  });
  return found ? check_launch(ctx, "searchsorted") : unsupported(ctx, seq.dtype);
}

// out = x broadcast to out's shape, then the elements where mask (broadcast) is true take
// value's elements in order: an inclusive scan of the mask gives each its source. The number of
// true entries is read back (one synchronisation) to check that value has enough elements.
OarStatus k_masked_scatter(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 3, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& mask = ctx->inputs[1];
  const OarTensor& value0 = ctx->inputs[2];
  const OarTensor& out = ctx->outputs[0];
  if (mask.dtype != OAR_BOOL) return fail(ctx, "masked_scatter on gpu: mask must be bool");
  if (out.dtype != x.dtype) return fail(ctx, "masked_scatter on gpu: output dtype differs from x's");
  if (value0.dtype != x.dtype) {
    snprintf(ctx->error, ctx->error_size,
             "masked_scatter on gpu: value (%s) must have x's dtype (%s)", dtype_name(value0.dtype),
             dtype_name(x.dtype));
    return OAR_STATUS_UNSUPPORTED;
  }
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  const int64_t n = out.numel;
  if (n == 0) return OAR_STATUS_OK;
  const size_t esize = dtype_size(x.dtype);
  // 1. out = x (broadcast)
  {
    const OarTensor* const ins[2] = {&x, nullptr};
    OarStatus st = OAR_STATUS_OK;
    const bool found = dispatch_bytes(x.dtype, [&](auto tag) {
      using E = typename decltype(tag)::type;
      OarTensor o = out, xi = x;
      o.dtype = xi.dtype = OAR_FLOAT32;  // run_elementwise checks no dtypes; bytes move as E
      st = run_elementwise<E, E>(ctx, stream, IdentityFn<E>{}, o, ins);
    });
    if (!found) return unsupported(ctx, x.dtype);
    if (st) return st;
  }
  // 2. the mask broadcast to out's shape as 0/1 int64, scanned in place (inclusive)
  Scratch incl, temp;
  if (OarStatus st = incl.alloc(ctx, stream, static_cast<size_t>(n) * sizeof(int64_t))) return st;
  int64_t cstrides[64];
  contiguous_strides(out.ndim, out.shape, cstrides);
  const OarTensor fl{incl.p, OAR_INT64, out.ndim, out.shape, cstrides, n};
  {
    const OarTensor* const ins[2] = {&mask, nullptr};
    if (OarStatus st = run_elementwise<int64_t, bool>(ctx, stream, ToInt64Fn{}, fl, ins)) return st;
  }
  int64_t* scan = static_cast<int64_t*>(incl.p);
  size_t temp_bytes = 0;
  cudaError_t err = cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, scan, scan, n, stream);
  if (err != cudaSuccess) return cuda_fail(ctx, err, "masked_scatter scan");
  if (OarStatus st = temp.alloc(ctx, stream, temp_bytes)) return st;
  err = cub::DeviceScan::InclusiveSum(temp.p, temp_bytes, scan, scan, n, stream);
  if (err != cudaSuccess) return cuda_fail(ctx, err, "masked_scatter scan");
  int64_t count = 0;
  err = cudaMemcpyAsync(&count, static_cast<int64_t*>(incl.p) + (n - 1), sizeof(int64_t),
                        cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess) return cuda_fail(ctx, err, "masked_scatter count");
  if (value0.numel < count)
    return fail(ctx,
                "masked_scatter: argument 'value' must have at least as many elements as 'mask' "
                "has True values, but received value with %lld elements and %lld True values in mask",
                static_cast<long long>(value0.numel), static_cast<long long>(count));
  if (count == 0) return OAR_STATUS_OK;
  // 3. scatter value's elements (row-major order) into the true positions
  CompactView hv;
  OarTensor value;
  if (OarStatus st = contiguous_view(ctx, stream, value0, &hv, &value)) return st;
  masked_scatter_kernel<<<ew_blocks(ctx->device_id, n), kEwThreads, 0, stream>>>(
      scan, n,
      static_cast<const char*>(value.data), static_cast<char*>(out.data),
      static_cast<int64_t>(esize));
  return check_launch(ctx, "masked_scatter");
}

OarStatus k_unfold(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (x.ndim != 4 || out.ndim != 3 || out.dtype != x.dtype)
    return fail(ctx, "unfold on gpu: x must be [N, C, H, W] and out [N, C*kh*kw, L] of x's dtype");
  FoldGeom g;
  if (!fold_geom(ctx, x.shape[0], x.shape[1], x.shape[2], x.shape[3], &g)) return OAR_STATUS_ERROR;
  if (out.shape[1] != g.C * g.kh * g.kw || out.shape[2] != g.Ho * g.Wo)
    return fail(ctx, "unfold on gpu: output shape does not match the geometry");
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const bool found = dispatch(F32F64Types{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    unfold_kernel<T><<<ew_blocks(ctx->device_id, out.numel), kEwThreads, 0, stream>>>(
        g, static_cast<const T*>(x.data), x.strides[0], x.strides[1], x.strides[2], x.strides[3],
        static_cast<T*>(out.data), out.numel);
  });
  return found ? check_launch(ctx, "unfold") : unsupported(ctx, x.dtype);
}

OarStatus k_fold(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (x.ndim != 3 || out.ndim != 4 || out.dtype != x.dtype)
    return fail(ctx, "fold on gpu: x must be [N, C*kh*kw, L] and out [N, C, H, W] of x's dtype");
  FoldGeom g;
  if (!fold_geom(ctx, out.shape[0], out.shape[1], out.shape[2], out.shape[3], &g))
    return OAR_STATUS_ERROR;
  if (x.shape[1] != g.C * g.kh * g.kw || x.shape[2] != g.Ho * g.Wo)
    return fail(ctx, "fold on gpu: input shape does not match the geometry");
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const bool found = dispatch(F32F64Types{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    fold_kernel<T><<<ew_blocks(ctx->device_id, out.numel), kEwThreads, 0, stream>>>(
        g, static_cast<const T*>(x.data), x.strides[0], x.strides[1], x.strides[2],
        static_cast<T*>(out.data), out.numel);
  });
  return found ? check_launch(ctx, "fold") : unsupported(ctx, x.dtype);
}

OarStatus k_max_unpool(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x0 = ctx->inputs[0];
  const OarTensor& idx0 = ctx->inputs[1];
  const OarTensor& out = ctx->outputs[0];
  if (idx0.dtype != OAR_INT32) return fail(ctx, "max_unpool on gpu: indices must be int32");
  if (out.dtype != x0.dtype || x0.ndim < 2 || idx0.numel != x0.numel)
    return fail(ctx, "max_unpool on gpu: x [N, C, ...], indices of x's shape, out of x's dtype");
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const int64_t planes = x0.shape[0] * x0.shape[1];
  const int64_t in_plane = planes ? x0.numel / planes : 0, out_plane = out.numel / planes;
  if (out_plane > INT32_MAX || in_plane > INT32_MAX)
    return fail(ctx, "max_unpool on gpu: planes of 2^31 or more elements");
  CompactView hx, hi;
  OarTensor x, idx;
  if (OarStatus st = contiguous_view(ctx, stream, x0, &hx, &x)) return st;
  if (OarStatus st = contiguous_view(ctx, stream, idx0, &hi, &idx)) return st;
  Scratch winner, bad;
  if (OarStatus st = winner.alloc(ctx, stream, static_cast<size_t>(out.numel) * sizeof(int32_t)))
    return st;
  if (OarStatus st = bad.alloc(ctx, stream, sizeof(int))) return st;
  cudaError_t err = cudaMemsetAsync(winner.p, 0xff, static_cast<size_t>(out.numel) * sizeof(int32_t),
                                    stream);
  if (err == cudaSuccess) err = cudaMemsetAsync(bad.p, 0, sizeof(int), stream);
  if (err != cudaSuccess) return cuda_fail(ctx, err, "cudaMemsetAsync");
  if (x.numel > 0) {
    unpool_claim_kernel<<<ew_blocks(ctx->device_id, x.numel), kEwThreads, 0, stream>>>(
        static_cast<const int32_t*>(idx.data), x.numel, in_plane, out_plane,
        static_cast<int32_t*>(winner.p), static_cast<int*>(bad.p));
    if (OarStatus st = check_launch(ctx, "max_unpool")) return st;
    int flag = 0;
    if (OarStatus st = read_flag(ctx, stream, static_cast<const int*>(bad.p), &flag)) return st;
    if (flag)
      return fail(ctx, "max_unpool: an index is out of range for an output plane of %lld elements",
                  static_cast<long long>(out_plane));
  }
  const bool found = dispatch(F32F64Types{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    unpool_write_kernel<T><<<ew_blocks(ctx->device_id, out.numel), kEwThreads, 0, stream>>>(
        static_cast<const int32_t*>(winner.p), out.numel, in_plane, out_plane,
        static_cast<const T*>(x.data), static_cast<T*>(out.data));
  });
  return found ? check_launch(ctx, "max_unpool") : unsupported(ctx, x.dtype);
}

}  // namespace oar_cuda
