// Shape kernels that move elements: arange, concat, flip, tile, tril, triu, pad_nd and
// pad_nd_grad, slice_grad and strided_slice_grad; and check_values (a guarded copy).
//
// Contract (plugins/custom_cpu/shape.cc, creation.cc and concat in elementwise.cc are the
// reference): inputs may be any strided views, outputs are contiguous. flip, tile, pad_nd,
// slice_grad and strided_slice_grad are one gather: each output dim d has a map from its index to
// an index of the input's dim d, or -1 where the output takes the fill value (the padding, the
// part a slice did not cover); elements move as bytes, so every dtype works. pad_nd_grad is the
// adjoint: each input element sums, in double and in row-major order of the padded positions
// (as the reference), the out_grad entries that read it. arange computes integers as wrapping
// int64 start + i * step and floats as double start + i * step rounded once. concat copies each
// input into its slab of the output with copy_ (which casts). check_values reduces `ok` to one
// flag on the device and reads it back: the one kernel here that waits for its stream; a false
// entry fails with the op's message (oar raises it), else x is copied to out.
#include <cstring>

#include "plugins/cuda/shape.cuh"

namespace oar_cuda {
namespace {

// ---- the gather of flip, tile, pad_nd and the slice gradients ---------------------------------

enum MapKind : int32_t {
  kMapId = 0,
  kMapFlip,       // n - 1 - o
  kMapMod,        // o % n (tile)
  kMapConstant,   // padding (a = before): o - a, -1 outside
  kMapReflect,
  kMapReplicate,
  kMapCircular,
  kMapSlice,      // a = start, b = step, c = size: j where o = start + j * step
};

struct DimMap {
  int32_t kind = kMapId;
  int64_t n = 1;       // the input's extent
  int64_t a = 0, b = 0, c = 0;
  int64_t stride = 0;  // the input's stride
};

struct GatherArgs {
  IndexSpace out;
  DimMap map[kNdMax];
};

__device__ __forceinline__ int64_t map_index(const DimMap& m, int64_t o) {
  switch (m.kind) {
    case kMapId: return o;
    case kMapFlip: return m.n - 1 - o;
    case kMapMod: return o % m.n;
    case kMapSlice: {
      const int64_t d = o - m.a;
      if (d % m.b != 0) return -1;
      const int64_t j = d / m.b;
      return j >= 0 && j < m.c ? j : -1;
    }
    default: break;
  }
  int64_t i = o - m.a;
  if (i >= 0 && i < m.n) return i;
  switch (m.kind) {
    case kMapReplicate: return i < 0 ? 0 : m.n - 1;
    case kMapReflect: {
      const int64_t period = 2 * (m.n - 1);
      if (period == 0) return 0;
      i = ((i % period) + period) % period;
      return i >= m.n ? period - i : i;
    }
    case kMapCircular: return ((i % m.n) + m.n) % m.n;
    default: return -1;  // constant
  }
}

template <class E>
__global__ void __launch_bounds__(256)
    gather_kernel(const E* __restrict__ x, E* __restrict__ out, int64_t n, GatherArgs a, E fill) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    int64_t rest = k, off = 0;
    bool hole = false;
    for (int d = a.out.nd - 1; d >= 0; --d) {
      const int64_t q = a.out.size[d].div(rest, a.out.small);
      const int64_t i = map_index(a.map[d], rest - q * a.out.size[d].d);
      rest = q;
      hole |= i < 0;
      off += i * a.map[d].stride;
    }
    out[k] = hole ? fill : x[off];
  }
}

// The element type that moves `es` bytes.
template <class F>
bool dispatch_bytes(size_t es, F&& f) {
  switch (es) {
    case 1: f(Tag<uint8_t>{}); return true;
    case 2: f(Tag<uint16_t>{}); return true;
    case 4: f(Tag<uint32_t>{}); return true;
    case 8: f(Tag<uint64_t>{}); return true;
    default: return false;
  }
}

