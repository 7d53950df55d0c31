// sdpa_core: scaled dot-product attention, forward (its gradient is a host composite).
//
// Contract (as plugins/custom_cpu/attention.cc): inputs {query [B, Sq, H, D], key [B, Sk, Hk, D],
// value [B, Sk, Hk, Dv][, mask [B, H, Sq, Sk]]} (attr inputs_count: 3 or 4), then dmask
// [B, H, Sq, Sk] (the dropout mask, maybe absent); query head h reads key/value head
// h / (H / Hk). attrs scale, is_causal. Per (batch, head): S = scale Q K^T; the mask (bool:
// false -> -inf; float: added), is_causal (key j > query i -> -inf); P = softmax(S) by rows (a
// row of -inf only gives NaN); out [B, Sq, H, Dv] = (P * dmask) V; probs [B, H, Sq, Sk] = P.
// Inputs may be any strided views (masks may broadcast through 0 strides); out and probs are
// contiguous. float32, float64, float16, bfloat16 (16-bit: scores and softmax in float).
//
// How: q, k, v are gathered into [B, H, S, D] buffers (k/v heads repeated for grouped queries);
// S by one strided-batched GEMM (into probs itself, or a float buffer for 16-bit types); a warp
// per row applies mask/causal and the softmax, writing probs (and P * dmask when given); out by
// one strided-batched GEMM per batch index (heads batched, writing out's [Sq, H, Dv] layout).
#include <cmath>

#include "plugins/cuda/conv.cuh"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

constexpr int kThreads = 256;

struct Strides4 {
  int64_t s[4];
};

// dst[b, h, s, e] (contiguous [B, H, S, E]) = src[b, s, h / group, e].
template <class T>
__global__ void __launch_bounds__(kThreads)
    gather_heads(const T* __restrict__ src, T* __restrict__ dst, Strides4 st, int64_t H,
                 int64_t S, int64_t E, int64_t group, int64_t total) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += step) {
    const int64_t e = i % E;
    int64_t r = i / E;
    const int64_t s = r % S;
    r /= S;
    const int64_t h = r % H, b = r / H;
    dst[i] = src[b * st.s[0] + s * st.s[1] + (h / group) * st.s[2] + e * st.s[3]];
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) fill_nan(T* __restrict__ p, int64_t total) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += step)
    p[i] = convert<T>(NAN);
}

struct RowArgs {
  int64_t rows, H, Sq, Sk;
  bool causal;
  int mask_kind;  // 0 none, 1 bool, 2 float
  Strides4 ms, ds;
};

template <class Acc>
__device__ __forceinline__ Acc row_max(Acc v) {
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

template <class Acc>
__device__ __forceinline__ Acc row_sum(Acc v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// One warp per row (b, h, i) of the scores s (Acc, row-major [rows, Sk]; may alias probs when
// T == Acc): masking, softmax, probs = P and pd = P * dmask.
template <class T, class Acc>
__global__ void __launch_bounds__(kThreads)
    softmax_rows(Acc* s, T* probs, const bool* __restrict__ mb, const T* __restrict__ mf,
                 const T* __restrict__ dm, T* __restrict__ pd, RowArgs a) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= a.rows) return;
  const int64_t i = row % a.Sq, bh = row / a.Sq;
  const int64_t h = bh % a.H, b = bh / a.H;
  Acc* sr = s + row * a.Sk;
  T* pr = probs + row * a.Sk;
  const int64_t mbase = b * a.ms.s[0] + h * a.ms.s[1] + i * a.ms.s[2];
  const Acc ninf = -INFINITY;
  Acc hi = ninf;
  for (int64_t j = lane; j < a.Sk; j += 32) {
    Acc v = sr[j];
    if (a.causal && j > i) v = ninf;
    if (a.mask_kind == 1 && !mb[mbase + j * a.ms.s[3]]) v = ninf;
    if (a.mask_kind == 2) v += to_compute(mf[mbase + j * a.ms.s[3]]);
    sr[j] = v;
    hi = max(hi, v);
  }
  hi = row_max(hi);
  // A row with every score -inf has no defined softmax: NaN, as the formula gives.
  const Acc shift = hi == ninf ? Acc(NAN) : hi;
  Acc total = 0;
  for (int64_t j = lane; j < a.Sk; j += 32) {
    const Acc e = exp(sr[j] - shift);
    sr[j] = e;
    total += e;
  }
  total = row_sum(total);
  const Acc inv = Acc(1) / total;
  const int64_t dbase = b * a.ds.s[0] + h * a.ds.s[1] + i * a.ds.s[2];
  for (int64_t j = lane; j < a.Sk; j += 32) {
    const T p = convert<T>(sr[j] * inv);
    pr[j] = p;
    if (pd) pd[row * a.Sk + j] = convert<T>(to_compute(p) * to_compute(dm[dbase + j * a.ds.s[3]]));
  }
}

