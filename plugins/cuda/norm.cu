// Normalisation forwards (layer_norm_base, batch_norm_base) and hard_cross_entropy, float32 and
// float64 (oar casts 16-bit inputs to float32 before these ops).
//
// Contract (plugins/custom_cpu/norm.cc and loss.cc are the reference, and their arithmetic is
// oar's CPU kernels'): inputs may be any strided views (x, weight, bias and the running
// statistics of the norms are first made row-major; cross entropy reads its operands in
// place); outputs are contiguous.
// - layer_norm_base: x, weight?, bias?; epsilon, begin_norm_axis. Rows are the dims before
//   begin_norm_axis. Per row, in double: the mean m, rounded to T (mt) for centring; the variance
//   sum((x - mt)^2) / n corrected for the rounding of the mean; rstd = 1 / sqrt(max(var, 0) +
//   epsilon). Outputs out = (x - mt) * T(rstd) [* w] [+ b] computed in T, mean (mt) and rstd.
//   An empty row gives NaN mean and rstd.
// - batch_norm_base: x, running_mean, running_var, weight?, bias?; use_batch_stats,
//   update_running, epsilon, channel_axis. Statistics per channel over every other dim: the
//   batch's (two passes in double: mean, then the biased variance) when use_batch_stats, else
//   the running ones. Outputs out = (x - T(mean)) * T(rstd * w) + b, saved_mean = T(mean),
//   saved_rstd = T(1 / sqrt(var + epsilon)). Updating the running statistics would write an
//   input in place, which a kernel may not do: use_batch_stats with update_running (and running
//   statistics) is UNSUPPORTED, as on custom_cpu.
// - hard_cross_entropy: input [M, C], label [M] (int32/int64), weight? [C]; ignore_index,
//   input_kind (0 logits, 1 probabilities, 2 log-probabilities). Per row, in double: loss =
//   -w[l] * logp(l), weight_sum = w[l] (both 0 for ignore_index; NaN and 0 for a label outside
//   [0, C), which the host would raise for), lse = the row's logsumexp for logits (max first,
//   NaN passed over, an infinite max is the result), else 0.
//
// How: one group of lanes per row (a warp for short rows, a 256-thread block for long ones)
// with deterministic shuffle/shared-memory trees; batch norm's statistics take one block per
// channel, then one elementwise pass applies the per-channel affine map.
#include <cmath>

#include "plugins/cuda/shape.cuh"