// The bytes of `value` as an element of `dtype` (low bytes of the result).
uint64_t fill_bits(int32_t dtype, double value) {
  uint64_t bits = 0;
  dispatch(AllTypes{}, dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = convert<T>(value);
    std::memcpy(&bits, &v, sizeof(T));
  });
  return bits;
}

// out[o] = x[map_0(o_0), map_1(o_1), ...] or the fill; `maps` has out.ndim entries whose
// stride and n the caller set from x.
OarStatus run_gather(const OarKernelContext* ctx, const OarTensor& x, const OarTensor& out,
                     GatherArgs& a, double fill) {
  if (out.dtype != x.dtype)
    return fail(ctx, "%s on gpu: output dtype %s differs from the input's %s", ctx->op,
                dtype_name(out.dtype), dtype_name(x.dtype));
  if (!is_contiguous(out)) return fail(ctx, "%s on gpu: out must be contiguous", ctx->op);
  if (!a.out.init(out.shape, out.ndim))
    return fail(ctx, "%s on gpu: at most %d dims", ctx->op, kNdMax);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const size_t es = dtype_size(out.dtype);
  const uint64_t bits = fill_bits(out.dtype, fill);
  const bool found = dispatch_bytes(es, [&](auto tag) {
    using E = typename decltype(tag)::type;
    E f;
    std::memcpy(&f, &bits, sizeof(E));
    gather_kernel<E><<<grid_for(ctx->device_id, out.numel), 256, 0, stream>>>(
        static_cast<const E*>(x.data), static_cast<E*>(out.data), out.numel, a, f);
  });
  if (!found) return unsupported(ctx, out.dtype);
  return check_launch(ctx, ctx->op);
}

// An attribute's int array (INT gives one entry); false when absent or of another kind.
bool int_array(const OarKernelContext* ctx, const char* name, const int64_t** v, int64_t* n) {
  static const int64_t kNone = 0;
  const OarAttr* a = oar_find_attr(ctx, name);
  if (!a || a->kind == OAR_ATTR_NONE) {
    *v = &kNone;
    *n = 0;
    return true;
  }
  if (a->kind == OAR_ATTR_INT || a->kind == OAR_ATTR_SCALAR_INT) {
    *v = &a->i;
    *n = 1;
    return true;
  }
  if (a->kind != OAR_ATTR_INT_ARRAY) return false;
  *v = a->ints;
  *n = a->count;
  return true;
}

bool int_attr(const OarKernelContext* ctx, const char* name, int64_t* v) {
  const OarAttr* a = oar_find_attr(ctx, name);
  if (!a || a->kind == OAR_ATTR_NONE) return true;  // keeps the default
  if (a->kind != OAR_ATTR_INT && a->kind != OAR_ATTR_SCALAR_INT) return false;
  *v = a->i;
  return true;
}

const char* string_attr(const OarKernelContext* ctx, const char* name, const char* fallback) {
  const OarAttr* a = oar_find_attr(ctx, name);
  if (!a || a->kind != OAR_ATTR_STRING || !a->s) return fallback;
  return a->s;
}

bool same_shape(const OarTensor& a, const OarTensor& b) {
  if (a.ndim != b.ndim) return false;
  for (int d = 0; d < a.ndim; ++d)
    if (a.shape[d] != b.shape[d]) return false;
  return true;
}

// ---- padding ----------------------------------------------------------------------------------

enum PadMode { kPadConstant = 0, kPadReflect, kPadReplicate, kPadCircular };

bool pad_mode(const char* s, int* mode) {
  if (std::strcmp(s, "constant") == 0) *mode = kPadConstant;
  else if (std::strcmp(s, "reflect") == 0) *mode = kPadReflect;
  else if (std::strcmp(s, "replicate") == 0) *mode = kPadReplicate;
  else if (std::strcmp(s, "circular") == 0) *mode = kPadCircular;
  else return false;
  return true;
}