unsigned blocks_for(int device, int64_t n) { return cv_blocks(device, n, kThreads); }

template <class T>
OarStatus gather(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& t, Scratch& buf,
                 int64_t H, int64_t group) {
  const int64_t B = t.shape[0], S = t.shape[1], E = t.shape[3];
  const int64_t total = B * H * S * E;
  if (OarStatus st = buf.alloc(ctx, stream, static_cast<size_t>(total) * sizeof(T))) return st;
  if (total == 0) return OAR_STATUS_OK;
  const Strides4 st = {{t.strides[0], t.strides[1], t.strides[2], t.strides[3]}};
  gather_heads<T><<<blocks_for(ctx->device_id, total), kThreads, 0, stream>>>(
      static_cast<const T*>(t.data), buf.as<T>(), st, H, S, E, group, total);
  return check_launch(ctx, "sdpa_core gather");
}

template <class T>
OarStatus sdpa(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& q,
               const OarTensor& k, const OarTensor& v, const OarTensor* mask,
               const OarTensor* dmask, const OarTensor& out, const OarTensor& probs,
               double scale, bool causal) {
  using Acc = compute_t<T>;
  const int64_t B = q.shape[0], Sq = q.shape[1], H = q.shape[2], D = q.shape[3];
  const int64_t Sk = k.shape[1], Hk = k.shape[2], Dv = v.shape[3];
  const int64_t BH = B * H, group = H / Hk;
  if (BH * Sq == 0) return OAR_STATUS_OK;
  if (Sk == 0) {  // no keys: every softmax is empty
    if (out.numel == 0) return OAR_STATUS_OK;
    fill_nan<T><<<blocks_for(ctx->device_id, out.numel), kThreads, 0, stream>>>(
        static_cast<T*>(out.data), out.numel);
    return check_launch(ctx, "sdpa_core");
  }
  Scratch qb, kb, vb, sb, pdb;
  if (OarStatus st = gather<T>(ctx, stream, q, qb, H, 1)) return st;
  if (OarStatus st = gather<T>(ctx, stream, k, kb, H, group)) return st;
  if (OarStatus st = gather<T>(ctx, stream, v, vb, H, group)) return st;
  const int64_t SS = Sq * Sk;
  Acc* scores;
  if constexpr (std::is_same_v<T, Acc>) {
    scores = static_cast<Acc*>(probs.data);
  } else {
    if (OarStatus st = sb.alloc(ctx, stream, static_cast<size_t>(BH * SS) * sizeof(Acc)))
      return st;
    scores = sb.as<Acc>();
  }
  if (D == 0) {
    const cudaError_t err =
        cudaMemsetAsync(scores, 0, static_cast<size_t>(BH * SS) * sizeof(Acc), stream);
    if (err != cudaSuccess) return cuda_fail(ctx, err, "cudaMemsetAsync");
  } else {
    // S^T (Sk x Sq, ld Sk) = scale K (Sk x D) Q^T (D x Sq), per (b, h).
    GemmArgs a;
    a.m = Sk;
    a.n = Sq;
    a.k = D;
    a.ta = true;
    a.a = kb.p;
    a.lda = D;
    a.sa = Sk * D;
    a.b = qb.p;
    a.ldb = D;
    a.sb = Sq * D;
    a.c = scores;
    a.ldc = Sk;
    a.sc = SS;
    a.batch = BH;
    a.alpha = scale;
    a.ab_dtype = dtype_of<T>();
    a.c_dtype = dtype_of<Acc>();
    if (OarStatus st = gemm(ctx, stream, a)) return st;
  }
  RowArgs ra{};
  ra.rows = BH * Sq;
  ra.H = H;
  ra.Sq = Sq;
  ra.Sk = Sk;
  ra.causal = causal;
  ra.mask_kind = !mask ? 0 : (mask->dtype == OAR_BOOL ? 1 : 2);
  for (int d = 0; d < 4; ++d) {
    ra.ms.s[d] = mask ? mask->strides[d] : 0;
    ra.ds.s[d] = dmask ? dmask->strides[d] : 0;
  }
  T* pd = nullptr;
  if (dmask) {
    if (OarStatus st = pdb.alloc(ctx, stream, static_cast<size_t>(BH * SS) * sizeof(T)))
      return st;
    pd = pdb.as<T>();
  }
  const int warps = kThreads / 32;
  softmax_rows<T, Acc><<<static_cast<unsigned>((ra.rows + warps - 1) / warps), kThreads, 0,
                         stream>>>(
      scores, static_cast<T*>(probs.data),
      ra.mask_kind == 1 ? static_cast<const bool*>(mask->data) : nullptr,
      ra.mask_kind == 2 ? static_cast<const T*>(mask->data) : nullptr,
      dmask ? static_cast<const T*>(dmask->data) : nullptr, pd, ra);
  if (OarStatus st = check_launch(ctx, "sdpa_core softmax")) return st;
  if (Dv == 0) return OAR_STATUS_OK;
  // out_b (Dv x Sq column-major, ld H Dv) = V_bh^T (Dv x Sk) P_bh^T (Sk x Sq), heads batched.
  const T* pw = pd ? pd : static_cast<const T*>(probs.data);
  for (int64_t b = 0; b < B; ++b) {
    GemmArgs a;
    a.m = Dv;
    a.n = Sq;
    a.k = Sk;
    a.a = vb.as<T>() + b * H * Sk * Dv;
    a.lda = Dv;
    a.sa = Sk * Dv;
    a.b = pw + b * H * SS;
    a.ldb = Sk;
    a.sb = SS;
    a.c = static_cast<T*>(out.data) + b * Sq * H * Dv;
    a.ldc = H * Dv;
    a.sc = Dv;
    a.batch = H;
    a.ab_dtype = a.c_dtype = dtype_of<T>();
    if (OarStatus st = gemm(ctx, stream, a)) return st;
  }
  return OAR_STATUS_OK;
}

