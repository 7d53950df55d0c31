// Resampling: interp (nearest, linear/bilinear/trilinear, bicubic over 1 to 3 channel-first
// spatial dims), interp_grad (its adjoint), grid_sample_base (4-d and 5-d) and affine_grid_base.
//
// Contract (as plugins/custom_cpu/interp.cc and grid_sample.cc):
// - interp: x [N, C, S...]; attrs mode, align_corners, align_mode, scale_0..scale_2 (0: none);
//   out's shape gives the output size. interp_grad: out_grad [N, C, O...] -> dx (input_shape).
//   The taps are computed as the host does (the ratio and nearest/linear source coordinates in
//   float32 with explicit rounding, bicubic in double, weights in the compute type); the value is
//   sum_w w_w * (sum_{d,h} w_d w_h x), in that order. interp_grad scatters with atomics (float
//   for 16-bit types, through a float buffer), so its sums are not bitwise reproducible.
// - grid_sample_base: {x [N, C, (D,) H, W], grid [N, (Do,) Ho, Wo, nd]}; attrs mode
//   ("bilinear"/"nearest"), padding_mode ("zeros"/"border"/"reflection"), align_corners;
//   coordinates and weights in double, the sum in the compute type.
// - affine_grid_base: no inputs; attrs depth, height, width, align_corners; out [H, W, 3] or
//   [D, H, W, 4] rows (x, y[, z], 1).
// Inputs may be any strided views; outputs are contiguous. float32, float64, float16, bfloat16.
#include <cmath>
#include <cstring>

#include "plugins/cuda/conv.cuh"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

constexpr int kThreads = 256;

// Arithmetic with explicit rounding (no FMA contraction), as the host computes.
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }

enum Mode : int { kNearest = 0, kLinear = 1, kCubic = 2 };

struct IDim {
  int64_t in = 1, out = 1;
  float ratio = 1.0f;
  int mode = kNearest;
};

struct IGeo {
  IDim d[3];
  bool ac = false;
  int64_t align_mode = 0;
  int64_t N = 0, C = 0;
  int64_t sn = 0, sc = 0, ss[3] = {0, 0, 0};  // strides of the strided side (x or out_grad)
};

__device__ double cubic_near(double t, double a) {  // |t| <= 1
  return add_rn(mul_rn(mul_rn(add_rn(mul_rn(a + 2, t), -(a + 3)), t), t), 1.0);
}
__device__ double cubic_far(double t, double a) {  // 1 < |t| < 2
  return add_rn(mul_rn(add_rn(mul_rn(add_rn(mul_rn(a, t), -5 * a), t), 8 * a), t), -4 * a);
}

// The taps of output position o along one dim: returns their count (1, 2 or 4).
template <class Acc>
__device__ int taps(const IDim& dm, bool ac, int64_t align_mode, int64_t o, int64_t* idx,
                    Acc* w) {
  const int64_t in = dm.in;
  if (dm.mode == kNearest) {
    const int64_t i = static_cast<int64_t>(mul_rn(dm.ratio, static_cast<float>(o)));
    idx[0] = i < in - 1 ? i : in - 1;
    w[0] = Acc(1);
    return 1;
  }
  if (dm.mode == kLinear) {
    const float of = static_cast<float>(o);
    float src = (ac || align_mode == 1) ? mul_rn(dm.ratio, of)
                                        : add_rn(mul_rn(dm.ratio, add_rn(of, 0.5f)), -0.5f);
    src = src > 0.0f ? src : 0.0f;
    int64_t i0 = static_cast<int64_t>(src);
    i0 = i0 < in - 1 ? i0 : in - 1;
    float t = add_rn(src, -static_cast<float>(i0));
    t = t < 1.0f ? t : 1.0f;
    idx[0] = i0;
    idx[1] = i0 + 1 < in - 1 ? i0 + 1 : in - 1;
    w[0] = static_cast<Acc>(add_rn(1.0f, -t));
    w[1] = static_cast<Acc>(t);
    return 2;
  }
  const double r = static_cast<double>(dm.ratio), od = static_cast<double>(o);
  const double src = ac ? mul_rn(r, od) : add_rn(mul_rn(r, add_rn(od, 0.5)), -0.5);
  const double f = floor(src), t = add_rn(src, -f);
  const double a = -0.75;
  const double ws[4] = {cubic_far(t + 1, a), cubic_near(t, a), cubic_near(add_rn(1.0, -t), a),
                        cubic_far(add_rn(2.0, -t), a)};
  for (int j = 0; j < 4; ++j) {
    int64_t i = static_cast<int64_t>(f) - 1 + j;
    i = i < 0 ? 0 : (i > in - 1 ? in - 1 : i);
    idx[j] = i;
    w[j] = static_cast<Acc>(ws[j]);
  }
  return 4;
}

