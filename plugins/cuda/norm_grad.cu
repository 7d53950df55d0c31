// Normalisation gradients: layer_norm_grad and batch_norm_grad, float32 and float64 (as the
// forwards in norm.cu), the fused kernels oar's composites (oar/ops/composite/norm.cc) launch on
// a device instead of ~10 ops.
//
// Contract (plugins/custom_cpu/norm_grad.cc is the reference; the arguments and arithmetic are
// oar's host kernels' kernels::layer_norm_grad / batch_norm_grad): inputs may be any strided
// views (made row-major first); outputs are contiguous; an unwanted output is absent (ndim -1).
// - layer_norm_grad: x, weight? (n), mean [rows], rstd [rows], out_grad; begin_norm_axis.
//   Outputs dx, dweight (n), dbias (n). Per row, h = (x - mean) * rstd in T; dx = rstd * (g*w -
//   T(sum(g*w)/n) - h * T(sum(g*w*h)/n)) in T, sums in double; dweight = T(sum over rows of
//   T(g*h)), dbias = T(sum of g), in double (0 with no rows).
// - batch_norm_grad: x, weight? [C], saved_mean [C], saved_rstd [C], out_grad; use_batch_stats,
//   channel_axis (x viewed as [outer, C, inner]). Outputs dx, dweight [C], dbias [C]. Per
//   channel, in double: sg = sum(g), sgh = sum(g * h); dweight = T(sgh), dbias = T(sg); dx = k *
//   (g - mg - h * mgh) in T with k = T(rstd * w), mg = T(sg / count), mgh = T(sgh / count) with
//   use_batch_stats, else 0. (For channel-last x the host forms g * h in T before summing, as
//   the column sums here do; channel-first sums g * h in double, as here.)
//
// How: the per-column sums (layer norm's dweight/dbias over rows, channel-last batch norm's
// per-channel sums over [outer, C]) use 32-column x 8-row blocks reading rows coalesced, over
// chunks of rows, each chunk writing double partials that a second kernel adds up in a fixed
// order; channel-first batch norm takes (channel, split) blocks reading each channel's
// [outer, inner] elements along the contiguous inner dims, with the same second kernel. Layer
// norm's dx takes a warp per row (a 256-thread block for rows over 1024), batch norm's dx one
// elementwise pass. Every sum is deterministic (no atomics).
#include <cmath>

#include "plugins/cuda/shape.cuh"

namespace oar_cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kTileCols = 32, kTileRows = 8;  // column-sum blocks

template <class F>
bool dispatch_f32_f64(int32_t dtype, F&& f) {
  return dispatch(Types<float, double>{}, dtype, f);
}

const OarTensor kAbsent{nullptr, 0, -1, nullptr, nullptr, 0};

const OarTensor& input_at(const OarKernelContext* ctx, int i) {
  return i < ctx->num_inputs ? ctx->inputs[i] : kAbsent;
}
const OarTensor& output_at(const OarKernelContext* ctx, int i) {
  return i < ctx->num_outputs ? ctx->outputs[i] : kAbsent;
}

int64_t attr_int(const OarKernelContext* ctx, const char* name, int64_t fallback) {
  int64_t v = fallback;
  attr_scalar_int(ctx, name, &v);
  return v;
}

// A present tensor of dtype `dtype` with n elements (and contiguous, for an output).
OarStatus check_tensor(const OarKernelContext* ctx, const OarTensor& t, int32_t dtype, int64_t n,
                       const char* role, bool output) {
  if (t.ndim < 0) return OAR_STATUS_OK;
  if (t.dtype != dtype)
    return fail(ctx, "%s on gpu: '%s' has dtype %s; expected %s", ctx->op, role,
                dtype_name(t.dtype), dtype_name(dtype));
  if (t.numel != n)
    return fail(ctx, "%s on gpu: '%s' has %lld elements, expected %lld", ctx->op, role,
                static_cast<long long>(t.numel), static_cast<long long>(n));
  if (output && !is_contiguous(t))
    return fail(ctx, "%s on gpu: output '%s' must be contiguous", ctx->op, role);
  return OAR_STATUS_OK;
}

OarStatus require(const OarKernelContext* ctx, const OarTensor& t, const char* role) {
  return t.ndim < 0 ? fail(ctx, "%s on gpu: '%s' is absent", ctx->op, role) : OAR_STATUS_OK;
}