// The reference's check_pad_args for an input of `in` (nd dims).
OarStatus check_pad(const OarKernelContext* ctx, const int64_t* in, int nd, const int64_t* pads,
                    int64_t npads, int mode, const char* mode_name) {
  if (npads != 2 * nd)
    return fail(ctx, "%s on gpu: expected %d padding amounts, got %lld", ctx->op, 2 * nd,
                static_cast<long long>(npads));
  for (int d = 0; d < nd; ++d) {
    const int64_t b = pads[2 * d], a = pads[2 * d + 1], n = in[d];
    if (b < 0 || a < 0) return fail(ctx, "%s on gpu: padding amounts must be >= 0", ctx->op);
    if (b == 0 && a == 0) continue;
    if ((mode == kPadReflect && (b >= n || a >= n)) || (mode == kPadReplicate && n == 0) ||
        (mode == kPadCircular && (b > n || a > n)))
      return fail(ctx, "%s on gpu: %s padding (%lld, %lld) does not fit dimension %d of size %lld",
                  ctx->op, mode_name, static_cast<long long>(b), static_cast<long long>(a), d,
                  static_cast<long long>(n));
  }
  return OAR_STATUS_OK;
}

struct PadGradDim {
  int64_t n = 1, padded = 1, before = 0;
  int64_t g_stride = 0;  // out_grad's stride
};

struct PadGradArgs {
  IndexSpace out;  // the input's (unpadded) shape
  int32_t mode;
  PadGradDim dim[kNdMax];
};

// The padded positions of dim extent that read input index i, ascending: base0, base1, base0 +
// step, base1 + step, ... (count in all; without two, base0 + t * step).
struct Sources {
  int64_t base0, base1, step, count;
  bool two;
  __device__ __forceinline__ int64_t at(int64_t t) const {
    return two ? (t & 1 ? base1 : base0) + (t >> 1) * step : base0 + t * step;
  }
};

__device__ __forceinline__ int64_t progression_count(int64_t first, int64_t step, int64_t end) {
  return first < end ? (end - 1 - first) / step + 1 : 0;
}

__device__ Sources pad_sources(const PadGradDim& g, int mode, int64_t i) {
  const int64_t n = g.n, P = g.padded, b = g.before;
  Sources s{i + b, 0, 1, 1, false};
  if (mode == kPadReplicate) {
    const int64_t lo = i == 0 ? 0 : i + b;
    const int64_t hi = i == n - 1 ? P - 1 : i + b;
    s.base0 = lo;
    s.count = hi - lo + 1;
  } else if (mode == kPadCircular) {
    s.base0 = (i + b) % n;
    s.step = n;
    s.count = progression_count(s.base0, n, P);
  } else if (mode == kPadReflect) {
    const int64_t period = 2 * (n - 1);
    if (period == 0) {
      s.base0 = 0;
      s.count = P;
    } else {
      const int64_t r1 = (i + b) % period;
      s.step = period;
      if (i >= 1 && i <= n - 2) {
        const int64_t r2 = (period - i + b) % period;
        s.two = true;
        s.base0 = r1 < r2 ? r1 : r2;
        s.base1 = r1 < r2 ? r2 : r1;
        s.count = progression_count(s.base0, period, P) + progression_count(s.base1, period, P);
      } else {
        s.base0 = r1;
        s.count = progression_count(r1, period, P);
      }
    }
  }
  return s;
}