// One thread per output element (n, c, od, oh, ow); out contiguous.
template <class T>
__global__ void __launch_bounds__(kThreads)
    interp_kernel(const T* __restrict__ x, T* __restrict__ y, IGeo g, int64_t total) {
  using Acc = compute_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    int64_t r = e;
    const int64_t ow = r % g.d[2].out;
    r /= g.d[2].out;
    const int64_t oh = r % g.d[1].out;
    r /= g.d[1].out;
    const int64_t od = r % g.d[0].out;
    r /= g.d[0].out;
    const int64_t c = r % g.C, n = r / g.C;
    int64_t id[4], ih[4], iw[4];
    Acc wd[4], wh[4], ww[4];
    const int kd = taps<Acc>(g.d[0], g.ac, g.align_mode, od, id, wd);
    const int kh = taps<Acc>(g.d[1], g.ac, g.align_mode, oh, ih, wh);
    const int kw = taps<Acc>(g.d[2], g.ac, g.align_mode, ow, iw, ww);
    const T* xb = x + n * g.sn + c * g.sc;
    Acc acc = Acc(0);
    for (int l = 0; l < kw; ++l) {
      Acc bl = Acc(0);
      for (int a = 0; a < kd; ++a)
        for (int b = 0; b < kh; ++b) {
          const Acc wgt = mul_rn(wd[a], wh[b]);
          const Acc v = mul_rn(wgt, to_compute(xb[id[a] * g.ss[0] + ih[b] * g.ss[1] +
                                                  iw[l] * g.ss[2]]));
          bl = (a == 0 && b == 0) ? v : add_rn(bl, v);
        }
      acc = add_rn(acc, mul_rn(ww[l], bl));
    }
    y[e] = convert<T>(acc);
  }
}

template <class A>
__device__ __forceinline__ void atomic_add(A* p, A v) {
  atomicAdd(p, v);
}

// One thread per out_grad element, scattering into acc (contiguous [N, C, I]).
template <class T, class A>
__global__ void __launch_bounds__(kThreads)
    interp_grad_kernel(const T* __restrict__ dy, A* __restrict__ acc, IGeo g, int64_t total) {
  using Acc = compute_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t I = g.d[0].in * g.d[1].in * g.d[2].in;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    int64_t r = e;
    const int64_t ow = r % g.d[2].out;
    r /= g.d[2].out;
    const int64_t oh = r % g.d[1].out;
    r /= g.d[1].out;
    const int64_t od = r % g.d[0].out;
    r /= g.d[0].out;
    const int64_t c = r % g.C, n = r / g.C;
    const Acc gy = to_compute(dy[n * g.sn + c * g.sc + od * g.ss[0] + oh * g.ss[1] +
                                 ow * g.ss[2]]);
    int64_t id[4], ih[4], iw[4];
    Acc wd[4], wh[4], ww[4];
    const int kd = taps<Acc>(g.d[0], g.ac, g.align_mode, od, id, wd);
    const int kh = taps<Acc>(g.d[1], g.ac, g.align_mode, oh, ih, wh);
    const int kw = taps<Acc>(g.d[2], g.ac, g.align_mode, ow, iw, ww);
    A* base = acc + (n * g.C + c) * I;
    for (int a = 0; a < kd; ++a)
      for (int b = 0; b < kh; ++b) {
        const Acc wgt = mul_rn(wd[a], wh[b]);
        const int64_t row = (id[a] * g.d[1].in + ih[b]) * g.d[2].in;
        for (int l = 0; l < kw; ++l)
          atomic_add<A>(base + row + iw[l], static_cast<A>(mul_rn(wgt, mul_rn(ww[l], gy))));
      }
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    narrow(const float* __restrict__ in, T* __restrict__ out, int64_t total) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step)
    out[e] = convert<T>(in[e]);
}