namespace oar_cuda {
namespace {

constexpr int kThreads = 256;

template <class F>
bool dispatch_f32_f64(int32_t dtype, F&& f) {
  return dispatch(Types<float, double>{}, dtype, f);
}

OarStatus bad_dtype(const OarKernelContext* ctx, const char* role, int32_t got, int32_t want) {
  return fail(ctx, "%s on gpu: '%s' has dtype %s; expected %s", ctx->op, role, dtype_name(got),
              dtype_name(want));
}

// An optional parameter: absent, or dtype and numel as given.
OarStatus check_param(const OarKernelContext* ctx, const OarTensor& t, int32_t dtype, int64_t n,
                      const char* role) {
  if (t.ndim < 0) return OAR_STATUS_OK;
  if (t.dtype != dtype) return bad_dtype(ctx, role, t.dtype, dtype);
  if (t.numel != n)
    return fail(ctx, "%s on gpu: '%s' has %lld elements, expected %lld", ctx->op, role,
                static_cast<long long>(t.numel), static_cast<long long>(n));
  return OAR_STATUS_OK;
}

const OarTensor kAbsent{nullptr, 0, -1, nullptr, nullptr, 0};

const OarTensor& optional_input(const OarKernelContext* ctx, int i) {
  return i < ctx->num_inputs ? ctx->inputs[i] : kAbsent;
}

double attr_float(const OarKernelContext* ctx, const char* name, double fallback) {
  double v = fallback;
  attr_scalar(ctx, name, &v);
  return v;
}

int64_t attr_int(const OarKernelContext* ctx, const char* name, int64_t fallback) {
  int64_t v = fallback;
  attr_scalar_int(ctx, name, &v);
  return v;
}

// ---- layer norm -------------------------------------------------------------------------------

struct LayerNormArgs {
  int64_t rows, n;
  double epsilon;
};

template <class T, int Lanes>
__global__ void __launch_bounds__(kThreads)
    layer_norm_kernel(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b,
                      T* __restrict__ y, T* __restrict__ mean, T* __restrict__ rstd,
                      LayerNormArgs a) {
  __shared__ double shared[Lanes > 32 ? Lanes / 32 : 1];
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (row >= a.rows) return;  // whole groups leave together (Lanes > 32: one row per block)
  const int lane = threadIdx.x;
  const int64_t n = a.n;
  const T* xr = x + row * n;
  T* yr = y + row * n;
  double s = 0;
  for (int64_t i = lane; i < n; i += Lanes) s += static_cast<double>(xr[i]);
  s = group_sum<Lanes>(s, shared);
  const double m = s / static_cast<double>(n);
  const T mt = static_cast<T>(m);
  double v = 0;
  for (int64_t i = lane; i < n; i += Lanes) {
    const double d = static_cast<double>(xr[i] - mt);
    v += d * d;
  }
  v = group_sum<Lanes>(v, shared);
  // The mean was rounded to T: correct the variance for it (exact in exact arithmetic).
  const double dm = m - static_cast<double>(mt);
  v = v / static_cast<double>(n) - dm * dm;
  const double rs = 1.0 / sqrt((v < 0.0 ? 0.0 : v) + a.epsilon);
  if (lane == 0) {
    mean[row] = n == 0 ? static_cast<T>(NAN) : mt;
    rstd[row] = n == 0 ? static_cast<T>(NAN) : static_cast<T>(rs);
  }
  const T scale = static_cast<T>(rs);
  for (int64_t i = lane; i < n; i += Lanes) {
    T out = (xr[i] - mt) * scale;  // subtracting first keeps a constant row exactly 0
    if (w) out = out * w[i];
    if (b) out = out + b[i];
    yr[i] = out;
  }
}

// ---- batch norm -------------------------------------------------------------------------------

struct BatchNormArgs {
  int64_t outer, C, inner, count;
  Divider inner_div, c_div;
  bool small;
  double epsilon;
};

// Writes the channel's saved statistics and affine coefficients from its mean and variance.
template <class T>
__device__ __forceinline__ void channel_epilogue(int64_t c, double mean, double var,
                                                 const T* w, const T* b, T* sm, T* sr, T* coef_a,
                                                 T* coef_s, double epsilon) {
  const double rs = 1.0 / sqrt(var + epsilon);
  sm[c] = static_cast<T>(mean);
  sr[c] = static_cast<T>(rs);
  coef_a[c] = static_cast<T>(rs * (w ? static_cast<double>(w[c]) : 1.0));
  coef_s[c] = b ? b[c] : T(0);
}

// One block per channel: batch mean and biased variance in two passes.
template <class T>
__global__ void __launch_bounds__(kThreads)
    batch_stats_kernel(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b,
                       T* sm, T* sr, T* coef_a, T* coef_s, BatchNormArgs a) {
  __shared__ double shared[kThreads / 32];
  const int64_t c = blockIdx.x;
  double s = 0;
  for (int64_t j = threadIdx.x; j < a.count; j += kThreads) {
    const int64_t o = a.inner_div.div(j, a.small);
    s += static_cast<double>(x[(o * a.C + c) * a.inner + (j - o * a.inner)]);
  }
  s = group_sum<kThreads>(s, shared);
  const double m = s / static_cast<double>(a.count);
  double q = 0;
  for (int64_t j = threadIdx.x; j < a.count; j += kThreads) {
    const int64_t o = a.inner_div.div(j, a.small);
    const double d = static_cast<double>(x[(o * a.C + c) * a.inner + (j - o * a.inner)]) - m;
    q += d * d;
  }
  q = group_sum<kThreads>(q, shared);
  if (threadIdx.x == 0)
    channel_epilogue(c, m, q / static_cast<double>(a.count), w, b, sm, sr, coef_a, coef_s,
                     a.epsilon);
}

// Running statistics: one thread per channel.
template <class T>
__global__ void __launch_bounds__(kThreads)
    running_stats_kernel(const T* __restrict__ rm, const T* __restrict__ rv,
                         const T* __restrict__ w, const T* __restrict__ b, T* sm, T* sr,
                         T* coef_a, T* coef_s, BatchNormArgs a) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= a.C) return;
  channel_epilogue(c, static_cast<double>(rm[c]), static_cast<double>(rv[c]), w, b, sm, sr,
                   coef_a, coef_s, a.epsilon);
}