template <class T>
__global__ void __launch_bounds__(256)
    pad_grad_kernel(const T* __restrict__ g, T* __restrict__ out, int64_t n, PadGradArgs a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    Sources src[kNdMax];
    int64_t t[kNdMax];
    int64_t rest = k, off = 0;
    bool empty = false;
    for (int d = a.out.nd - 1; d >= 0; --d) {
      const int64_t q = a.out.size[d].div(rest, a.out.small);
      src[d] = pad_sources(a.dim[d], a.mode, rest - q * a.out.size[d].d);
      rest = q;
      t[d] = 0;
      empty |= src[d].count == 0;
      off += src[d].at(0) * a.dim[d].g_stride;
    }
    double acc = 0;
    if (!empty) {
      while (true) {
        acc += static_cast<double>(to_compute(g[off]));
        int d = a.out.nd - 1;
        for (; d >= 0; --d) {  // odometer, the last dim fastest: ascending padded positions
          off -= src[d].at(t[d]) * a.dim[d].g_stride;
          if (++t[d] < src[d].count) {
            off += src[d].at(t[d]) * a.dim[d].g_stride;
            break;
          }
          t[d] = 0;
          off += src[d].at(0) * a.dim[d].g_stride;
        }
        if (d < 0) break;
      }
    }
    out[k] = convert<T>(acc);
  }
}

// ---- slices -----------------------------------------------------------------------------------

int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

OarStatus slice_grad(const OarKernelContext* ctx, bool strided) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& g = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  const int nd = out.ndim;
  if (nd > kNdMax) return fail(ctx, "%s on gpu: at most %d dims", ctx->op, kNdMax);
  const int64_t *axes, *starts, *ends, *steps = nullptr;
  int64_t na, ns, ne, nst = 0;
  if (!int_array(ctx, "axes", &axes, &na) || !int_array(ctx, "starts", &starts, &ns) ||
      !int_array(ctx, "ends", &ends, &ne) || (strided && !int_array(ctx, "strides", &steps, &nst)))
    return fail(ctx, "%s on gpu: axes, starts, ends and strides must be int arrays", ctx->op);
  if (!strided) nst = na;
  if (ns != na || ne != na || nst != na)
    return fail(ctx, "%s on gpu: axes, starts, ends and strides must have one entry each", ctx->op);
  int64_t start[kNdMax], step[kNdMax], size[kNdMax];
  for (int d = 0; d < nd; ++d) {
    start[d] = 0;
    step[d] = 1;
    size[d] = out.shape[d];
  }
  for (int64_t k = 0; k < na; ++k) {
    int64_t ax = axes[k];
    if (ax < -nd || ax >= nd)
      return fail(ctx, "%s on gpu: axis %lld is out of range for %d dimensions", ctx->op,
                  static_cast<long long>(ax), nd);
    const int d = static_cast<int>(ax < 0 ? ax + nd : ax);
    const int64_t n = out.shape[d];
    int64_t s = starts[k], e = ends[k];
    const int64_t st = strided ? steps[k] : 1;
    if (st == 0) return fail(ctx, "%s on gpu: strides must not contain 0", ctx->op);
    if (!strided) {
      s = clamp64(s < 0 ? s + n : s, 0, n);
      e = clamp64(e < 0 ? e + n : e, 0, n);
      size[d] = e - s > 0 ? e - s : 0;
    } else if (st > 0) {
      s = clamp64(s < 0 ? s + n : s, 0, n);
      e = clamp64(e < 0 ? e + n : e, 0, n);
      size[d] = e > s ? (e - s - 1) / st + 1 : 0;
    } else {  // walks down from s (at most n - 1) to just above e; e == -1 means through 0
      s = clamp64(s < 0 ? s + n : s, -1, n - 1);
      if (e != -1) e = clamp64(e < 0 ? e + n : e, -1, n - 1);
      size[d] = s > e ? (s - e - 1) / (-st) + 1 : 0;
    }
    start[d] = size[d] > 0 ? s : 0;
    step[d] = st;
  }
  bool match = g.ndim == nd;
  for (int d = 0; match && d < nd; ++d) match = g.shape[d] == size[d];
  if (!match) return fail(ctx, "%s on gpu: out_grad's shape does not match the slice", ctx->op);
  GatherArgs a;
  for (int d = 0; d < nd; ++d) {
    a.map[d].kind = kMapSlice;
    a.map[d].n = size[d];
    a.map[d].a = start[d];
    a.map[d].b = step[d];
    a.map[d].c = size[d];
    a.map[d].stride = g.strides[d];
  }
  return run_gather(ctx, g, out, a, 0.0);
}

