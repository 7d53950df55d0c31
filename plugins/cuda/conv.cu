// Convolutions over 1 to 3 spatial dims: convolution (forward), convolution_input_grad (its
// gradient with respect to x, also oar's transposed convolution) and convolution_weight_grad.
//
// Contract (as plugins/custom_cpu/conv.cc): x [N, C, S...] (or [N, S..., C] with channel_last),
// weight [M, C / groups, K...], bias? [M]; attrs stride (nd), padding (2 nd: before/after per
// dim), dilation (nd), groups, channel_last. convolution_input_grad takes (out_grad, weight) and
// writes dx (input_shape); convolution_weight_grad takes (x, out_grad) and writes dw
// (weight_shape). Operands may be any strided views; outputs are contiguous. float32, float64,
// float16, bfloat16; 16-bit types accumulate in float, float64 in double.
//
// How: im2col + GEMM (cuBLAS). For a chunk of nb images (the column buffer kept under 512 MiB),
// col[c][k][nl][o] holds the input value that output position o of image n0 + nl reads through
// kernel tap k of channel c (0 in the padding). Per group g and image: y_g = W_g col_g (written
// straight into y, either layout), dcol_g = W_g^T dy_g (then a gather col2im: every input element
// sums the dcol entries of the taps that read it, deterministic), dW_g += dy_g col_g^T with the
// images of a chunk along the reduction (out_grad packed as [m][nl][o] for that). A 1x1,
// stride-1, unpadded channel-first forward reads x directly instead of a column buffer.
//
// cuDNN first: when cuDNN could be loaded at run time (cudnn_loader.h) each kernel hands the
// case to conv_cudnn.cc (operands packed and aligned here, the weight transposed to cuDNN's NHWC
// filter layout for channel_last, the bias filled in first and accumulated onto, as the GEMM
// does), and runs the im2col path above only when cuDNN declines or fails; that path then
// rewrites the whole output. OAR_CUDA_DISABLE_CUDNN=1 forces im2col.
#include "plugins/cuda/conv.cuh"
#include "plugins/cuda/conv_cudnn.h"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

constexpr int kSp = 3;                          // spatial dims handled
constexpr int64_t kColBudget = int64_t{512} << 20;  // bytes of one column buffer
constexpr int kThreads = 256;

struct Geo {
  int nd = 0;
  int64_t N = 0, C = 0, M = 0, G = 1, Cg = 0, Mg = 0, K = 1, O = 1, I = 1;
  int64_t in_sp[kSp] = {}, out_sp[kSp] = {}, ks[kSp] = {}, stride[kSp] = {}, pad[kSp] = {},
          dil[kSp] = {};
};

// Strides of an image tensor (the input side or the output side) as (n, c, spatial dims).
struct Img {
  int64_t n = 0, c = 0, sp[kSp] = {};
};

// The view of t as an image batch; false (message in ctx) when it has too few or many dims.
bool image(const OarKernelContext* ctx, const OarTensor& t, bool cl, const char* role,
           int64_t* N, int64_t* C, int64_t* sp, Img* s) {
  const int nd = t.ndim - 2;
  if (nd < 1 || nd > kSp) {
    fail(ctx, "%s on gpu: '%s' must have batch, channel and 1 to %d spatial dims, got %d dims",
         ctx->op, role, kSp, t.ndim);
    return false;
  }
  const int c_dim = cl ? t.ndim - 1 : 1, sp0 = cl ? 1 : 2;
  *N = t.shape[0];
  *C = t.shape[c_dim];
  s->n = t.strides[0];
  s->c = t.strides[c_dim];
  for (int d = 0; d < nd; ++d) {
    sp[d] = t.shape[sp0 + d];
    s->sp[d] = t.strides[sp0 + d];
  }
  return true;
}