// y = (x - mean[c]) * a[c] + s[c] over the contiguous x.
template <class T>
__global__ void __launch_bounds__(kThreads)
    batch_apply_kernel(const T* __restrict__ x, T* __restrict__ y, const T* __restrict__ sm,
                       const T* __restrict__ coef_a, const T* __restrict__ coef_s, int64_t n,
                       BatchNormArgs a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    const int64_t q = a.inner_div.div(k, a.small);  // o * C + c
    const int64_t c = q - a.c_div.div(q, a.small) * a.C;
    y[k] = (x[k] - sm[c]) * coef_a[c] + coef_s[c];
  }
}

// ---- cross entropy ----------------------------------------------------------------------------

struct CrossEntropyArgs {
  int64_t M, C;
  int64_t x_row, x_col, label_stride, weight_stride;
  int64_t ignore_index;
  int32_t kind;  // 0 logits, 1 probabilities, 2 log-probabilities
};

template <class T, class L, int Lanes>
__global__ void __launch_bounds__(kThreads)
    cross_entropy_kernel(const T* __restrict__ x, const L* __restrict__ label,
                         const T* __restrict__ weight, T* __restrict__ loss, T* __restrict__ wsum,
                         T* __restrict__ lse, CrossEntropyArgs a) {
  __shared__ double shared[Lanes > 32 ? Lanes / 32 : 1];
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (r >= a.M) return;  // whole groups leave together
  const int lane = threadIdx.x;
  const T* xr = x + r * a.x_row;
  double s = 0;
  if (a.kind == 0 && a.C > 0) {
    double m = -INFINITY;
    for (int64_t c = lane; c < a.C; c += Lanes) {
      const double v = static_cast<double>(xr[c * a.x_col]);
      m = v > m ? v : m;  // NaN passed over
    }
    m = group_max<Lanes>(m, shared);
    if (isinf(m)) {
      s = m;
    } else {
      double e = 0;
      for (int64_t c = lane; c < a.C; c += Lanes) e += exp(static_cast<double>(xr[c * a.x_col]) - m);
      e = group_sum<Lanes>(e, shared);
      s = log(e) + m;
    }
  }
  if (lane != 0) return;
  lse[r] = static_cast<T>(s);
  const int64_t l = static_cast<int64_t>(label[r * a.label_stride]);
  if (l == a.ignore_index) {
    loss[r] = T(0);
    wsum[r] = T(0);
    return;
  }
  if (l < 0 || l >= a.C) {  // the host's IndexError (see the file comment)
    loss[r] = static_cast<T>(NAN);
    wsum[r] = T(0);
    return;
  }
  const double w = weight ? static_cast<double>(weight[l * a.weight_stride]) : 1.0;
  const double v = static_cast<double>(xr[l * a.x_col]);
  const double logp = a.kind == 0 ? v - s : (a.kind == 1 ? log(v) : v);
  loss[r] = static_cast<T>(-w * logp);
  wsum[r] = static_cast<T>(w);
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

}  // namespace