// ---- tril / triu and check_values -------------------------------------------------------------

struct StridedArgs {
  IndexSpace space;
  int64_t stride[kNdMax];
  __device__ __forceinline__ int64_t offset(int64_t k, int64_t* last2 = nullptr) const {
    int64_t off = 0;
    for (int d = space.nd - 1; d >= 0; --d) {
      const int64_t q = space.size[d].div(k, space.small);
      const int64_t c = k - q * space.size[d].d;
      if (last2 && d >= space.nd - 2) last2[d - (space.nd - 2)] = c;
      off += c * stride[d];
      k = q;
    }
    return off;
  }
};

template <class E>
__global__ void __launch_bounds__(256) tril_kernel(const E* __restrict__ x, E* __restrict__ out,
                                                   int64_t n, StridedArgs a, int64_t diagonal,
                                                   bool lower) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    int64_t ij[2];
    const int64_t off = a.offset(k, ij);
    const bool keep = lower ? ij[1] <= ij[0] + diagonal : ij[1] >= ij[0] + diagonal;
    out[k] = keep ? x[off] : E(0);
  }
}

__global__ void __launch_bounds__(256)
    any_false_kernel(const bool* __restrict__ ok, int64_t n, StridedArgs a, int* flag) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step)
    if (!ok[a.offset(k)]) *flag = 1;  // every writer writes 1
}

bool strided_args(const OarTensor& t, StridedArgs* a) {
  if (!a->space.init(t.shape, t.ndim)) return false;
  for (int d = 0; d < t.ndim; ++d) a->stride[d] = t.strides[d];
  return true;
}

// ---- arange -----------------------------------------------------------------------------------

template <class T>
__global__ void __launch_bounds__(256) arange_int_kernel(T* out, int64_t n, int64_t s, int64_t d) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = static_cast<T>(static_cast<uint64_t>(s) + static_cast<uint64_t>(i) * static_cast<uint64_t>(d));
}

template <class T>
__global__ void __launch_bounds__(256) arange_float_kernel(T* out, int64_t n, double s, double d) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = convert<T>(s + static_cast<double>(i) * d);
}

}  // namespace

OarStatus k_arange(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 0, 1)) return OAR_STATUS_ERROR;
  const OarTensor& out = ctx->outputs[0];
  if (out.ndim != 1) return fail(ctx, "arange on gpu: out must be 1-d, got %d dims", out.ndim);
  int64_t istart = 0, istep = 1;
  double fstart = 0.0, fstep = 1.0;
  if (!attr_scalar_int(ctx, "start", &istart)) {
    if (attr_scalar(ctx, "start", &fstart)) istart = static_cast<int64_t>(fstart);
  } else {
    fstart = static_cast<double>(istart);
  }
  if (!attr_scalar_int(ctx, "step", &istep)) {
    if (attr_scalar(ctx, "step", &fstep)) istep = static_cast<int64_t>(fstep);
  } else {
    fstep = static_cast<double>(istep);
  }
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const unsigned blocks = grid_for(ctx->device_id, out.numel);
  const bool found = dispatch(NumericTypes{}, out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>)
      arange_int_kernel<T><<<blocks, 256, 0, stream>>>(static_cast<T*>(out.data), out.numel,
                                                       istart, istep);
    else
      arange_float_kernel<T><<<blocks, 256, 0, stream>>>(static_cast<T*>(out.data), out.numel,
                                                         fstart, fstep);
  });
  if (!found) return unsupported(ctx, out.dtype);
  return check_launch(ctx, ctx->op);
}