// The geometry of a convolution from `in` to `out` by a weight of shape w_shape (w_ndim dims).
bool geometry(const OarKernelContext* ctx, const OarTensor& in, const OarTensor& out,
              const int64_t* w_shape, int w_ndim, bool cl, Geo* g, Img* is, Img* os) {
  int64_t on = 0, oc = 0;
  if (!image(ctx, in, cl, "input", &g->N, &g->C, g->in_sp, is)) return false;
  if (!image(ctx, out, cl, "output", &on, &oc, g->out_sp, os)) return false;
  const int nd = in.ndim - 2;
  g->nd = nd;
  if (out.ndim != in.ndim || w_ndim != nd + 2) {
    fail(ctx, "%s on gpu: x, weight and out must have the same number of dimensions", ctx->op);
    return false;
  }
  int64_t padding[2 * kSp];
  if (!cv_ints(ctx, "stride", nd, g->stride) || !cv_ints(ctx, "padding", 2 * nd, padding) ||
      !cv_ints(ctx, "dilation", nd, g->dil)) {
    fail(ctx, "%s on gpu: stride and dilation need %d entries and padding %d", ctx->op, nd,
         2 * nd);
    return false;
  }
  g->G = cv_int(ctx, "groups", 1);
  g->M = w_shape[0];
  g->Cg = w_shape[1];
  if (g->G < 1 || g->C != g->Cg * g->G || g->M % g->G != 0 || oc != g->M || on != g->N) {
    fail(ctx, "%s on gpu: x (%lld channels), weight and out (%lld channels) do not match with "
         "groups = %lld", ctx->op, static_cast<long long>(g->C), static_cast<long long>(oc),
         static_cast<long long>(g->G));
    return false;
  }
  g->Mg = g->M / g->G;
  g->K = 1;
  g->O = 1;
  g->I = 1;
  for (int d = 0; d < nd; ++d) {
    g->ks[d] = w_shape[2 + d];
    g->pad[d] = padding[2 * d];
    if (g->stride[d] < 1 || g->dil[d] < 1) {
      fail(ctx, "%s on gpu: stride and dilation must be positive", ctx->op);
      return false;
    }
    const int64_t span = g->in_sp[d] + padding[2 * d] + padding[2 * d + 1] -
                         g->dil[d] * (g->ks[d] - 1) - 1;
    const int64_t want = span < 0 ? 0 : span / g->stride[d] + 1;
    if (g->out_sp[d] != want) {
      fail(ctx, "%s on gpu: spatial dim %d: out has %lld positions, the convolution gives %lld",
           ctx->op, d, static_cast<long long>(g->out_sp[d]), static_cast<long long>(want));
      return false;
    }
    g->K *= g->ks[d];
    g->O *= g->out_sp[d];
    g->I *= g->in_sp[d];
  }
  return true;
}

bool channel_last(const OarKernelContext* ctx) { return attr_bool(ctx, "channel_last", false); }

// Images per chunk: the column buffer (elements per image `per_image` of `esize` bytes) within
// the budget, at least one, and nb * O within cuBLAS's int range.
int64_t chunk_images(const Geo& g, int64_t per_image, size_t esize) {
  const int64_t bytes = per_image * static_cast<int64_t>(esize);
  int64_t nb = bytes > 0 ? kColBudget / bytes : g.N;
  if (g.O > 0 && nb > INT32_MAX / g.O) nb = INT32_MAX / g.O;
  if (nb > g.N) nb = g.N;
  return nb < 1 ? 1 : nb;
}

// ---- device kernels ---------------------------------------------------------------------------

// col[((c K + k) nb + nl) O + o] = x at the input position output o reads through tap k.
template <class T>
__global__ void __launch_bounds__(kThreads)
    im2col_kernel(const T* __restrict__ x, T* __restrict__ col, Img xs, Geo g, int64_t n0,
                  int64_t nb, int64_t total) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    int64_t r = e;
    int64_t o = r % g.O;
    r /= g.O;
    const int64_t nl = r % nb;
    r /= nb;
    int64_t k = r % g.K;
    const int64_t c = r / g.K;
    int64_t off = (n0 + nl) * xs.n + c * xs.c;
    bool inside = true;
    for (int d = g.nd - 1; d >= 0; --d) {
      const int64_t od = o % g.out_sp[d], kd = k % g.ks[d];
      o /= g.out_sp[d];
      k /= g.ks[d];
      const int64_t i = od * g.stride[d] - g.pad[d] + kd * g.dil[d];
      inside = inside && i >= 0 && i < g.in_sp[d];
      off += i * xs.sp[d];
    }
    col[e] = inside ? x[off] : convert<T>(0.0f);
  }
}