OarStatus k_layer_norm(const OarKernelContext* ctx) {
  if (ctx->num_inputs < 1 || ctx->num_outputs != 3 || ctx->inputs[0].ndim < 0)
    return fail(ctx, "layer_norm_base on gpu expects x, weight?, bias? and 3 outputs");
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& weight = optional_input(ctx, 1);
  const OarTensor& bias = optional_input(ctx, 2);
  const OarTensor& out = ctx->outputs[0];
  const OarTensor& mean = ctx->outputs[1];
  const OarTensor& rstd = ctx->outputs[2];
  const double epsilon = attr_float(ctx, "epsilon", 1e-5);
  const int64_t begin = attr_int(ctx, "begin_norm_axis", 1);
  if (begin < 0 || begin > x.ndim)
    return fail(ctx, "layer_norm_base on gpu: begin_norm_axis %lld is out of range for %d dims",
                static_cast<long long>(begin), x.ndim);
  int64_t rows = 1, n = 1;
  for (int d = 0; d < x.ndim; ++d) (d < begin ? rows : n) *= x.shape[d];
  if (out.numel != x.numel || out.ndim != x.ndim)
    return fail(ctx, "layer_norm_base on gpu: out must have x's shape");
  for (const OarTensor* t : {&out, &mean, &rstd}) {
    if (t->ndim < 0) return fail(ctx, "layer_norm_base on gpu: an output is absent");
    if (t->dtype != x.dtype) return bad_dtype(ctx, "out", t->dtype, x.dtype);
    if (!is_contiguous(*t)) return fail(ctx, "layer_norm_base on gpu: outputs must be contiguous");
  }
  if (mean.numel != rows || rstd.numel != rows)
    return fail(ctx, "layer_norm_base on gpu: mean and rstd must hold %lld elements",
                static_cast<long long>(rows));
  if (OarStatus st = check_param(ctx, weight, x.dtype, n, "weight")) return st;
  if (OarStatus st = check_param(ctx, bias, x.dtype, n, "bias")) return st;
  if (x.dtype != OAR_FLOAT32 && x.dtype != OAR_FLOAT64) return unsupported(ctx, x.dtype);
  if (rows > 0 && rows / 8 >= 2147483647LL)
    return fail(ctx, "layer_norm_base on gpu: too many rows");
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (rows == 0) return OAR_STATUS_OK;
  ContiguousInput xc, wc, bc;
  if (OarStatus st = make_contiguous(ctx, stream, x, &xc)) return st;
  if (OarStatus st = make_contiguous(ctx, stream, weight, &wc)) return st;
  if (OarStatus st = make_contiguous(ctx, stream, bias, &bc)) return st;
  const LayerNormArgs a{rows, n, epsilon};
  dispatch_f32_f64(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* wp = weight.ndim >= 0 && n > 0 ? wc.data<T>() : nullptr;
    const T* bp = bias.ndim >= 0 && n > 0 ? bc.data<T>() : nullptr;
    launch_rows(rows, n, stream, [&](auto lanes, dim3 grid, dim3 block, cudaStream_t s) {
      layer_norm_kernel<T, decltype(lanes)::value><<<grid, block, 0, s>>>(
          xc.data<T>(), wp, bp, static_cast<T*>(out.data), static_cast<T*>(mean.data),
          static_cast<T*>(rstd.data), a);
    });
  });
  return check_launch(ctx, ctx->op);
}