OarStatus k_concat(const OarKernelContext* ctx) {
  if (ctx->num_outputs != 1 || ctx->outputs[0].ndim < 0)
    return fail(ctx, "concat on gpu expects one output");
  const OarTensor& out = ctx->outputs[0];
  if (!is_contiguous(out)) return fail(ctx, "concat on gpu: out must be contiguous");
  const int nd = out.ndim;
  if (nd > 64) return fail(ctx, "concat on gpu: too many dims (%d)", nd);
  int64_t axis = 0;
  if (!int_attr(ctx, "axis", &axis)) return fail(ctx, "concat on gpu: axis must be an int");
  if (axis < -nd || axis >= nd)
    return fail(ctx, "concat on gpu: axis %lld is out of range for %d dimensions",
                static_cast<long long>(axis), nd);
  if (axis < 0) axis += nd;
  const size_t es = dtype_size(out.dtype);
  if (es == 0) return unsupported(ctx, out.dtype);
  int64_t out_strides[64];
  contiguous_strides(out.shape, nd, out_strides);
  // Check every input before anything is enqueued.
  int64_t total = 0;
  for (int i = 0; i < ctx->num_inputs; ++i) {
    const OarTensor& x = ctx->inputs[i];
    if (x.ndim != nd)
      return fail(ctx, "concat on gpu: input %d has %d dimensions, out has %d", i, x.ndim, nd);
    for (int d = 0; d < nd; ++d)
      if (d != axis && x.shape[d] != out.shape[d])
        return fail(ctx, "concat on gpu: input %d has extent %lld in dim %d, out %lld", i,
                    static_cast<long long>(x.shape[d]), d, static_cast<long long>(out.shape[d]));
    total += x.shape[axis];
  }
  if (total != out.shape[axis])
    return fail(ctx, "concat on gpu: inputs cover %lld of the %lld entries along axis %lld",
                static_cast<long long>(total), static_cast<long long>(out.shape[axis]),
                static_cast<long long>(axis));
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  int64_t at = 0;
  for (int i = 0; i < ctx->num_inputs; ++i) {
    const OarTensor& x = ctx->inputs[i];
    OarTensor part = out;
    part.shape = x.shape;
    part.strides = out_strides;
    part.numel = x.numel;
    part.data = static_cast<char*>(out.data) + at * out_strides[axis] * static_cast<int64_t>(es);
    at += x.shape[axis];
    if (x.numel == 0) continue;
    OarKernelContext sub = *ctx;
    sub.num_inputs = 1;
    sub.inputs = &x;
    sub.num_outputs = 1;
    sub.outputs = &part;
    sub.num_attrs = 0;
    sub.attrs = nullptr;
    sub.stream = reinterpret_cast<OarStream>(stream);
    if (OarStatus st = k_copy_(&sub)) return st;
  }
  return OAR_STATUS_OK;
}

OarStatus k_flip(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (!same_shape(x, out)) return fail(ctx, "flip on gpu: out's shape differs from x's");
  const int nd = x.ndim;
  if (nd > kNdMax) return fail(ctx, "flip on gpu: at most %d dims", kNdMax);
  GatherArgs a;
  for (int d = 0; d < nd; ++d) {
    a.map[d].n = x.shape[d];
    a.map[d].stride = x.strides[d];
  }
  const int64_t* axes;
  int64_t na;
  if (!int_array(ctx, "axis", &axes, &na)) return fail(ctx, "flip on gpu: axis must be ints");
  if (nd > 0)
    for (int64_t k = 0; k < na; ++k) {
      if (axes[k] < -nd || axes[k] >= nd)
        return fail(ctx, "flip on gpu: axis %lld is out of range for %d dimensions",
                    static_cast<long long>(axes[k]), nd);
      const int d = static_cast<int>(axes[k] < 0 ? axes[k] + nd : axes[k]);
      a.map[d].kind = a.map[d].kind == kMapFlip ? kMapId : kMapFlip;  // twice is no flip
    }
  return run_gather(ctx, x, out, a, 0.0);
}