// dx at (n0 + nl, c, input position i) = the sum of dcol over the (tap, output) pairs reading it.
// Threads walk dx in its own layout (cl: channel innermost).
template <class T, class Acc>
__global__ void __launch_bounds__(kThreads)
    col2im_kernel(const Acc* __restrict__ dcol, T* __restrict__ dx, Img xs, Geo g, int64_t n0,
                  int64_t nb, int64_t total, bool cl) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    int64_t c, i, nl;
    if (cl) {
      c = e % g.C;
      const int64_t r = e / g.C;
      i = r % g.I;
      nl = r / g.I;
    } else {
      i = e % g.I;
      const int64_t r = e / g.I;
      c = r % g.C;
      nl = r / g.C;
    }
    int64_t ic[kSp];
    int64_t off = (n0 + nl) * xs.n + c * xs.c;
    for (int d = g.nd - 1; d >= 0; --d) {
      ic[d] = i % g.in_sp[d];
      i /= g.in_sp[d];
      off += ic[d] * xs.sp[d];
    }
    Acc sum = Acc(0);
    const Acc* base = dcol + (c * g.K * nb + nl) * g.O;  // tap k adds k * nb * O
    for (int64_t k = 0; k < g.K; ++k) {
      int64_t kk = k, o = 0, mult = 1;
      bool ok = true;
      for (int d = g.nd - 1; d >= 0 && ok; --d) {
        const int64_t kd = kk % g.ks[d];
        kk /= g.ks[d];
        const int64_t t = ic[d] + g.pad[d] - kd * g.dil[d];
        if (t < 0 || t % g.stride[d] != 0) {
          ok = false;
          break;
        }
        const int64_t od = t / g.stride[d];
        if (od >= g.out_sp[d]) {
          ok = false;
          break;
        }
        o += od * mult;
        mult *= g.out_sp[d];
      }
      if (ok) sum += base[k * nb * g.O + o];
    }
    dx[off] = convert<T>(sum);
  }
}

// dyp[(m nb + nl) O + o] = dy[n0 + nl, m, o].
template <class T>
__global__ void __launch_bounds__(kThreads)
    pack_kernel(const T* __restrict__ dy, T* __restrict__ dyp, Img ys, Geo g, int64_t n0,
                int64_t nb, int64_t total) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    int64_t o = e % g.O;
    const int64_t r = e / g.O;
    const int64_t nl = r % nb, m = r / nb;
    int64_t off = (n0 + nl) * ys.n + m * ys.c;
    for (int d = g.nd - 1; d >= 0; --d) {
      off += (o % g.out_sp[d]) * ys.sp[d];
      o /= g.out_sp[d];
    }
    dyp[e] = dy[off];
  }
}

// y[e] = bias[channel of e] (y contiguous, channel-first or channel-last).
template <class T>
__global__ void __launch_bounds__(kThreads)
    bias_fill_kernel(T* __restrict__ y, const T* __restrict__ bias, int64_t b_stride, int64_t M,
                     int64_t O, bool cl, int64_t total) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    const int64_t m = cl ? e % M : (e / O) % M;
    y[e] = bias[m * b_stride];
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    narrow_kernel(const float* __restrict__ in, T* __restrict__ out, int64_t total) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step)
    out[e] = convert<T>(in[e]);
}

// ---- host helpers -----------------------------------------------------------------------------

// Strides of one GEMM operand over groups and over the images of a chunk, in elements.
struct Walk {
  int64_t g = 0, n = 0;
};

// Runs `base` for every (group, image) pair: strided-batched over the larger of the two, a host
// loop over the other.
OarStatus gemm_groups_images(const OarKernelContext* ctx, cudaStream_t stream,
                             const GemmArgs& base, int64_t G, int64_t nb, Walk a, Walk b, Walk c) {
  const int64_t ab = static_cast<int64_t>(dtype_size(base.ab_dtype));
  const int64_t cs = static_cast<int64_t>(dtype_size(base.c_dtype));
  const bool over_images = nb >= G;
  const int64_t outer = over_images ? G : nb;
  for (int64_t j = 0; j < outer; ++j) {
    GemmArgs q = base;
    q.a = static_cast<const char*>(base.a) + (over_images ? a.g : a.n) * j * ab;
    q.b = static_cast<const char*>(base.b) + (over_images ? b.g : b.n) * j * ab;
    q.c = static_cast<char*>(base.c) + (over_images ? c.g : c.n) * j * cs;
    q.sa = over_images ? a.n : a.g;
    q.sb = over_images ? b.n : b.g;
    q.sc = over_images ? c.n : c.g;
    q.batch = over_images ? nb : G;
    if (OarStatus st = gemm(ctx, stream, q)) return st;
  }
  return OAR_STATUS_OK;
}

OarStatus zero(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& t) {
  const cudaError_t err =
      cudaMemsetAsync(t.data, 0, static_cast<size_t>(t.numel) * dtype_size(t.dtype), stream);
  return err == cudaSuccess ? OAR_STATUS_OK : cuda_fail(ctx, err, "cudaMemsetAsync");
}