template <class T> T* out_ptr(const OarTensor& t) {
  return t.ndim >= 0 ? static_cast<T*>(t.data) : nullptr;
}

// Chunks of rows for the column sums: enough blocks for a few per SM, at least 64 rows each.
void column_chunks(int device, int64_t R, int64_t N, int64_t* chunks, int64_t* rows_per_chunk) {
  const int64_t col_blocks = (N + kTileCols - 1) / kTileCols;
  const int64_t target = static_cast<int64_t>(sm_count(device)) * 4;
  int64_t c = (target + col_blocks - 1) / col_blocks;
  const int64_t by_rows = (R + 63) / 64;
  if (c > by_rows) c = by_rows;
  if (c > 65535) c = 65535;
  if (c < 1) c = 1;
  *rows_per_chunk = (R + c - 1) / c;
  *chunks = *rows_per_chunk > 0 ? (R + *rows_per_chunk - 1) / *rows_per_chunk : 1;
}

// ---- shared kernels ---------------------------------------------------------------------------

// Sums over the rows of a row-major [R, N] matrix, per column j: s1 = sum(g), s2 = sum(T(g * h))
// with h = (x - m) * s in T, m and s per row (PerRow) or per column. Block (32, 8); grid
// (column tiles, row chunks); chunk k writes partial[2k][j] (s1) and partial[2k + 1][j] (s2).
template <class T, bool PerRow>
__global__ void __launch_bounds__(kTileCols * kTileRows)
    column_sums_kernel(const T* __restrict__ x, const T* __restrict__ g,
                       const T* __restrict__ mean, const T* __restrict__ rstd,
                       double* __restrict__ partial, int64_t R, int64_t N,
                       int64_t rows_per_chunk) {
  __shared__ double s1s[kTileRows][kTileCols + 1], s2s[kTileRows][kTileCols + 1];
  const int64_t j = static_cast<int64_t>(blockIdx.x) * kTileCols + threadIdx.x;
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * rows_per_chunk;
  const int64_t r1 = r0 + rows_per_chunk < R ? r0 + rows_per_chunk : R;
  double a = 0, b = 0;
  if (j < N) {
    const T mc = PerRow ? T(0) : mean[j], sc = PerRow ? T(0) : rstd[j];
    for (int64_t r = r0 + threadIdx.y; r < r1; r += kTileRows) {
      const int64_t k = r * N + j;
      const T gv = g[k];
      const T h = (x[k] - (PerRow ? mean[r] : mc)) * (PerRow ? rstd[r] : sc);
      a += static_cast<double>(gv);
      b += static_cast<double>(gv * h);
    }
  }
  s1s[threadIdx.y][threadIdx.x] = a;
  s2s[threadIdx.y][threadIdx.x] = b;
  __syncthreads();
  if (threadIdx.y != 0 || j >= N) return;
  for (int y = 1; y < kTileRows; ++y) {
    a += s1s[y][threadIdx.x];
    b += s2s[y][threadIdx.x];
  }
  partial[(2 * static_cast<int64_t>(blockIdx.y)) * N + j] = a;
  partial[(2 * static_cast<int64_t>(blockIdx.y) + 1) * N + j] = b;
}

// Adds the partials of `chunks` chunks per column (in chunk order) into dweight = T(s2) and
// dbias = T(s1); with `coef` (batch norm's dx) also coef = [k, mg, mgh] per channel.
template <class T>
__global__ void __launch_bounds__(kThreads)
    finish_sums_kernel(const double* __restrict__ partial, int64_t chunks, int64_t N, T* dw,
                       T* db, const T* __restrict__ rstd, const T* __restrict__ w, T* coef,
                       double count, bool use_batch_stats) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= N) return;
  double s1 = 0, s2 = 0;
  for (int64_t k = 0; k < chunks; ++k) {
    s1 += partial[2 * k * N + j];
    s2 += partial[(2 * k + 1) * N + j];
  }
  if (dw) dw[j] = static_cast<T>(s2);
  if (db) db[j] = static_cast<T>(s1);
  if (!coef) return;
  coef[j] = static_cast<T>(static_cast<double>(rstd[j]) * (w ? static_cast<double>(w[j]) : 1.0));
  coef[N + j] = use_batch_stats ? static_cast<T>(s1 / count) : T(0);
  coef[2 * N + j] = use_batch_stats ? static_cast<T>(s2 / count) : T(0);
}

// ---- layer norm -------------------------------------------------------------------------------