OarStatus k_tile(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  const int nd = out.ndim;
  if (x.ndim > nd) return fail(ctx, "tile on gpu: x has more dimensions than out");
  if (nd > kNdMax) return fail(ctx, "tile on gpu: at most %d dims", kNdMax);
  GatherArgs a;
  const int lead = nd - x.ndim;
  for (int d = 0; d < nd; ++d) {
    const int64_t n = d < lead ? 1 : x.shape[d - lead];
    if (n == 0 ? out.shape[d] != 0 : out.shape[d] % n != 0)
      return fail(ctx, "tile on gpu: out is not a tiling of x");
    a.map[d].kind = kMapMod;
    a.map[d].n = n > 0 ? n : 1;
    a.map[d].stride = d < lead ? 0 : x.strides[d - lead];
    if (n == out.shape[d]) a.map[d].kind = kMapId;  // no repeat: skip the modulo
  }
  return run_gather(ctx, x, out, a, 0.0);
}

OarStatus k_pad_nd(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  const int nd = x.ndim;
  if (nd > kNdMax || out.ndim != nd)
    return fail(ctx, "pad_nd on gpu: x and out need the same number of dims (at most %d)", kNdMax);
  const int64_t* pads;
  int64_t np;
  if (!int_array(ctx, "pads", &pads, &np)) return fail(ctx, "pad_nd on gpu: pads must be ints");
  const char* mode_name = string_attr(ctx, "mode", "constant");
  int mode;
  if (!pad_mode(mode_name, &mode))
    return fail(ctx, "pad_nd on gpu: unknown padding mode '%s'", mode_name);
  if (OarStatus st = check_pad(ctx, x.shape, nd, pads, np, mode, mode_name)) return st;
  double value = 0.0;
  attr_scalar(ctx, "value", &value);
  GatherArgs a;
  static const int32_t kinds[] = {kMapConstant, kMapReflect, kMapReplicate, kMapCircular};
  for (int d = 0; d < nd; ++d) {
    if (out.shape[d] != x.shape[d] + pads[2 * d] + pads[2 * d + 1])
      return fail(ctx, "pad_nd on gpu: out's dim %d does not match the padding", d);
    a.map[d].kind = kinds[mode];
    a.map[d].n = x.shape[d];
    a.map[d].a = pads[2 * d];
    a.map[d].stride = x.strides[d];
  }
  return run_gather(ctx, x, out, a, value);
}

OarStatus k_pad_nd_grad(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& g = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  const int nd = out.ndim;
  if (out.dtype != g.dtype)
    return fail(ctx, "pad_nd_grad on gpu: output dtype %s differs from the input's %s",
                dtype_name(out.dtype), dtype_name(g.dtype));
  if (!is_contiguous(out)) return fail(ctx, "pad_nd_grad on gpu: out must be contiguous");
  if (nd > kNdMax || g.ndim != nd)
    return fail(ctx, "pad_nd_grad on gpu: out_grad and out need the same number of dims (at most %d)",
                kNdMax);
  const int64_t* pads;
  int64_t np;
  if (!int_array(ctx, "pads", &pads, &np)) return fail(ctx, "pad_nd_grad on gpu: pads must be ints");
  const char* mode_name = string_attr(ctx, "mode", "constant");
  int mode;
  if (!pad_mode(mode_name, &mode))
    return fail(ctx, "pad_nd_grad on gpu: unknown padding mode '%s'", mode_name);
  if (OarStatus st = check_pad(ctx, out.shape, nd, pads, np, mode, mode_name)) return st;
  PadGradArgs a;
  a.mode = mode;
  for (int d = 0; d < nd; ++d) {
    const int64_t padded = out.shape[d] + pads[2 * d] + pads[2 * d + 1];
    if (g.shape[d] != padded)
      return fail(ctx, "pad_nd_grad on gpu: out_grad's dim %d is %lld, expected %lld", d,
                  static_cast<long long>(g.shape[d]), static_cast<long long>(padded));
    a.dim[d].n = out.shape[d];
    a.dim[d].padded = padded;
    a.dim[d].before = pads[2 * d];
    a.dim[d].g_stride = g.strides[d];
  }
  a.out.init(out.shape, nd);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const bool found = dispatch(FloatTypes{}, g.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    pad_grad_kernel<T><<<grid_for(ctx->device_id, out.numel), 256, 0, stream>>>(
        static_cast<const T*>(g.data), static_cast<T*>(out.data), out.numel, a);
  });
  if (!found) return unsupported(ctx, g.dtype);
  return check_launch(ctx, ctx->op);
}