bool same_dtypes(const OarKernelContext* ctx, const OarTensor& a, const OarTensor& b,
                 const OarTensor& out) {
  if (a.dtype == b.dtype && out.dtype == a.dtype) return true;
  fail(ctx, "%s on gpu needs operands and out of one dtype, got %s, %s and %s", ctx->op,
       dtype_name(a.dtype), dtype_name(b.dtype), dtype_name(out.dtype));
  return false;
}

template <class T>
OarStatus im2col(const OarKernelContext* ctx, cudaStream_t stream, const T* x, T* col,
                 const Img& xs, const Geo& g, int64_t n0, int64_t nb) {
  const int64_t total = g.C * g.K * nb * g.O;
  if (total == 0) return OAR_STATUS_OK;
  im2col_kernel<T><<<cv_blocks(ctx->device_id, total), kThreads, 0, stream>>>(x, col, xs, g, n0,
                                                                              nb, total);
  return check_launch(ctx, "im2col");
}

// ---- convolution ------------------------------------------------------------------------------

template <class T>
OarStatus conv_forward(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& x,
                       const OarTensor& w, const OarTensor* bias, const OarTensor& out,
                       const Geo& g, const Img& xs, bool cl) {
  T* y = static_cast<T*>(out.data);
  const int64_t CK = g.Cg * g.K;
  if (bias) {
    bias_fill_kernel<T><<<cv_blocks(ctx->device_id, out.numel), kThreads, 0, stream>>>(
        y, static_cast<const T*>(bias->data), bias->strides[0], g.M, g.O, cl, out.numel);
    if (OarStatus st = check_launch(ctx, "bias")) return st;
  } else if (CK == 0) {
    return zero(ctx, stream, out);
  }
  if (CK == 0) return OAR_STATUS_OK;  // no input channels or taps: the bias alone
  Scratch wbuf;
  const T* wp = nullptr;
  if (OarStatus st = cv_contiguous<T>(ctx, stream, w, wbuf, &wp)) return st;

  // 1x1, stride 1, no padding, channel-first with unit-stride positions: x is its own column.
  bool direct = !cl && xs.c >= g.O && xs.c <= INT32_MAX;
  int64_t expect = 1;
  for (int d = g.nd - 1; d >= 0 && direct; --d) {
    direct = g.ks[d] == 1 && g.stride[d] == 1 && g.pad[d] == 0 && g.in_sp[d] == g.out_sp[d] &&
             (g.in_sp[d] == 1 || xs.sp[d] == expect);
    expect *= g.in_sp[d];
  }
  const int64_t nb = direct ? g.N : chunk_images(g, g.C * g.K * g.O, sizeof(T));
  Scratch colbuf;
  if (!direct) {
    if (OarStatus st = colbuf.alloc(ctx, stream, static_cast<size_t>(g.C * g.K * nb * g.O) *
                                                     sizeof(T)))
      return st;
  }
  const T* xp = static_cast<const T*>(x.data);
  for (int64_t n0 = 0; n0 < g.N; n0 += nb) {
    const int64_t nbc = g.N - n0 < nb ? g.N - n0 : nb;
    const int64_t J = nbc * g.O;
    const T* colp;
    int64_t ld;
    Walk cw;
    if (direct) {
      colp = xp + n0 * xs.n;
      ld = xs.c;
      cw = {g.Cg * xs.c, xs.n};
    } else {
      if (OarStatus st = im2col<T>(ctx, stream, xp, colbuf.as<T>(), xs, g, n0, nbc)) return st;
      colp = colbuf.as<T>();
      ld = J;
      cw = {CK * J, g.O};
    }
    GemmArgs a;
    a.k = CK;
    a.beta = bias ? 1.0 : 0.0;
    a.ab_dtype = a.c_dtype = dtype_of<T>();
    a.c = y + n0 * g.M * g.O;
    if (!cl) {
      // y_n^T (O x Mg, ld O) = col^T (O x CK) * W_g^T (CK x Mg).
      a.m = g.O;
      a.n = g.Mg;
      a.a = colp;
      a.lda = ld;
      a.b = wp;
      a.ldb = CK;
      a.ldc = g.O;
      if (OarStatus st = gemm_groups_images(ctx, stream, a, g.G, nbc, cw, Walk{g.Mg * CK, 0},
                                            Walk{g.Mg * g.O, g.M * g.O}))
        return st;
    } else {
      // y_n (Mg x O column-major, ld M) = W_g (Mg x CK) * col (CK x O).
      a.m = g.Mg;
      a.n = g.O;
      a.ta = true;
      a.a = wp;
      a.lda = CK;
      a.tb = true;
      a.b = colp;
      a.ldb = ld;
      a.ldc = g.M;
      if (OarStatus st = gemm_groups_images(ctx, stream, a, g.G, nbc, Walk{g.Mg * CK, 0}, cw,
                                            Walk{g.Mg, g.O * g.M}))
        return st;
    }
  }
  return OAR_STATUS_OK;
}