// The geometry from the input side `in` (x or dx) and the output side `out` (y or dy); the
// strided side's strides (x for interp, dy for interp_grad) go into g.sn/sc/ss.
bool interp_geom(const OarKernelContext* ctx, const OarTensor& in, const OarTensor& out,
                 const OarTensor& strided, IGeo* g) {
  const int nd = in.ndim - 2;
  if (nd < 1 || nd > 3 || out.ndim != in.ndim || in.shape[0] != out.shape[0] ||
      in.shape[1] != out.shape[1]) {
    fail(ctx, "%s on gpu: x and out must be [N, C, 1 to 3 spatial dims] with the same N and C",
         ctx->op);
    return false;
  }
  const char* m = cv_string(ctx, "mode", "nearest");
  int mode;
  if (std::strcmp(m, "nearest") == 0) mode = kNearest;
  else if (!std::strcmp(m, "linear") || !std::strcmp(m, "bilinear") || !std::strcmp(m, "trilinear"))
    mode = kLinear;
  else if (std::strcmp(m, "bicubic") == 0) mode = kCubic;
  else {
    fail(ctx, "%s on gpu: mode must be 'nearest', 'linear', 'bilinear', 'trilinear' or "
         "'bicubic', got '%s'", ctx->op, m);
    return false;
  }
  g->ac = attr_bool(ctx, "align_corners", false);
  g->align_mode = cv_int(ctx, "align_mode", 0);
  const double scales[3] = {cv_float(ctx, "scale_0", 0.0), cv_float(ctx, "scale_1", 0.0),
                            cv_float(ctx, "scale_2", 0.0)};
  g->N = in.shape[0];
  g->C = in.shape[1];
  g->sn = strided.strides[0];
  g->sc = strided.strides[1];
  for (int d = 0; d < 3; ++d) {
    const int sd = d - (3 - nd);
    IDim& dm = g->d[d];
    g->ss[d] = 0;
    if (sd < 0) {  // leading unit dims: nearest with ratio 1 reads index 0
      dm = IDim{};
      continue;
    }
    g->ss[d] = strided.strides[2 + sd];
    dm.in = in.shape[2 + sd];
    dm.out = out.shape[2 + sd];
    dm.mode = mode;
    if (dm.in < 1) {
      fail(ctx, "%s on gpu: cannot interpolate an empty spatial dimension", ctx->op);
      return false;
    }
    const double scale = scales[sd];
    if (g->ac)
      dm.ratio = dm.out > 1 ? float(dm.in - 1) / float(dm.out - 1) : 0.0f;
    else
      dm.ratio = scale > 0 ? float(1.0 / float(scale)) : float(dm.in) / float(dm.out);
  }
  return true;
}

// ---- grid_sample ------------------------------------------------------------------------------

enum Pad : int { kZeros = 0, kBorder = 1, kReflection = 2 };

struct GGeo {
  int nd = 2;
  bool nearest = false, ac = true;
  int pad = kZeros;
  int64_t N = 0, C = 0, P = 1;
  int64_t size[3] = {1, 1, 1};       // x extents, x (W) first
  int64_t xs_sp[3] = {0, 0, 0};      // x strides in the same order
  int64_t xs_n = 0, xs_c = 0;
  int64_t gpos[3] = {1, 1, 1};       // grid position extents (Do?, Ho, Wo), row-major
  int64_t gs_pos[3] = {0, 0, 0};
  int64_t gs_n = 0, gs_k = 0;
};

__device__ double clip(double v, double hi) { return v <= 0 ? 0 : (v >= hi ? hi : v); }