bool shape_is(const OarTensor& t, const int64_t (&want)[4]) {
  if (t.ndim != 4) return false;
  for (int d = 0; d < 4; ++d)
    if (t.shape[d] != want[d]) return false;
  return true;
}

}  // namespace

OarStatus k_sdpa_core(const OarKernelContext* ctx) {
  const int64_t n_in = cv_int(ctx, "inputs_count", 3);
  if (n_in != 3 && n_in != 4)
    return fail(ctx, "sdpa_core on gpu: expected {query, key, value} and maybe a mask, got %lld "
                "tensors", static_cast<long long>(n_in));
  if (ctx->num_inputs < n_in || ctx->num_outputs != 2)
    return fail(ctx, "sdpa_core on gpu: expects %lld inputs and 2 outputs",
                static_cast<long long>(n_in));
  for (int i = 0; i < n_in; ++i)
    if (ctx->inputs[i].ndim < 0) return fail(ctx, "sdpa_core on gpu: input %d is absent", i);
  const OarTensor& q = ctx->inputs[0];
  const OarTensor& k = ctx->inputs[1];
  const OarTensor& v = ctx->inputs[2];
  const OarTensor* mask = n_in == 4 ? &ctx->inputs[3] : nullptr;
  const OarTensor* dmask =
      ctx->num_inputs > n_in && ctx->inputs[n_in].ndim >= 0 ? &ctx->inputs[n_in] : nullptr;
  const OarTensor& out = ctx->outputs[0];
  const OarTensor& probs = ctx->outputs[1];
  if (q.ndim != 4 || k.ndim != 4 || v.ndim != 4)
    return fail(ctx, "sdpa_core on gpu: query, key and value must be 4-d");
  const int64_t B = q.shape[0], Sq = q.shape[1], H = q.shape[2], D = q.shape[3];
  const int64_t Sk = k.shape[1], Hk = k.shape[2], Dv = v.shape[3];
  if (k.shape[0] != B || k.shape[3] != D || v.shape[0] != B || v.shape[1] != Sk ||
      v.shape[2] != Hk || Hk == 0 || H % Hk != 0)
    return fail(ctx, "sdpa_core on gpu: query, key and value shapes do not fit");
  for (const OarTensor* t : {&k, &v, &out, &probs})
    if (t->dtype != q.dtype)
      return fail(ctx, "sdpa_core on gpu: every tensor must be %s", dtype_name(q.dtype));
  const int64_t full[4] = {B, H, Sq, Sk}, oshape[4] = {B, Sq, H, Dv};
  if (!shape_is(out, oshape) || !shape_is(probs, full))
    return fail(ctx, "sdpa_core on gpu: out or probs has the wrong shape");
  if (!is_contiguous(out) || !is_contiguous(probs))
    return fail(ctx, "sdpa_core on gpu: out and probs must be contiguous");
  if (mask && ((mask->dtype != OAR_BOOL && mask->dtype != q.dtype) || !shape_is(*mask, full)))
    return fail(ctx, "sdpa_core on gpu: mask must be bool or %s of shape [B, H, Sq, Sk]",
                dtype_name(q.dtype));
  if (dmask && (dmask->dtype != q.dtype || !shape_is(*dmask, full)))
    return fail(ctx, "sdpa_core on gpu: dmask must be %s of shape [B, H, Sq, Sk]",
                dtype_name(q.dtype));
  const double scale = cv_float(ctx, "scale", 1.0);
  const bool causal = attr_bool(ctx, "is_causal", false);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(FloatTypes{}, q.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = sdpa<T>(ctx, stream, q, k, v, mask, dmask, out, probs, scale, causal);
  });
  return found ? st : unsupported(ctx, q.dtype);
}

}  // namespace oar_cuda