// ---- input gradient ---------------------------------------------------------------------------

template <class T>
OarStatus conv_input_grad(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& dy,
                          const OarTensor& w, const OarTensor& dx, const Geo& g, const Img& xs,
                          bool cl) {
  using Acc = compute_t<T>;
  if (g.Mg == 0 || g.K == 0 || g.O == 0) return zero(ctx, stream, dx);
  Scratch wbuf, ybuf;
  const T* wp = nullptr;
  const T* yp = nullptr;
  if (OarStatus st = cv_contiguous<T>(ctx, stream, w, wbuf, &wp)) return st;
  if (OarStatus st = cv_contiguous<T>(ctx, stream, dy, ybuf, &yp)) return st;
  const int64_t CK = g.Cg * g.K;
  const int64_t nb = chunk_images(g, g.C * g.K * g.O, sizeof(Acc));
  Scratch colbuf;
  if (OarStatus st =
          colbuf.alloc(ctx, stream, static_cast<size_t>(g.C * g.K * nb * g.O) * sizeof(Acc)))
    return st;
  T* dxp = static_cast<T*>(dx.data);
  for (int64_t n0 = 0; n0 < g.N; n0 += nb) {
    const int64_t nbc = g.N - n0 < nb ? g.N - n0 : nb;
    const int64_t J = nbc * g.O;
    // dcol^T (O x CK, ld J) = dy_g^T (O x Mg) * W_g (Mg x CK).
    GemmArgs a;
    a.m = g.O;
    a.n = CK;
    a.k = g.Mg;
    a.ab_dtype = dtype_of<T>();
    a.c_dtype = dtype_of<Acc>();
    a.a = yp + n0 * g.M * g.O;
    a.b = wp;
    a.tb = true;
    a.ldb = CK;
    a.c = colbuf.p;
    a.ldc = J;
    Walk aw;
    if (!cl) {
      a.lda = g.O;
      aw = {g.Mg * g.O, g.M * g.O};
    } else {
      a.ta = true;
      a.lda = g.M;
      aw = {g.Mg, g.O * g.M};
    }
    if (OarStatus st = gemm_groups_images(ctx, stream, a, g.G, nbc, aw, Walk{g.Mg * CK, 0},
                                          Walk{CK * J, g.O}))
      return st;
    const int64_t total = nbc * g.C * g.I;
    if (total == 0) continue;
    col2im_kernel<T, Acc><<<cv_blocks(ctx->device_id, total), kThreads, 0, stream>>>(
        colbuf.as<const Acc>(), dxp, xs, g, n0, nbc, total, cl);
    if (OarStatus st = check_launch(ctx, "col2im")) return st;
  }
  return OAR_STATUS_OK;
}

// ---- weight gradient --------------------------------------------------------------------------