OarStatus k_batch_norm(const OarKernelContext* ctx) {
  if (ctx->num_inputs < 1 || ctx->num_outputs != 3 || ctx->inputs[0].ndim < 0)
    return fail(ctx, "batch_norm_base on gpu expects x, running_mean, running_var, weight?, "
                     "bias? and 3 outputs");
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& rmean = optional_input(ctx, 1);
  const OarTensor& rvar = optional_input(ctx, 2);
  const OarTensor& weight = optional_input(ctx, 3);
  const OarTensor& bias = optional_input(ctx, 4);
  const OarTensor& out = ctx->outputs[0];
  const OarTensor& smean = ctx->outputs[1];
  const OarTensor& srstd = ctx->outputs[2];
  const bool use_batch_stats = attr_bool(ctx, "use_batch_stats", true);
  const bool update_running = attr_bool(ctx, "update_running", false);
  const double epsilon = attr_float(ctx, "epsilon", 1e-5);
  const int nd = x.ndim;
  int64_t axis = attr_int(ctx, "channel_axis", 1);
  if (nd < 2 || axis < -nd || axis >= nd)
    return fail(ctx, "batch_norm_base on gpu: channel_axis %lld does not fit x with %d dims",
                static_cast<long long>(axis), nd);
  if (axis < 0) axis += nd;
  if (use_batch_stats && update_running && rmean.ndim >= 0) {
    fail(ctx, "batch_norm_base on gpu updates the running statistics in place; a kernel writes "
              "only its outputs");
    return OAR_STATUS_UNSUPPORTED;
  }
  if (!use_batch_stats && (rmean.ndim < 0 || rvar.ndim < 0))
    return fail(ctx, "batch_norm_base on gpu: evaluation needs running_mean and running_var");
  int64_t outer = 1, C = x.shape[axis], inner = 1;
  for (int d = 0; d < nd; ++d) {
    if (d < axis) outer *= x.shape[d];
    else if (d > axis) inner *= x.shape[d];
  }
  if (out.numel != x.numel || out.ndim != x.ndim)
    return fail(ctx, "batch_norm_base on gpu: out must have x's shape");
  for (const OarTensor* t : {&out, &smean, &srstd}) {
    if (t->ndim < 0) return fail(ctx, "batch_norm_base on gpu: an output is absent");
    if (t->dtype != x.dtype) return bad_dtype(ctx, "out", t->dtype, x.dtype);
    if (!is_contiguous(*t)) return fail(ctx, "batch_norm_base on gpu: outputs must be contiguous");
  }
  if (smean.numel != C || srstd.numel != C)
    return fail(ctx, "batch_norm_base on gpu: saved_mean and saved_rstd must hold %lld elements",
                static_cast<long long>(C));
  for (const OarTensor* p : {&rmean, &rvar, &weight, &bias})
    if (OarStatus st = check_param(ctx, *p, x.dtype, C, "parameter")) return st;
  if (x.dtype != OAR_FLOAT32 && x.dtype != OAR_FLOAT64) return unsupported(ctx, x.dtype);
  if (C > 2147483647LL) return fail(ctx, "batch_norm_base on gpu: too many channels");
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (C == 0) return OAR_STATUS_OK;
  ContiguousInput xc, rmc, rvc, wc, bc;
  if (OarStatus st = make_contiguous(ctx, stream, x, &xc)) return st;
  if (!use_batch_stats) {
    if (OarStatus st = make_contiguous(ctx, stream, rmean, &rmc)) return st;
    if (OarStatus st = make_contiguous(ctx, stream, rvar, &rvc)) return st;
  }
  if (OarStatus st = make_contiguous(ctx, stream, weight, &wc)) return st;
  if (OarStatus st = make_contiguous(ctx, stream, bias, &bc)) return st;
  BatchNormArgs a;
  a.outer = outer;
  a.C = C;
  a.inner = inner;
  a.count = outer * inner;
  a.inner_div = Divider(inner);
  a.c_div = Divider(C);
  a.small = x.numel <= kMaxChunk;
  a.epsilon = epsilon;
  void* coef = nullptr;
  const size_t es = dtype_size(x.dtype);
  cudaError_t err = scratch_alloc(ctx->device_id, &coef, 2 * es * C, stream);
  if (err != cudaSuccess) return cuda_fail(ctx, err, "cudaMallocAsync (batch_norm coefficients)");
  OarStatus st = OAR_STATUS_OK;
  dispatch_f32_f64(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* wp = weight.ndim >= 0 ? wc.data<T>() : nullptr;
    const T* bp = bias.ndim >= 0 ? bc.data<T>() : nullptr;
    T* sm = static_cast<T*>(smean.data);
    T* sr = static_cast<T*>(srstd.data);
    T* ca = static_cast<T*>(coef);
    T* cs = ca + C;
    if (use_batch_stats)
      batch_stats_kernel<T><<<static_cast<unsigned>(C), kThreads, 0, stream>>>(
          xc.data<T>(), wp, bp, sm, sr, ca, cs, a);
    else
      running_stats_kernel<T><<<static_cast<unsigned>((C + kThreads - 1) / kThreads), kThreads, 0,
                                stream>>>(rmc.data<T>(), rvc.data<T>(), wp, bp, sm, sr, ca, cs, a);
    st = check_launch(ctx, ctx->op);
    if (st == OAR_STATUS_OK && x.numel > 0) {
      batch_apply_kernel<T><<<grid_for(ctx->device_id, x.numel), kThreads, 0, stream>>>(
          xc.data<T>(), static_cast<T*>(out.data), sm, ca, cs, x.numel, a);
      st = check_launch(ctx, ctx->op);
    }
  });
  scratch_free(coef, stream);
  return st;
}