template <class T, int Lanes>
__global__ void __launch_bounds__(kThreads)
    layer_dx_kernel(const T* __restrict__ x, const T* __restrict__ g, const T* __restrict__ w,
                    const T* __restrict__ mean, const T* __restrict__ rstd, T* __restrict__ dx,
                    int64_t rows, int64_t n) {
  __shared__ double shared[Lanes > 32 ? Lanes / 32 : 1];
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (row >= rows) return;  // whole groups leave together (Lanes > 32: one row per block)
  const int lane = threadIdx.x;
  const T* xr = x + row * n;
  const T* gr = g + row * n;
  T* dr = dx + row * n;
  const T m = mean[row], s = rstd[row];
  double sg = 0, sgh = 0;
  for (int64_t i = lane; i < n; i += Lanes) {
    const T h = (xr[i] - m) * s;
    const double gw = static_cast<double>(w ? gr[i] * w[i] : gr[i]);
    sg += gw;
    sgh += gw * static_cast<double>(h);
  }
  sg = group_sum<Lanes>(sg, shared);
  sgh = group_sum<Lanes>(sgh, shared);
  const T a = static_cast<T>(sg / static_cast<double>(n));
  const T bb = static_cast<T>(sgh / static_cast<double>(n));
  for (int64_t i = lane; i < n; i += Lanes) {
    const T h = (xr[i] - m) * s;
    dr[i] = s * ((w ? gr[i] * w[i] : gr[i]) - a - h * bb);
  }
}

// ---- batch norm -------------------------------------------------------------------------------

struct BatchGradArgs {
  int64_t outer, C, inner, count;
  Divider inner_div, c_div;
  bool small;
};

// Channel-first sums: block (c, split) adds g and g * h (in double) over its share of channel
// c's count = outer * inner elements, read along the contiguous inner dims.
template <class T>
__global__ void __launch_bounds__(kThreads)
    channel_sums_kernel(const T* __restrict__ x, const T* __restrict__ g,
                        const T* __restrict__ mean, const T* __restrict__ rstd,
                        double* __restrict__ partial, BatchGradArgs a, int64_t per_split) {
  __shared__ double shared[kThreads / 32];
  const int64_t c = blockIdx.x;
  const int64_t j0 = static_cast<int64_t>(blockIdx.y) * per_split;
  const int64_t j1 = j0 + per_split < a.count ? j0 + per_split : a.count;
  const double m = static_cast<double>(mean[c]), r = static_cast<double>(rstd[c]);
  double s1 = 0, s2 = 0;
  for (int64_t j = j0 + threadIdx.x; j < j1; j += kThreads) {
    const int64_t o = a.inner_div.div(j, a.small);
    const int64_t k = (o * a.C + c) * a.inner + (j - o * a.inner);
    const double gd = static_cast<double>(g[k]);
    s1 += gd;
    s2 += gd * ((static_cast<double>(x[k]) - m) * r);
  }
  s1 = group_sum<kThreads>(s1, shared);
  s2 = group_sum<kThreads>(s2, shared);
  if (threadIdx.x != 0) return;
  partial[2 * static_cast<int64_t>(blockIdx.y) * a.C + c] = s1;
  partial[(2 * static_cast<int64_t>(blockIdx.y) + 1) * a.C + c] = s2;
}

// dx = k[c] * (g - mg[c] - h * mgh[c]) with h = (x - mean[c]) * rstd[c], over the contiguous x.
template <class T>
__global__ void __launch_bounds__(kThreads)
    batch_dx_kernel(const T* __restrict__ x, const T* __restrict__ g, const T* __restrict__ mean,
                    const T* __restrict__ rstd, const T* __restrict__ coef, T* __restrict__ dx,
                    int64_t n, BatchGradArgs a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    const int64_t q = a.inner_div.div(k, a.small);  // o * C + c
    const int64_t c = q - a.c_div.div(q, a.small) * a.C;
    const T h = (x[k] - mean[c]) * rstd[c];
    dx[k] = coef[c] * (g[k] - coef[a.C + c] - h * coef[2 * a.C + c]);
  }
}

// Launches a row kernel with a warp per row for short rows, a block per row for long ones.
template <class Launch>
void launch_rows(int64_t rows, int64_t len, cudaStream_t stream, Launch&& launch) {
  if (len <= 1024) {
    const dim3 block(32, kThreads / 32);
    launch(std::integral_constant<int, 32>{},
           dim3(static_cast<unsigned>((rows + block.y - 1) / block.y)), block, stream);
  } else {
    launch(std::integral_constant<int, kThreads>{}, dim3(static_cast<unsigned>(rows)),
           dim3(kThreads, 1), stream);
  }
}