template <class T>
OarStatus conv_weight_grad(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& x,
                           const OarTensor& dy, const OarTensor& dw, const Geo& g, const Img& xs,
                           const Img& ys) {
  if (g.N == 0 || g.O == 0 || g.K == 0) return zero(ctx, stream, dw);
  const int64_t CK = g.Cg * g.K;
  // Column buffer and packed out_grad per image, together within the budget.
  const int64_t nb = chunk_images(g, (g.C * g.K + g.M) * g.O, sizeof(T));
  const bool chunks = nb < g.N;
  const bool wide = is_half_v<T> && chunks;  // accumulate across chunks in float
  Scratch colbuf, ybuf, accbuf;
  if (OarStatus st =
          colbuf.alloc(ctx, stream, static_cast<size_t>(g.C * g.K * nb * g.O) * sizeof(T)))
    return st;
  if (OarStatus st = ybuf.alloc(ctx, stream, static_cast<size_t>(g.M * nb * g.O) * sizeof(T)))
    return st;
  if (wide) {
    if (OarStatus st = accbuf.alloc(ctx, stream, static_cast<size_t>(dw.numel) * sizeof(float)))
      return st;
  }
  const T* xp = static_cast<const T*>(x.data);
  const T* dyp = static_cast<const T*>(dy.data);
  for (int64_t n0 = 0; n0 < g.N; n0 += nb) {
    const int64_t nbc = g.N - n0 < nb ? g.N - n0 : nb;
    const int64_t J = nbc * g.O;
    if (OarStatus st = im2col<T>(ctx, stream, xp, colbuf.as<T>(), xs, g, n0, nbc)) return st;
    const int64_t total = g.M * J;
    pack_kernel<T><<<cv_blocks(ctx->device_id, total), kThreads, 0, stream>>>(
        dyp, ybuf.as<T>(), ys, g, n0, nbc, total);
    if (OarStatus st = check_launch(ctx, "pack out_grad")) return st;
    // dW_g^T (CK x Mg, ld CK) = col_g (CK x J) * dy_g^T (J x Mg).
    GemmArgs a;
    a.m = CK;
    a.n = g.Mg;
    a.k = J;
    a.ta = true;
    a.a = colbuf.p;
    a.lda = J;
    a.sa = CK * J;
    a.b = ybuf.p;
    a.ldb = J;
    a.sb = g.Mg * J;
    a.c = wide ? accbuf.p : dw.data;
    a.ldc = CK;
    a.sc = g.Mg * CK;
    a.batch = g.G;
    a.beta = n0 == 0 ? 0.0 : 1.0;
    a.ab_dtype = dtype_of<T>();
    a.c_dtype = wide ? OAR_FLOAT32 : dtype_of<T>();
    if (OarStatus st = gemm(ctx, stream, a)) return st;
  }
  if (wide) {
    narrow_kernel<T><<<cv_blocks(ctx->device_id, dw.numel), kThreads, 0, stream>>>(
        accbuf.as<const float>(), static_cast<T*>(dw.data), dw.numel);
    return check_launch(ctx, "convert");
  }
  return OAR_STATUS_OK;
}

// ---- cuDNN ------------------------------------------------------------------------------------

// A 1x1, stride-1, unpadded channel-first convolution: a plain GEMM over x. Measured on an H200
// (bench: plugins/cuda/cuda_bench.cc), cuDNN's forward took 3-16x and its weight gradient up to
// 7x the GEMM path's time there, so those two keep the GEMM path (its input gradient gains from
// cuDNN and takes it).
bool pointwise_channel_first(const Geo& g, bool cl) {
  if (cl) return false;
  for (int d = 0; d < g.nd; ++d)
    if (g.ks[d] != 1 || g.stride[d] != 1 || g.pad[d] != 0 || g.dil[d] != 1 || g.in_sp[d] != g.out_sp[d])
      return false;
  return true;
}

// The cuDNN description of the convolution g, or false when cuDNN is unavailable or the case is
// degenerate (no channels, taps or positions: the im2col path handles those).
bool cudnn_case(const Geo& g, bool cl, int32_t dtype, CudnnConv* p) {
  if (g.N == 0 || g.Cg == 0 || g.Mg == 0 || g.K == 0 || g.O == 0 || g.I == 0) return false;
  if (!cudnn_conv_available()) return false;
  p->nd = g.nd;
  p->N = g.N;
  p->C = g.C;
  p->M = g.M;
  p->G = g.G;
  for (int d = 0; d < g.nd; ++d) {
    p->in_sp[d] = g.in_sp[d];
    p->out_sp[d] = g.out_sp[d];
    p->ks[d] = g.ks[d];
    p->stride[d] = g.stride[d];
    p->pad[d] = g.pad[d];
    p->dil[d] = g.dil[d];
  }
  p->cl = cl;
  p->dtype = dtype;
  return true;
}

// The order of dims that turns a [M, C/G, K...] weight into cuDNN's NHWC filter [M, K..., C/G];
// the identity when !cl.
void filter_perm(int ndim, bool cl, int* perm) {
  for (int i = 0; i < ndim; ++i) perm[i] = i;
  if (!cl) return;
  for (int i = 1; i < ndim - 1; ++i) perm[i] = i + 1;
  perm[ndim - 1] = 1;
}

// *data = t's elements in the dim order perm (view dim i is t's dim perm[i]), packed and 16-byte
// aligned: t.data itself when that already holds, else a copy in `buf`.
template <class T>
OarStatus cv_packed(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& t,
                    const int* perm, Scratch& buf, const T** data) {
  if (t.ndim > 16) return fail(ctx, "%s on gpu: too many dims", ctx->op);
  int64_t shape[16], in_strides[16], strides[16];
  bool identity = true;
  for (int i = 0; i < t.ndim; ++i) {
    shape[i] = t.shape[perm[i]];
    in_strides[i] = t.strides[perm[i]];
    identity = identity && perm[i] == i;
  }
  if (identity && is_contiguous(t) && reinterpret_cast<uintptr_t>(t.data) % 16 == 0) {
    *data = static_cast<const T*>(t.data);
    return OAR_STATUS_OK;
  }
  if (OarStatus st = buf.alloc(ctx, stream, static_cast<size_t>(t.numel) * sizeof(T))) return st;
  int64_t acc = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    strides[d] = acc;
    acc *= shape[d];
  }
  OarTensor in = t;
  in.shape = shape;
  in.strides = in_strides;
  OarTensor out = in;
  out.data = buf.p;
  out.strides = strides;
  const OarTensor* const ins[2] = {&in, nullptr};
  *data = buf.as<const T>();
  return run_elementwise<T, T>(ctx, stream, CvIdentity<T>{}, out, ins);
}