OarStatus k_hard_cross_entropy(const OarKernelContext* ctx) {
  if (ctx->num_inputs < 2 || ctx->num_outputs != 3 || ctx->inputs[0].ndim < 0 ||
      ctx->inputs[1].ndim < 0)
    return fail(ctx, "hard_cross_entropy on gpu expects input, label, weight? and 3 outputs");
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& label = ctx->inputs[1];
  const OarTensor& weight = optional_input(ctx, 2);
  const int64_t ignore_index = attr_int(ctx, "ignore_index", -100);
  const int64_t kind = attr_int(ctx, "input_kind", 0);
  if (kind < 0 || kind > 2)
    return fail(ctx, "hard_cross_entropy on gpu: input_kind must be 0, 1 or 2, got %lld",
                static_cast<long long>(kind));
  if (x.ndim != 2) return fail(ctx, "hard_cross_entropy on gpu: input must be 2-d [N, C]");
  const int64_t M = x.shape[0], C = x.shape[1];
  if (label.dtype != OAR_INT32 && label.dtype != OAR_INT64)
    return fail(ctx, "hard_cross_entropy on gpu: label must be int32 or int64, got %s",
                dtype_name(label.dtype));
  if (label.ndim != 1 || label.shape[0] != M)
    return fail(ctx, "hard_cross_entropy on gpu: label must have shape [%lld]",
                static_cast<long long>(M));
  if (weight.ndim >= 0) {
    if (weight.dtype != x.dtype) return bad_dtype(ctx, "weight", weight.dtype, x.dtype);
    if (weight.ndim != 1 || weight.shape[0] != C)
      return fail(ctx, "hard_cross_entropy on gpu: weight must have shape [%lld]",
                  static_cast<long long>(C));
  }
  for (int i = 0; i < 3; ++i) {
    const OarTensor& t = ctx->outputs[i];
    if (t.ndim != 1 || t.shape[0] != M)
      return fail(ctx, "hard_cross_entropy on gpu: outputs must have shape [%lld]",
                  static_cast<long long>(M));
    if (t.dtype != x.dtype) return bad_dtype(ctx, "out", t.dtype, x.dtype);
  }
  if (x.dtype != OAR_FLOAT32 && x.dtype != OAR_FLOAT64) return unsupported(ctx, x.dtype);
  if (M / 8 >= 2147483647LL) return fail(ctx, "hard_cross_entropy on gpu: too many rows");
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (M == 0) return OAR_STATUS_OK;
  CrossEntropyArgs a{M, C, x.strides[0], x.strides[1], label.strides[0],
                     weight.ndim >= 0 ? weight.strides[0] : 0, ignore_index,
                     static_cast<int32_t>(kind)};
  dispatch_f32_f64(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* wp = weight.ndim >= 0 ? static_cast<const T*>(weight.data) : nullptr;
    T* loss = static_cast<T*>(ctx->outputs[0].data);
    T* wsum = static_cast<T*>(ctx->outputs[1].data);
    T* lse = static_cast<T*>(ctx->outputs[2].data);
    const int64_t len = kind == 0 ? C : 0;  // only logits read the whole row
    launch_rows(M, len, stream, [&](auto lanes, dim3 grid, dim3 block, cudaStream_t s) {
      constexpr int kLanes = decltype(lanes)::value;
      if (label.dtype == OAR_INT64)
        cross_entropy_kernel<T, int64_t, kLanes><<<grid, block, 0, s>>>(
            static_cast<const T*>(x.data), static_cast<const int64_t*>(label.data), wp, loss, wsum,
            lse, a);
      else
        cross_entropy_kernel<T, int32_t, kLanes><<<grid, block, 0, s>>>(
            static_cast<const T*>(x.data), static_cast<const int32_t*>(label.data), wp, loss,
            wsum, lse, a);
    });
  });
  return check_launch(ctx, ctx->op);
}

}  // namespace oar_cuda