// Stream-ordered scratch freed when the holder dies (after the launches that use it).
struct Scratch {
  void* p = nullptr;
  cudaStream_t stream = nullptr;
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    if (p) scratch_free(p, stream);
  }
  OarStatus alloc(const OarKernelContext* ctx, size_t bytes, cudaStream_t s, const char* what) {
    stream = s;
    const cudaError_t err = scratch_alloc(ctx->device_id, &p, bytes ? bytes : 1, s);
    if (err != cudaSuccess) {
      p = nullptr;
      return cuda_fail(ctx, err, what);
    }
    return OAR_STATUS_OK;
  }
};

}  // namespace

OarStatus k_layer_norm_grad(const OarKernelContext* ctx) {
  const OarTensor& x = input_at(ctx, 0);
  const OarTensor& weight = input_at(ctx, 1);
  const OarTensor& mean = input_at(ctx, 2);
  const OarTensor& rstd = input_at(ctx, 3);
  const OarTensor& grad = input_at(ctx, 4);
  const OarTensor& dx = output_at(ctx, 0);
  const OarTensor& dw = output_at(ctx, 1);
  const OarTensor& db = output_at(ctx, 2);
  if (OarStatus st = require(ctx, x, "x")) return st;
  if (OarStatus st = require(ctx, mean, "mean")) return st;
  if (OarStatus st = require(ctx, rstd, "rstd")) return st;
  if (OarStatus st = require(ctx, grad, "out_grad")) return st;
  const int64_t begin = attr_int(ctx, "begin_norm_axis", 1);
  if (begin < 0 || begin > x.ndim)
    return fail(ctx, "layer_norm_grad on gpu: begin_norm_axis %lld is out of range for %d dims",
                static_cast<long long>(begin), x.ndim);
  int64_t rows = 1, n = 1;
  for (int d = 0; d < x.ndim; ++d) (d < begin ? rows : n) *= x.shape[d];
  if (grad.ndim != x.ndim) return fail(ctx, "layer_norm_grad on gpu: out_grad must have x's shape");
  for (int d = 0; d < x.ndim; ++d)
    if (grad.shape[d] != x.shape[d])
      return fail(ctx, "layer_norm_grad on gpu: out_grad must have x's shape");
  if (OarStatus st = check_tensor(ctx, grad, x.dtype, x.numel, "out_grad", false)) return st;
  if (OarStatus st = check_tensor(ctx, mean, x.dtype, rows, "mean", false)) return st;
  if (OarStatus st = check_tensor(ctx, rstd, x.dtype, rows, "rstd", false)) return st;
  if (OarStatus st = check_tensor(ctx, weight, x.dtype, n, "weight", false)) return st;
  if (OarStatus st = check_tensor(ctx, dx, x.dtype, x.numel, "dx", true)) return st;
  if (OarStatus st = check_tensor(ctx, dw, x.dtype, n, "dweight", true)) return st;
  if (OarStatus st = check_tensor(ctx, db, x.dtype, n, "dbias", true)) return st;
  if (x.dtype != OAR_FLOAT32 && x.dtype != OAR_FLOAT64) return unsupported(ctx, x.dtype);
  if (rows / 8 >= 2147483647LL || n / kTileCols >= 2147483647LL)
    return fail(ctx, "layer_norm_grad on gpu: too many rows or columns");
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  const bool want_dx = dx.ndim >= 0 && rows > 0 && n > 0;
  const bool want_wb = (dw.ndim >= 0 || db.ndim >= 0) && n > 0;
  if (!want_dx && !want_wb) return OAR_STATUS_OK;
  ContiguousInput xc, gc, wc, mc, rc;
  if (OarStatus st = make_contiguous(ctx, stream, x, &xc)) return st;
  if (OarStatus st = make_contiguous(ctx, stream, grad, &gc)) return st;
  if (OarStatus st = make_contiguous(ctx, stream, weight, &wc)) return st;
  if (OarStatus st = make_contiguous(ctx, stream, mean, &mc)) return st;
  if (OarStatus st = make_contiguous(ctx, stream, rstd, &rc)) return st;
  int64_t chunks = 1, rows_per_chunk = 0;
  Scratch partial;
  if (want_wb) {
    column_chunks(ctx->device_id, rows, n, &chunks, &rows_per_chunk);
    if (OarStatus st = partial.alloc(ctx, sizeof(double) * 2 * chunks * n, stream,
                                     "cudaMallocAsync (layer_norm_grad partial sums)"))
      return st;
  }
  OarStatus st = OAR_STATUS_OK;
  dispatch_f32_f64(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = xc.data<T>();
    const T* gp = gc.data<T>();
    const T* mp = mc.data<T>();
    const T* rp = rc.data<T>();
    if (want_dx) {
      const T* wp = weight.ndim >= 0 ? wc.data<T>() : nullptr;
      launch_rows(rows, n, stream, [&](auto lanes, dim3 grid, dim3 block, cudaStream_t s) {
        layer_dx_kernel<T, decltype(lanes)::value><<<grid, block, 0, s>>>(
            xp, gp, wp, mp, rp, static_cast<T*>(dx.data), rows, n);
      });
      st = check_launch(ctx, ctx->op);
      if (st != OAR_STATUS_OK) return;
    }
    if (want_wb) {
      double* pp = static_cast<double*>(partial.p);
      const dim3 grid(static_cast<unsigned>((n + kTileCols - 1) / kTileCols),
                      static_cast<unsigned>(chunks));
      column_sums_kernel<T, true><<<grid, dim3(kTileCols, kTileRows), 0, stream>>>(
          xp, gp, mp, rp, pp, rows, n, rows_per_chunk);
      st = check_launch(ctx, ctx->op);
      if (st != OAR_STATUS_OK) return;
      finish_sums_kernel<T><<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0,
                              stream>>>(pp, chunks, n, out_ptr<T>(dw), out_ptr<T>(db), nullptr,
                                        nullptr, nullptr, 1.0, false);
      st = check_launch(ctx, ctx->op);
    }
  });
  return st;
}