OarStatus k_slice_grad(const OarKernelContext* ctx) { return slice_grad(ctx, false); }
OarStatus k_strided_slice_grad(const OarKernelContext* ctx) { return slice_grad(ctx, true); }

OarStatus k_tril_triu(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const bool lower = std::strcmp(ctx->op, "tril") == 0;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (!same_shape(x, out) || out.dtype != x.dtype)
    return fail(ctx, "%s on gpu: out must have x's shape and dtype", ctx->op);
  if (!is_contiguous(out)) return fail(ctx, "%s on gpu: out must be contiguous", ctx->op);
  if (x.ndim < 2) return fail(ctx, "%s on gpu: x must have at least 2 dimensions", ctx->op);
  int64_t diagonal = 0;
  if (!int_attr(ctx, "diagonal", &diagonal))
    return fail(ctx, "%s on gpu: diagonal must be an int", ctx->op);
  StridedArgs a;
  if (!strided_args(x, &a)) return fail(ctx, "%s on gpu: at most %d dims", ctx->op, kNdMax);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const bool found = dispatch_bytes(dtype_size(x.dtype), [&](auto tag) {
    using E = typename decltype(tag)::type;
    tril_kernel<E><<<grid_for(ctx->device_id, out.numel), 256, 0, stream>>>(
        static_cast<const E*>(x.data), static_cast<E*>(out.data), out.numel, a, diagonal, lower);
  });
  if (!found) return unsupported(ctx, x.dtype);
  return check_launch(ctx, ctx->op);
}

OarStatus k_check_values(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& ok = ctx->inputs[1];
  const OarTensor& out = ctx->outputs[0];
  if (ok.dtype != OAR_BOOL)
    return fail(ctx, "check_values on gpu: ok must be bool, got %s", dtype_name(ok.dtype));
  if (!same_shape(x, out) || out.dtype != x.dtype)
    return fail(ctx, "check_values on gpu: out must have x's shape and dtype");
  const char* message = string_attr(ctx, "message", "check_values failed");
  StridedArgs a;
  if (!strided_args(ok, &a)) return fail(ctx, "check_values on gpu: at most %d dims", kNdMax);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (ok.numel > 0) {
    // The work queued before has to run for ok to hold its values: a flag on the device, read
    // back after the stream drains.
    void* flag = nullptr;
    cudaError_t err = scratch_alloc(ctx->device_id, &flag, sizeof(int), stream);
    if (err != cudaSuccess) return cuda_fail(ctx, err, "cudaMallocAsync (check_values)");
    int host_flag = 0;
    err = cudaMemsetAsync(flag, 0, sizeof(int), stream);
    if (err == cudaSuccess) {
      any_false_kernel<<<grid_for(ctx->device_id, ok.numel), 256, 0, stream>>>(
          static_cast<const bool*>(ok.data), ok.numel, a, static_cast<int*>(flag));
      err = cudaGetLastError();
    }
    if (err == cudaSuccess)
      err = cudaMemcpyAsync(&host_flag, flag, sizeof(int), cudaMemcpyDeviceToHost, stream);
    scratch_free(flag, stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess) return cuda_fail(ctx, err, "check_values");
    if (host_flag) return invalid_value(ctx, "%s", message);
  }
  OarKernelContext sub = *ctx;
  sub.num_inputs = 1;
  sub.inputs = &x;
  sub.num_attrs = 0;
  sub.attrs = nullptr;
  sub.stream = reinterpret_cast<OarStream>(stream);
  return k_assign(&sub);
}

}  // namespace oar_cuda