// The forward through cuDNN; false: not done (the caller runs conv_forward).
template <class T>
bool cudnn_forward(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& x,
                   const OarTensor& w, const OarTensor* bias, const OarTensor& out, const Geo& g,
                   bool cl) {
  CudnnConv p;
  if (!cudnn_case(g, cl, dtype_of<T>(), &p)) return false;
  int ident[16], fperm[16];
  filter_perm(x.ndim, false, ident);
  filter_perm(w.ndim, cl, fperm);
  Scratch xbuf, wbuf;
  const T* xp = nullptr;
  const T* wp = nullptr;
  if (cv_packed<T>(ctx, stream, x, ident, xbuf, &xp) ||
      cv_packed<T>(ctx, stream, w, fperm, wbuf, &wp))
    return false;
  if (bias) {
    bias_fill_kernel<T><<<cv_blocks(ctx->device_id, out.numel), kThreads, 0, stream>>>(
        static_cast<T*>(out.data), static_cast<const T*>(bias->data), bias->strides[0], g.M,
        g.O, cl, out.numel);
    if (check_launch(ctx, "bias")) return false;
  }
  return cudnn_conv_forward(ctx, stream, p, xp, wp, out.data, bias != nullptr);
}

// The input gradient through cuDNN; false: not done.
template <class T>
bool cudnn_input_grad(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& dy,
                      const OarTensor& w, const OarTensor& dx, const Geo& g, bool cl) {
  CudnnConv p;
  if (!cudnn_case(g, cl, dtype_of<T>(), &p)) return false;
  int ident[16], fperm[16];
  filter_perm(dy.ndim, false, ident);
  filter_perm(w.ndim, cl, fperm);
  Scratch ybuf, wbuf;
  const T* yp = nullptr;
  const T* wp = nullptr;
  if (cv_packed<T>(ctx, stream, dy, ident, ybuf, &yp) ||
      cv_packed<T>(ctx, stream, w, fperm, wbuf, &wp))
    return false;
  return cudnn_conv_backward_data(ctx, stream, p, yp, wp, dx.data);
}

// The weight gradient through cuDNN; false: not done. Channel-last writes cuDNN's [M, K..., C/G]
// into scratch, then transposes it into dw.
template <class T>
bool cudnn_weight_grad(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& x,
                       const OarTensor& dy, const OarTensor& dw, const Geo& g, bool cl) {
  CudnnConv p;
  if (!cudnn_case(g, cl, dtype_of<T>(), &p)) return false;
  int ident[16];
  filter_perm(x.ndim, false, ident);
  Scratch xbuf, ybuf;
  const T* xp = nullptr;
  const T* yp = nullptr;
  if (cv_packed<T>(ctx, stream, x, ident, xbuf, &xp) ||
      cv_packed<T>(ctx, stream, dy, ident, ybuf, &yp))
    return false;
  if (!cl) return cudnn_conv_backward_filter(ctx, stream, p, xp, yp, dw.data);
  Scratch tbuf;
  if (tbuf.alloc(ctx, stream, static_cast<size_t>(dw.numel) * sizeof(T))) return false;
  if (!cudnn_conv_backward_filter(ctx, stream, p, xp, yp, tbuf.p)) return false;
  // dw viewed in the filter's dim order [M, K..., C/G] (its strides permuted) <- tbuf packed.
  int fperm[16];
  filter_perm(dw.ndim, true, fperm);
  int64_t shape[16], dw_strides[16], t_strides[16], contig[16];
  int64_t acc = 1;
  for (int d = dw.ndim - 1; d >= 0; --d) {
    contig[d] = acc;
    acc *= dw.shape[d];
  }
  for (int i = 0; i < dw.ndim; ++i) {
    shape[i] = dw.shape[fperm[i]];
    dw_strides[i] = contig[fperm[i]];
  }
  acc = 1;
  for (int d = dw.ndim - 1; d >= 0; --d) {
    t_strides[d] = acc;
    acc *= shape[d];
  }
  OarTensor src = dw, dst = dw;
  src.data = tbuf.p;
  src.shape = shape;
  src.strides = t_strides;
  dst.shape = shape;
  dst.strides = dw_strides;
  const OarTensor* const ins[2] = {&src, nullptr};
  return run_elementwise<T, T>(ctx, stream, CvIdentity<T>{}, dst, ins) == OAR_STATUS_OK;
}

}  // namespace