OarStatus k_batch_norm_grad(const OarKernelContext* ctx) {
  const OarTensor& x = input_at(ctx, 0);
  const OarTensor& weight = input_at(ctx, 1);
  const OarTensor& smean = input_at(ctx, 2);
  const OarTensor& srstd = input_at(ctx, 3);
  const OarTensor& grad = input_at(ctx, 4);
  const OarTensor& dx = output_at(ctx, 0);
  const OarTensor& dw = output_at(ctx, 1);
  const OarTensor& db = output_at(ctx, 2);
  if (OarStatus st = require(ctx, x, "x")) return st;
  if (OarStatus st = require(ctx, smean, "saved_mean")) return st;
  if (OarStatus st = require(ctx, srstd, "saved_rstd")) return st;
  if (OarStatus st = require(ctx, grad, "out_grad")) return st;
  const bool use_batch_stats = attr_bool(ctx, "use_batch_stats", true);
  const int nd = x.ndim;
  int64_t axis = attr_int(ctx, "channel_axis", 1);
  if (nd < 1 || axis < -nd || axis >= nd)
    return fail(ctx, "batch_norm_grad on gpu: channel_axis %lld does not fit x with %d dims",
                static_cast<long long>(axis), nd);
  if (axis < 0) axis += nd;
  int64_t outer = 1, C = x.shape[axis], inner = 1;
  for (int d = 0; d < nd; ++d) {
    if (d < axis) outer *= x.shape[d];
    else if (d > axis) inner *= x.shape[d];
  }
  if (grad.ndim != x.ndim) return fail(ctx, "batch_norm_grad on gpu: out_grad must have x's shape");
  for (int d = 0; d < x.ndim; ++d)
    if (grad.shape[d] != x.shape[d])
      return fail(ctx, "batch_norm_grad on gpu: out_grad must have x's shape");
  if (OarStatus st = check_tensor(ctx, grad, x.dtype, x.numel, "out_grad", false)) return st;
  if (OarStatus st = check_tensor(ctx, smean, x.dtype, C, "saved_mean", false)) return st;
  if (OarStatus st = check_tensor(ctx, srstd, x.dtype, C, "saved_rstd", false)) return st;
  if (OarStatus st = check_tensor(ctx, weight, x.dtype, C, "weight", false)) return st;
  if (OarStatus st = check_tensor(ctx, dx, x.dtype, x.numel, "dx", true)) return st;
  if (OarStatus st = check_tensor(ctx, dw, x.dtype, C, "dweight", true)) return st;
  if (OarStatus st = check_tensor(ctx, db, x.dtype, C, "dbias", true)) return st;
  if (x.dtype != OAR_FLOAT32 && x.dtype != OAR_FLOAT64) return unsupported(ctx, x.dtype);
  if (C > 2147483647LL || C / kTileCols >= 2147483647LL)
    return fail(ctx, "batch_norm_grad on gpu: too many channels");
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  const bool want_dx = dx.ndim >= 0 && x.numel > 0;
  if (C == 0 || (!want_dx && dw.ndim < 0 && db.ndim < 0)) return OAR_STATUS_OK;
  ContiguousInput xc, gc, wc, mc, rc;
  if (OarStatus st = make_contiguous(ctx, stream, x, &xc)) return st;
  if (OarStatus st = make_contiguous(ctx, stream, grad, &gc)) return st;
  if (OarStatus st = make_contiguous(ctx, stream, weight, &wc)) return st;
  if (OarStatus st = make_contiguous(ctx, stream, smean, &mc)) return st;
  if (OarStatus st = make_contiguous(ctx, stream, srstd, &rc)) return st;
  BatchGradArgs a;
  a.outer = outer;
  a.C = C;
  a.inner = inner;
  a.count = outer * inner;
  a.inner_div = Divider(inner);
  a.c_div = Divider(C);
  a.small = x.numel <= kMaxChunk;
  // The per-channel sums: column blocks for channel-last x (inner == 1), (channel, split)
  // blocks otherwise.
  const bool by_columns = inner == 1;
  int64_t chunks = 1, span = 0;
  if (by_columns) {
    column_chunks(ctx->device_id, outer, C, &chunks, &span);
  } else if (a.count > 0) {
    const int64_t target = static_cast<int64_t>(sm_count(ctx->device_id)) * 4;
    int64_t s = (target + C - 1) / C;
    const int64_t by_size = (a.count + 4095) / 4096;
    if (s > by_size) s = by_size;
    if (s > 65535) s = 65535;
    if (s < 1) s = 1;
    span = (a.count + s - 1) / s;
    chunks = (a.count + span - 1) / span;
  }
  const size_t es = dtype_size(x.dtype);
  Scratch partial, coef;
  if (OarStatus st = partial.alloc(ctx, sizeof(double) * 2 * chunks * C, stream,
                                   "cudaMallocAsync (batch_norm_grad partial sums)"))
    return st;
  if (want_dx)
    if (OarStatus st = coef.alloc(ctx, 3 * es * C, stream,
                                  "cudaMallocAsync (batch_norm_grad coefficients)"))
      return st;
  OarStatus st = OAR_STATUS_OK;
  dispatch_f32_f64(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = xc.data<T>();
    const T* gp = gc.data<T>();
    const T* mp = mc.data<T>();
    const T* rp = rc.data<T>();
    const T* wp = weight.ndim >= 0 ? wc.data<T>() : nullptr;
    double* pp = static_cast<double*>(partial.p);
    if (by_columns)
      column_sums_kernel<T, false><<<dim3(static_cast<unsigned>((C + kTileCols - 1) / kTileCols),
                                          static_cast<unsigned>(chunks)),
                                     dim3(kTileCols, kTileRows), 0, stream>>>(
          xp, gp, mp, rp, pp, outer, C, span);
    else
      channel_sums_kernel<T><<<dim3(static_cast<unsigned>(C), static_cast<unsigned>(chunks)),
                               kThreads, 0, stream>>>(xp, gp, mp, rp, pp, a, span);
    st = check_launch(ctx, ctx->op);
    if (st != OAR_STATUS_OK) return;
    T* cp = want_dx ? static_cast<T*>(coef.p) : nullptr;
    finish_sums_kernel<T><<<static_cast<unsigned>((C + kThreads - 1) / kThreads), kThreads, 0,
                            stream>>>(pp, chunks, C, out_ptr<T>(dw), out_ptr<T>(db), rp, wp, cp,
                                      static_cast<double>(a.count), use_batch_stats);
    st = check_launch(ctx, ctx->op);
    if (st != OAR_STATUS_OK || !want_dx) return;
    batch_dx_kernel<T><<<grid_for(ctx->device_id, x.numel), kThreads, 0, stream>>>(
        xp, gp, mp, rp, cp, static_cast<T*>(dx.data), x.numel, a);
    st = check_launch(ctx, ctx->op);
  });
  return st;
}

}  // namespace oar_cuda