__device__ double reflect(double v, int64_t twice_lo, int64_t twice_hi) {
  if (twice_lo == twice_hi) return 0;
  const double lo = twice_lo / 2.0, span = (twice_hi - twice_lo) / 2.0;
  v -= lo;
  if (v < 0) v = -v;
  const double extra = fmod(v, span);
  const int64_t flips = static_cast<int64_t>(floor(v / span));
  if (flips % 2 == 0) return extra + lo;
  return span - extra + lo;
}

__device__ double source(double gv, int64_t S, int pad, bool ac) {
  double v = ac ? (gv + 1) / 2 * double(S - 1) : __dadd_rn(__dmul_rn(gv + 1, double(S)), -1.0) / 2;
  if (pad == kBorder) {
    v = clip(v, double(S - 1));
  } else if (pad == kReflection) {
    v = ac ? reflect(v, 0, 2 * (S - 1)) : reflect(v, -1, 2 * S - 1);
    v = clip(v, double(S - 1));
  }
  return v;
}

// One thread per (n, output position), looping over channels.
template <class T>
__global__ void __launch_bounds__(kThreads)
    grid_sample_kernel(const T* __restrict__ x, const T* __restrict__ grid, T* __restrict__ out,
                       GGeo g, int64_t total) {
  using Acc = compute_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    const int64_t pos = e % g.P, n = e / g.P;
    int64_t goff = n * g.gs_n;
    {
      int64_t p = pos;
      for (int d = g.nd - 1; d >= 0; --d) {
        goff += (p % g.gpos[d]) * g.gs_pos[d];
        p /= g.gpos[d];
      }
    }
    double c[3];
    for (int k = 0; k < g.nd; ++k)
      c[k] = source(static_cast<double>(to_compute(grid[goff + k * g.gs_k])), g.size[k], g.pad,
                    g.ac);
    int64_t off[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    Acc w[8] = {};
    int ntaps = 1 << g.nd;
    if (g.nearest) {
      ntaps = 1;
      bool in = true;
      int64_t o = 0;
      for (int k = 0; k < g.nd; ++k) {
        const double r = rint(c[k]);
        in = in && r >= 0 && r < g.size[k];
        o += (in ? static_cast<int64_t>(r) : 0) * g.xs_sp[k];
      }
      off[0] = in ? o : 0;
      w[0] = in ? Acc(1) : Acc(0);
    } else {
      int64_t lo[3];
      double t[3];
      for (int k = 0; k < g.nd; ++k) {
        const double f = floor(c[k]);
        lo[k] = static_cast<int64_t>(f);
        t[k] = c[k] - f;
      }
      for (int j = 0; j < ntaps; ++j) {
        bool in = true;
        int64_t o = 0;
        double wt = 1;
        for (int k = 0; k < g.nd; ++k) {
          const int bit = (j >> k) & 1;
          const int64_t idx = lo[k] + bit;
          in = in && idx >= 0 && idx < g.size[k];
          o += idx * g.xs_sp[k];
          wt *= bit ? t[k] : 1 - t[k];
        }
        off[j] = in ? o : 0;
        w[j] = in ? static_cast<Acc>(wt) : Acc(0);
      }
    }
    const T* xb = x + n * g.xs_n;
    T* ob = out + n * g.C * g.P + pos;
    for (int64_t ch = 0; ch < g.C; ++ch) {
      Acc acc = Acc(0);
      for (int j = 0; j < ntaps; ++j)
        acc = add_rn(acc, mul_rn(w[j], to_compute(xb[ch * g.xs_c + off[j]])));
      ob[ch * g.P] = convert<T>(acc);
    }
  }
}

// ---- affine_grid_base -------------------------------------------------------------------------