// convolution: x, weight, bias? -> out.
OarStatus k_convolution(const OarKernelContext* ctx) {
  if (ctx->num_inputs < 2 || ctx->num_inputs > 3 || ctx->num_outputs != 1 ||
      ctx->inputs[0].ndim < 0 || ctx->inputs[1].ndim < 0 || ctx->outputs[0].ndim < 0)
    return fail(ctx, "convolution on gpu expects x, weight, bias? and one output");
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& w = ctx->inputs[1];
  const OarTensor* bias =
      ctx->num_inputs > 2 && ctx->inputs[2].ndim >= 0 ? &ctx->inputs[2] : nullptr;
  const OarTensor& out = ctx->outputs[0];
  if (!same_dtypes(ctx, x, w, out)) return OAR_STATUS_ERROR;
  if (!is_contiguous(out)) return fail(ctx, "%s on gpu: out must be contiguous", ctx->op);
  const bool cl = channel_last(ctx);
  Geo g;
  Img xs, ys;
  if (!geometry(ctx, x, out, w.shape, w.ndim, cl, &g, &xs, &ys)) return OAR_STATUS_ERROR;
  if (bias && (bias->dtype != x.dtype || bias->ndim != 1 || bias->shape[0] != g.M))
    return fail(ctx, "%s on gpu: bias must be [%lld] of x's dtype", ctx->op,
                static_cast<long long>(g.M));
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(FloatTypes{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = !pointwise_channel_first(g, cl) && cudnn_forward<T>(ctx, stream, x, w, bias, out, g, cl)
             ? OAR_STATUS_OK
             : conv_forward<T>(ctx, stream, x, w, bias, out, g, xs, cl);
  });
  return found ? st : unsupported(ctx, x.dtype);
}

// convolution_input_grad: out_grad, weight -> dx (input_shape).
OarStatus k_convolution_input_grad(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  const OarTensor& dy = ctx->inputs[0];
  const OarTensor& w = ctx->inputs[1];
  const OarTensor& dx = ctx->outputs[0];
  if (!same_dtypes(ctx, dy, w, dx)) return OAR_STATUS_ERROR;
  if (!is_contiguous(dx)) return fail(ctx, "%s on gpu: out must be contiguous", ctx->op);
  const bool cl = channel_last(ctx);
  Geo g;
  Img xs, ys;
  if (!geometry(ctx, dx, dy, w.shape, w.ndim, cl, &g, &xs, &ys)) return OAR_STATUS_ERROR;
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (dx.numel == 0) return OAR_STATUS_OK;
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(FloatTypes{}, dy.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = cudnn_input_grad<T>(ctx, stream, dy, w, dx, g, cl)
             ? OAR_STATUS_OK
             : conv_input_grad<T>(ctx, stream, dy, w, dx, g, xs, cl);
  });
  return found ? st : unsupported(ctx, dy.dtype);
}

// convolution_weight_grad: x, out_grad -> dw (weight_shape).
OarStatus k_convolution_weight_grad(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& dy = ctx->inputs[1];
  const OarTensor& dw = ctx->outputs[0];
  if (!same_dtypes(ctx, x, dy, dw)) return OAR_STATUS_ERROR;
  if (!is_contiguous(dw)) return fail(ctx, "%s on gpu: out must be contiguous", ctx->op);
  const bool cl = channel_last(ctx);
  Geo g;
  Img xs, ys;
  if (!geometry(ctx, x, dy, dw.shape, dw.ndim, cl, &g, &xs, &ys)) return OAR_STATUS_ERROR;
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (dw.numel == 0) return OAR_STATUS_OK;
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(FloatTypes{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = !pointwise_channel_first(g, cl) && cudnn_weight_grad<T>(ctx, stream, x, dy, dw, g, cl)
             ? OAR_STATUS_OK
             : conv_weight_grad<T>(ctx, stream, x, dy, dw, g, xs, ys);
  });
  return found ? st : unsupported(ctx, x.dtype);
}

}  // namespace oar_cuda