__device__ double lin(int64_t i, int64_t S, bool ac) {
  if (S <= 1) return ac ? -1.0 : 0.0;
  const double v = -1.0 + 2.0 * double(i) / double(S - 1);
  return ac ? v : v * double(S - 1) / double(S);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    affine_grid_kernel(T* __restrict__ p, int64_t D, int64_t H, int64_t W, bool ac,
                       int64_t total) {
  const int64_t row = D > 0 ? 4 : 3;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    const int64_t w = e % W, h = (e / W) % H, d = e / (W * H);
    T* q = p + e * row;
    q[0] = convert<T>(lin(w, W, ac));
    q[1] = convert<T>(lin(h, H, ac));
    if (D > 0) q[2] = convert<T>(lin(d, D, ac));
    q[row - 1] = convert<T>(1.0);
  }
}

}  // namespace

// interp: x -> out.
OarStatus k_interp(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (out.dtype != x.dtype) return fail(ctx, "interp on gpu: out must have x's dtype");
  if (!is_contiguous(out)) return fail(ctx, "interp on gpu: out must be contiguous");
  IGeo g;
  if (!interp_geom(ctx, x, out, x, &g)) return OAR_STATUS_ERROR;
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const bool found = dispatch(FloatTypes{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    interp_kernel<T><<<cv_blocks(ctx->device_id, out.numel), kThreads, 0, stream>>>(
        static_cast<const T*>(x.data), static_cast<T*>(out.data), g, out.numel);
  });
  if (!found) return unsupported(ctx, x.dtype);
  return check_launch(ctx, ctx->op);
}

// interp_grad: out_grad -> dx (input_shape).
OarStatus k_interp_grad(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& dy = ctx->inputs[0];
  const OarTensor& dx = ctx->outputs[0];
  if (dx.dtype != dy.dtype) return fail(ctx, "interp_grad on gpu: out must have out_grad's dtype");
  if (!is_contiguous(dx)) return fail(ctx, "interp_grad on gpu: out must be contiguous");
  IGeo g;
  if (!interp_geom(ctx, dx, dy, dy, &g)) return OAR_STATUS_ERROR;
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (dx.numel == 0) return OAR_STATUS_OK;
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(FloatTypes{}, dy.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = std::conditional_t<is_half_v<T>, float, T>;
    Scratch buf;
    A* acc = static_cast<A*>(dx.data);
    if constexpr (is_half_v<T>) {
      if ((st = buf.alloc(ctx, stream, static_cast<size_t>(dx.numel) * sizeof(float)))) return;
      acc = buf.as<float>();
    }
    cudaError_t err =
        cudaMemsetAsync(acc, 0, static_cast<size_t>(dx.numel) * sizeof(A), stream);
    if (err != cudaSuccess) {
      st = cuda_fail(ctx, err, "cudaMemsetAsync");
      return;
    }
    if (dy.numel > 0) {
      interp_grad_kernel<T, A><<<cv_blocks(ctx->device_id, dy.numel), kThreads, 0, stream>>>(
          static_cast<const T*>(dy.data), acc, g, dy.numel);
      if ((st = check_launch(ctx, ctx->op))) return;
    }
    if constexpr (is_half_v<T>) {
      narrow<T><<<cv_blocks(ctx->device_id, dx.numel), kThreads, 0, stream>>>(
          acc, static_cast<T*>(dx.data), dx.numel);
      st = check_launch(ctx, ctx->op);
    }
  });
  return found ? st : unsupported(ctx, dy.dtype);
}

// grid_sample_base: {x, grid} -> out.
OarStatus k_grid_sample(const OarKernelContext* ctx) {
  if (ctx->num_inputs < 2 || ctx->num_outputs != 1 || ctx->inputs[0].ndim < 0 ||
      ctx->inputs[1].ndim < 0 || ctx->outputs[0].ndim < 0)
    return fail(ctx, "grid_sample_base on gpu expects x, grid and one output");
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& grid = ctx->inputs[1];
  const OarTensor& out = ctx->outputs[0];
  if (grid.dtype != x.dtype || out.dtype != x.dtype)
    return fail(ctx, "grid_sample_base on gpu: x, grid and out must share a dtype");
  if (!is_contiguous(out)) return fail(ctx, "grid_sample_base on gpu: out must be contiguous");
  const char* mode = cv_string(ctx, "mode", "bilinear");
  const char* padding = cv_string(ctx, "padding_mode", "zeros");
  if (std::strcmp(mode, "bilinear") != 0 && std::strcmp(mode, "nearest") != 0)
    return fail(ctx, "grid_sample_base on gpu: mode must be 'bilinear' or 'nearest', got '%s'",
                mode);
  GGeo g;
  if (std::strcmp(padding, "zeros") == 0) g.pad = kZeros;
  else if (std::strcmp(padding, "border") == 0) g.pad = kBorder;
  else if (std::strcmp(padding, "reflection") == 0) g.pad = kReflection;
  else
    return fail(ctx, "grid_sample_base on gpu: padding_mode must be 'zeros', 'border' or "
                "'reflection', got '%s'", padding);
  g.nearest = std::strcmp(mode, "nearest") == 0;
  g.ac = attr_bool(ctx, "align_corners", true);
  const int nd = x.ndim - 2;
  if ((nd != 2 && nd != 3) || grid.ndim != nd + 2 || grid.shape[grid.ndim - 1] != nd ||
      grid.shape[0] != x.shape[0] || out.ndim != x.ndim || out.shape[0] != x.shape[0] ||
      out.shape[1] != x.shape[1])
    return fail(ctx, "grid_sample_base on gpu: x, grid and out do not fit");
  for (int d = 0; d < nd; ++d)
    if (out.shape[2 + d] != grid.shape[1 + d])
      return fail(ctx, "grid_sample_base on gpu: out does not fit the grid");
  g.nd = nd;
  g.N = x.shape[0];
  g.C = x.shape[1];
  g.xs_n = x.strides[0];
  g.xs_c = x.strides[1];
  for (int k = 0; k < nd; ++k) {
    g.size[k] = x.shape[x.ndim - 1 - k];
    g.xs_sp[k] = x.strides[x.ndim - 1 - k];
  }
  g.P = 1;
  for (int d = 0; d < nd; ++d) {
    g.gpos[d] = grid.shape[1 + d];
    g.gs_pos[d] = grid.strides[1 + d];
    g.P *= g.gpos[d];
  }
  g.gs_n = grid.strides[0];
  g.gs_k = grid.strides[grid.ndim - 1];
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const int64_t total = g.N * g.P;
  const bool found = dispatch(FloatTypes{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    grid_sample_kernel<T><<<cv_blocks(ctx->device_id, total), kThreads, 0, stream>>>(
        static_cast<const T*>(x.data), static_cast<const T*>(grid.data),
        static_cast<T*>(out.data), g, total);
  });
  if (!found) return unsupported(ctx, x.dtype);
  return check_launch(ctx, ctx->op);
}

// affine_grid_base: no inputs -> out.
OarStatus k_affine_grid_base(const OarKernelContext* ctx) {
  if (ctx->num_outputs != 1 || ctx->outputs[0].ndim < 0)
    return fail(ctx, "affine_grid_base on gpu expects one output");
  const OarTensor& out = ctx->outputs[0];
  if (!is_contiguous(out)) return fail(ctx, "affine_grid_base on gpu: out must be contiguous");
  const int64_t D = cv_int(ctx, "depth", 0), H = cv_int(ctx, "height", 1),
                W = cv_int(ctx, "width", 1);
  const bool ac = attr_bool(ctx, "align_corners", true);
  const int64_t row = D > 0 ? 4 : 3;
  const int64_t points = (D > 1 ? D : 1) * H * W;
  if (D < 0 || H < 0 || W < 0 || out.numel != points * row)
    return fail(ctx, "affine_grid_base on gpu: out does not fit the grid");
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (points == 0) return OAR_STATUS_OK;
  const bool found = dispatch(FloatTypes{}, out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    affine_grid_kernel<T><<<cv_blocks(ctx->device_id, points), kThreads, 0, stream>>>(
        static_cast<T*>(out.data), D, H, W, ac, points);
  });
  if (!found) return unsupported(ctx, out.dtype);
  return check_launch(ctx, ctx->op);
}

}  // namespace oar_cuda
