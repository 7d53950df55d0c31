// rnn_layer and rnn_layer_grad: one recurrent layer in one direction (Elman RNN tanh/relu, LSTM
// optionally projected, GRU), forward and backward through time.
//
// Contract (as plugins/custom_cpu/rnn.cc and rnn_grad.cc, ports of oar/kernels/cpu/rnn.cc with
// Paddle's gate order and formulas):
// - rnn_layer: inputs x [T, B, I] (time-major), weight_ih [G H, I], weight_hh [G H, P], bias_ih?,
//   bias_hh? [G H], h0 [B, P], c0? [B, H] (LSTM), sequence_length? [B] int32/int64 (step t of row
//   b is valid when t < length[b]; an invalid step keeps the state and writes zeros to out),
//   weight_ho? [H, P] (projected LSTM; else P == H); attrs mode ("RNN_TANH", "RNN_RELU", "LSTM",
//   "GRU"), is_reverse (t from T - 1 down). Outputs out [T, B, P], last_h [B, P], last_c [B, H]
//   (LSTM, else [0]) and reserve [T, B, R] in the host's layout (oar/ops/infer_meta/rnn.cc: the
//   previous h, then for LSTM the previous c, the activated gates i f g o, the new c and, when
//   projected, the unprojected h; for GRU the gates r z n and the hidden candidate part).
// - rnn_layer_grad: kernels::rnn_layer_grad's arguments: inputs x, weight_ih, weight_hh, bias_ih?,
//   bias_hh? (unused), sequence_length?, weight_ho?, out, reserve, grad_out? [T, B, P],
//   grad_h? [B, P], grad_c? [B, H] (absent gradients are zeros); attrs mode, is_reverse; outputs
//   dx, dweight_ih, dweight_hh, dbias_ih, dbias_hh, dh0, dc0, dweight_ho, each absent (ndim -1)
//   when not wanted.
// Inputs may be any strided views (gathered into contiguous scratch); outputs are contiguous.
// float32 and float64, as the host.
//
// How: the input projection of every step is one cuBLAS GEMM (conv_blas.h); each step then runs
// the recurrent GEMM (h @ weight_hh^T) and one fused gate kernel (biases added there, in the
// host's order), plus the projection GEMM for a projected LSTM. last_h/last_c are the running
// state. The backward walks the steps in reverse: a kernel adds grad_out to the carried dh, the
// fused gate-gradient kernel writes the pre-activation gate gradients of the step, a GEMM with
// weight_hh carries dh to the previous step; the weight, input and bias gradients are GEMMs over
// all steps at the end (bias sums as a GEMM with a vector of ones).
#include <cmath>
#include <cstring>

#include "plugins/cuda/conv.cuh"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

constexpr int kThreads = 256;

enum class Mode : int { Tanh, Relu, Lstm, Gru };

bool parse_mode(const char* s, Mode* m) {
  if (std::strcmp(s, "RNN_TANH") == 0) *m = Mode::Tanh;
  else if (std::strcmp(s, "RNN_RELU") == 0) *m = Mode::Relu;
  else if (std::strcmp(s, "LSTM") == 0) *m = Mode::Lstm;
  else if (std::strcmp(s, "GRU") == 0) *m = Mode::Gru;
  else return false;
  return true;
}

struct Dims {
  int64_t T, B, I, H, P, G, GH, R;
  bool projected;
};

// The valid length of batch row b (T without sequence_length).
struct Lens {
  const void* p = nullptr;
  int64_t stride = 1;
  bool i64 = false;
  int64_t T = 0;
  __device__ __forceinline__ int64_t of(int64_t b) const {
    if (!p) return T;
    return i64 ? static_cast<const int64_t*>(p)[b * stride] : static_cast<const int32_t*>(p)[b * stride];
  }
};

template <class T>
__device__ __forceinline__ T sigmoid_of(T v) {
  return T(1) / (T(1) + exp(-v));
}

unsigned blocks_for(int device, int64_t n) { return cv_blocks(device, n, kThreads); }

bool same_shape(const OarTensor& t, std::initializer_list<int64_t> want) {
  if (t.ndim != static_cast<int32_t>(want.size())) return false;
  int d = 0;
  for (int64_t w : want)
    if (t.shape[d++] != w) return false;
  return true;
}

// Row-major C[M, N] (ld ldc) = op(A) @ op(B), op(A) [M, K], op(B) [K, N]; cuBLAS is column-major,
// so this is C^T = op(B)^T op(A)^T. K == 0 writes zeros (every use has ldc == N).
template <class T>
OarStatus rm_gemm(const OarKernelContext* ctx, cudaStream_t stream, bool ta, bool tb, int64_t M, int64_t N,
                  int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T* C, int64_t ldc) {
  if (M == 0 || N == 0) return OAR_STATUS_OK;
  if (K == 0) {
    const cudaError_t err = cudaMemsetAsync(C, 0, static_cast<size_t>(M * ldc) * sizeof(T), stream);
    return err == cudaSuccess ? OAR_STATUS_OK : cuda_fail(ctx, err, "cudaMemsetAsync");
  }
  GemmArgs g;
  g.ta = tb;
  g.tb = ta;
  g.m = N;
  g.n = M;
  g.k = K;
  g.a = B;
  g.lda = ldb;
  g.b = A;
  g.ldb = lda;
  g.c = C;
  g.ldc = ldc;
  g.ab_dtype = g.c_dtype = dtype_of<T>();
  return gemm(ctx, stream, g);
}

OarStatus zero(const OarKernelContext* ctx, cudaStream_t stream, void* p, size_t bytes) {
  if (bytes == 0) return OAR_STATUS_OK;
  const cudaError_t err = cudaMemsetAsync(p, 0, bytes, stream);
  return err == cudaSuccess ? OAR_STATUS_OK : cuda_fail(ctx, err, "cudaMemsetAsync");
}

OarStatus copy_d2d(const OarKernelContext* ctx, cudaStream_t stream, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return OAR_STATUS_OK;
  const cudaError_t err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream);
  return err == cudaSuccess ? OAR_STATUS_OK : cuda_fail(ctx, err, "cudaMemcpyAsync");
}

// ---- forward ----------------------------------------------------------------------------------

template <class T>
struct FwdStep {
  int64_t B, H, P, R, GH, t;
  Mode mode;
  bool projected;
  const T* xw;   // [T B, GH]: x @ weight_ih^T, without bias
  const T* hw;   // [B, GH]: h @ weight_hh^T, without bias
  const T* bih;  // may be null
  const T* bhh;
  T* h;    // [B, P], the running state (last_h)
  T* c;    // [B, H] (LSTM: last_c)
  T* out;  // [T, B, P]
  T* res;  // [T, B, R]
  Lens lens;
};

// One thread per (b, j < H): the step's gates, new state, out and reserve row.
template <class T>
__global__ void __launch_bounds__(kThreads) fwd_gates(FwdStep<T> a) {
  const int64_t total = a.B * a.H;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t H = a.H, P = a.P;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total; idx += step) {
    const int64_t b = idx / H, j = idx % H;
    const int64_t rb = a.t * a.B + b;
    T* row = a.res + rb * a.R;
    T* o = a.out + rb * P;
    T* hb = a.h + b * P;
    // The previous state (P == H unless projected, where h is not written here).
    for (int64_t p = j; p < P; p += H) row[p] = hb[p];
    if (a.t >= a.lens.of(b)) {
      for (int64_t p = j; p < P; p += H) o[p] = T(0);
      if (a.mode == Mode::Lstm) row[P + j] = a.c[b * H + j];
      continue;
    }
    const T* gx = a.xw + rb * a.GH;
    const T* gh = a.hw + b * a.GH;
    auto xin = [&](int64_t k) { return a.bih ? gx[k] + a.bih[k] : gx[k]; };
    auto hin = [&](int64_t k) { return a.bhh ? gh[k] + a.bhh[k] : gh[k]; };
    switch (a.mode) {
      case Mode::Tanh: {
        const T v = tanh(xin(j) + hin(j));
        o[j] = hb[j] = v;
        break;
      }
      case Mode::Relu: {
        const T s = xin(j) + hin(j);
        const T v = s > T(0) ? s : T(0);
        o[j] = hb[j] = v;
        break;
      }
      case Mode::Lstm: {
        T* cb = a.c + b * H;
        T* gates = row + P + H;
        const T cp = cb[j];
        row[P + j] = cp;
        const T i = sigmoid_of(xin(j) + hin(j));
        const T f = sigmoid_of(xin(H + j) + hin(H + j));
        const T g = tanh(xin(2 * H + j) + hin(2 * H + j));
        const T og = sigmoid_of(xin(3 * H + j) + hin(3 * H + j));
        gates[j] = i;
        gates[H + j] = f;
        gates[2 * H + j] = g;
        gates[3 * H + j] = og;
        const T cn = f * cp + i * g;
        cb[j] = cn;
        row[P + 5 * H + j] = cn;
        const T hr = og * tanh(cn);
        if (a.projected) row[P + 6 * H + j] = hr;
        else o[j] = hb[j] = hr;
        break;
      }
      case Mode::Gru: {
        T* gates = row + H;
        const T r = sigmoid_of(xin(j) + hin(j));
        const T z = sigmoid_of(xin(H + j) + hin(H + j));
        const T hc = hin(2 * H + j);
        const T n = tanh(xin(2 * H + j) + r * hc);
        gates[j] = r;
        gates[H + j] = z;
        gates[2 * H + j] = n;
        gates[3 * H + j] = hc;
        const T v = (hb[j] - n) * z + n;
        o[j] = hb[j] = v;
        break;
      }
    }
  }
}

// Projected LSTM: the valid rows take h = h_raw @ weight_ho (computed into hproj [B, P]).
template <class T>
__global__ void __launch_bounds__(kThreads)
    fwd_project(const T* __restrict__ hproj, T* __restrict__ h, T* __restrict__ out, int64_t B, int64_t P,
                int64_t t, Lens lens) {
  const int64_t total = B * P;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total; idx += step) {
    const int64_t b = idx / P;
    if (t >= lens.of(b)) continue;
    const T v = hproj[idx];
    h[idx] = v;
    out[t * B * P + idx] = v;
  }
}

// The checks both kernels share: shapes of x and the weights; fills d and lens.
OarStatus check_layer(const OarKernelContext* ctx, Mode mode, const OarTensor& x, const OarTensor& wih,
                      const OarTensor& whh, const OarTensor* lens_t, const OarTensor* who, Dims* d,
                      Lens* lens) {
  if (x.ndim != 3 || wih.ndim != 2 || whh.ndim != 2)
    return fail(ctx, "%s on gpu: x must be [T, B, I] and the weights 2-d", ctx->op);
  d->T = x.shape[0];
  d->B = x.shape[1];
  d->I = x.shape[2];
  d->G = mode == Mode::Lstm ? 4 : mode == Mode::Gru ? 3 : 1;
  d->GH = wih.shape[0];
  d->H = d->GH / d->G;
  d->P = whh.shape[1];
  d->projected = who != nullptr;
  d->R = mode == Mode::Lstm ? d->P + 6 * d->H + (d->projected ? d->H : 0) : mode == Mode::Gru ? 5 * d->H : d->P;
  if (d->GH % d->G != 0 || wih.shape[1] != d->I || whh.shape[0] != d->GH || (!d->projected && d->P != d->H) ||
      (d->projected && (mode != Mode::Lstm || !same_shape(*who, {d->H, d->P}))))
    return fail(ctx, "%s on gpu: the weights do not fit x [%lld, %lld, %lld] in this mode", ctx->op,
                static_cast<long long>(d->T), static_cast<long long>(d->B), static_cast<long long>(d->I));
  for (const OarTensor* t : {&wih, &whh, who})
    if (t && t->dtype != x.dtype) return fail(ctx, "%s on gpu: every tensor must be %s", ctx->op, dtype_name(x.dtype));
  lens->T = d->T;
  if (lens_t) {
    if (lens_t->dtype != OAR_INT32 && lens_t->dtype != OAR_INT64)
      return fail(ctx, "%s on gpu: sequence_length must be int32 or int64", ctx->op);
    if (!same_shape(*lens_t, {d->B})) return fail(ctx, "%s on gpu: sequence_length must be [B]", ctx->op);
    lens->p = lens_t->data;
    lens->stride = lens_t->strides[0];
    lens->i64 = lens_t->dtype == OAR_INT64;
  }
  return OAR_STATUS_OK;
}

bool read_mode(const OarKernelContext* ctx, Mode* mode) {
  return parse_mode(cv_string(ctx, "mode", ""), mode);
}

const OarTensor* opt(const OarKernelContext* ctx, int i) {
  return i < ctx->num_inputs && ctx->inputs[i].ndim >= 0 ? &ctx->inputs[i] : nullptr;
}

template <class T>
OarStatus rnn_forward(const OarKernelContext* ctx, cudaStream_t stream, Mode mode, bool reverse, const Dims& d,
                      const Lens& lens) {
  const OarTensor& x = ctx->inputs[0];
  const OarTensor *bih_t = opt(ctx, 3), *bhh_t = opt(ctx, 4), *c0_t = opt(ctx, 6), *who_t = opt(ctx, 8);
  const OarTensor& out = ctx->outputs[0];
  const OarTensor& last_h = ctx->outputs[1];
  const OarTensor& last_c = ctx->outputs[2];
  const OarTensor& reserve = ctx->outputs[3];
  const int64_t T_ = d.T, B = d.B, H = d.H, P = d.P, GH = d.GH, R = d.R, TB = d.T * d.B;
  T* h = static_cast<T*>(last_h.data);
  T* c = mode == Mode::Lstm ? static_cast<T*>(last_c.data) : nullptr;
  T* res = static_cast<T*>(reserve.data);
  // The running state starts as h0 / c0, in last_h / last_c.
  {
    const OarTensor* const ins[2] = {&ctx->inputs[5], nullptr};
    if (OarStatus st = run_elementwise<T, T>(ctx, stream, CvIdentity<T>{}, last_h, ins)) return st;
  }
  if (mode == Mode::Lstm) {
    const OarTensor* const ins[2] = {c0_t, nullptr};
    if (OarStatus st = run_elementwise<T, T>(ctx, stream, CvIdentity<T>{}, last_c, ins)) return st;
  }
  if (TB == 0) return OAR_STATUS_OK;
  Scratch sx, swih, swhh, sbih, sbhh, swho, sxw, shw, shp;
  const T *xp = nullptr, *wih = nullptr, *whh = nullptr, *bih = nullptr, *bhh = nullptr, *who = nullptr;
  if (OarStatus st = cv_contiguous<T>(ctx, stream, x, sx, &xp)) return st;
  if (OarStatus st = cv_contiguous<T>(ctx, stream, ctx->inputs[1], swih, &wih)) return st;
  if (OarStatus st = cv_contiguous<T>(ctx, stream, ctx->inputs[2], swhh, &whh)) return st;
  if (bih_t)
    if (OarStatus st = cv_contiguous<T>(ctx, stream, *bih_t, sbih, &bih)) return st;
  if (bhh_t)
    if (OarStatus st = cv_contiguous<T>(ctx, stream, *bhh_t, sbhh, &bhh)) return st;
  if (who_t)
    if (OarStatus st = cv_contiguous<T>(ctx, stream, *who_t, swho, &who)) return st;
  // Invalid steps keep zero gates (the backward's GEMMs read them).
  if (OarStatus st = zero(ctx, stream, res, static_cast<size_t>(TB * R) * sizeof(T))) return st;
  if (OarStatus st = sxw.alloc(ctx, stream, static_cast<size_t>(TB * GH) * sizeof(T))) return st;
  if (OarStatus st = shw.alloc(ctx, stream, static_cast<size_t>(B * GH) * sizeof(T))) return st;
  if (d.projected)
    if (OarStatus st = shp.alloc(ctx, stream, static_cast<size_t>(B * P) * sizeof(T))) return st;
  // The input projection of every time step at once.
  if (OarStatus st = rm_gemm<T>(ctx, stream, false, true, TB, GH, d.I, xp, d.I, wih, d.I, sxw.as<T>(), GH)) return st;
  FwdStep<T> a{};
  a.B = B;
  a.H = H;
  a.P = P;
  a.R = R;
  a.GH = GH;
  a.mode = mode;
  a.projected = d.projected;
  a.xw = sxw.as<T>();
  a.hw = shw.as<T>();
  a.bih = bih;
  a.bhh = bhh;
  a.h = h;
  a.c = c;
  a.out = static_cast<T*>(out.data);
  a.res = res;
  a.lens = lens;
  const unsigned gate_blocks = blocks_for(ctx->device_id, B * H);
  const unsigned proj_blocks = blocks_for(ctx->device_id, B * P);
  for (int64_t s = 0; s < T_; ++s) {
    const int64_t t = reverse ? T_ - 1 - s : s;
    if (OarStatus st = rm_gemm<T>(ctx, stream, false, true, B, GH, P, h, P, whh, P, shw.as<T>(), GH)) return st;
    a.t = t;
    fwd_gates<T><<<gate_blocks, kThreads, 0, stream>>>(a);
    if (OarStatus st = check_launch(ctx, "rnn_layer gates")) return st;
    if (d.projected) {  // h = h_raw @ weight_ho, for the valid rows
      if (OarStatus st = rm_gemm<T>(ctx, stream, false, false, B, P, H, res + t * B * R + P + 6 * H, R, who, P,
                                    shp.as<T>(), P))
        return st;
      fwd_project<T><<<proj_blocks, kThreads, 0, stream>>>(shp.as<T>(), h, a.out, B, P, t, lens);
      if (OarStatus st = check_launch(ctx, "rnn_layer projection")) return st;
    }
  }
  return OAR_STATUS_OK;
}

// ---- backward ---------------------------------------------------------------------------------

// dht_t[b] = dh[b] + grad_out[t, b] for the valid rows (the invalid ones stay zero).
template <class T>
__global__ void __launch_bounds__(kThreads)
    bwd_collect(const T* __restrict__ dh, const T* __restrict__ gout, T* __restrict__ dht, int64_t B, int64_t P,
                int64_t t, Lens lens) {
  const int64_t total = B * P;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total; idx += step) {
    if (t >= lens.of(idx / P)) continue;
    dht[t * B * P + idx] = gout ? dh[idx] + gout[t * B * P + idx] : dh[idx];
  }
}

template <class T>
struct BwdStep {
  int64_t B, H, P, R, GH, t;
  Mode mode;
  bool projected;
  const T* res;    // [T, B, R]
  const T* out;    // [T, B, P] (tanh / relu)
  const T* dht;    // [T, B, P]: the gradient reaching each step's h
  const T* dhraw;  // [B, H]: projected LSTM, the gradient of the unprojected h
  T* dgx;          // [T B, GH]
  T* dgh;          // [T B, GH] (GRU; else == dgx)
  T* dc;           // [B, H] (LSTM)
  T* direct;       // [B, H] (GRU): the part of dh that skips the weights
  Lens lens;
};

// One thread per (b, j < H) of the valid rows: the step's pre-activation gate gradients.
template <class T>
__global__ void __launch_bounds__(kThreads) bwd_gates(BwdStep<T> a) {
  const int64_t total = a.B * a.H;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t H = a.H, P = a.P;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total; idx += step) {
    const int64_t b = idx / H, j = idx % H;
    if (a.t >= a.lens.of(b)) continue;
    const int64_t rb = a.t * a.B + b;
    const T* row = a.res + rb * a.R;
    T* gx = a.dgx + rb * a.GH;
    const T* dhb = a.dht + rb * P;
    switch (a.mode) {
      case Mode::Tanh: {
        const T v = a.out[rb * P + j];
        gx[j] = dhb[j] * (T(1) - v * v);
        break;
      }
      case Mode::Relu: {
        const T v = a.out[rb * P + j];
        gx[j] = v > T(0) ? dhb[j] : T(0);
        break;
      }
      case Mode::Lstm: {
        const T* gates = row + P + H;
        const T dhr = a.projected ? a.dhraw[b * H + j] : dhb[j];
        const T i = gates[j], f = gates[H + j], g = gates[2 * H + j], og = gates[3 * H + j];
        const T tc = tanh(row[P + 5 * H + j]);
        const T dcell = a.dc[b * H + j] + dhr * og * (T(1) - tc * tc);
        gx[j] = dcell * g * i * (T(1) - i);
        gx[H + j] = dcell * row[P + j] * f * (T(1) - f);
        gx[2 * H + j] = dcell * i * (T(1) - g * g);
        gx[3 * H + j] = dhr * tc * og * (T(1) - og);
        a.dc[b * H + j] = dcell * f;
        break;
      }
      case Mode::Gru: {
        const T* gates = row + H;
        T* gh = a.dgh + rb * a.GH;
        const T r = gates[j], z = gates[H + j], n = gates[2 * H + j], hc = gates[3 * H + j];
        const T dn = dhb[j] * (T(1) - z) * (T(1) - n * n);
        const T dz = dhb[j] * (row[j] - n) * z * (T(1) - z);
        const T dr = dn * hc * r * (T(1) - r);
        gx[j] = gh[j] = dr;
        gx[H + j] = gh[H + j] = dz;
        gx[2 * H + j] = dn;
        gh[2 * H + j] = dn * r;
        a.direct[b * H + j] = dhb[j] * z;
        break;
      }
    }
  }
}

// dh[b] = dhprev[b] (+ direct[b] for GRU) for the valid rows; invalid rows pass dh through.
template <class T>
__global__ void __launch_bounds__(kThreads)
    bwd_carry(const T* __restrict__ dhprev, const T* __restrict__ direct, T* __restrict__ dh, int64_t B, int64_t P,
              int64_t t, Lens lens) {
  const int64_t total = B * P;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total; idx += step) {
    if (t >= lens.of(idx / P)) continue;
    dh[idx] = direct ? dhprev[idx] + direct[idx] : dhprev[idx];
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) fill_ones(T* __restrict__ p, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) p[i] = T(1);
}

template <class T>
OarStatus rnn_backward(const OarKernelContext* ctx, cudaStream_t stream, Mode mode, bool reverse, const Dims& d,
                       const Lens& lens) {
  const OarTensor *who_t = opt(ctx, 6), *gout_t = opt(ctx, 9), *gh_t = opt(ctx, 10), *gc_t = opt(ctx, 11);
  T* dst[8];
  for (int i = 0; i < 8; ++i) dst[i] = ctx->outputs[i].ndim >= 0 ? static_cast<T*>(ctx->outputs[i].data) : nullptr;
  if (mode != Mode::Lstm) {
    dst[6] = nullptr;
    gc_t = nullptr;
  }
  if (!d.projected) dst[7] = nullptr;
  const int64_t T_ = d.T, B = d.B, I = d.I, H = d.H, P = d.P, GH = d.GH, R = d.R, TB = d.T * d.B;
  const bool gru = mode == Mode::Gru, lstm = mode == Mode::Lstm;
  Scratch sx, swih, swhh, swho, sout, sres, sgo, sgh, sgc;
  Scratch sdgx, sdgh, sdh, sdc, sdht, sdhraw, sdhprev, sdirect, sones;
  const T *xp = nullptr, *wih = nullptr, *whh = nullptr, *res = nullptr, *outp = nullptr, *who = nullptr;
  const T *gout = nullptr, *ghp = nullptr, *gcp = nullptr;
  if (OarStatus st = cv_contiguous<T>(ctx, stream, ctx->inputs[0], sx, &xp)) return st;
  if (OarStatus st = cv_contiguous<T>(ctx, stream, ctx->inputs[1], swih, &wih)) return st;
  if (OarStatus st = cv_contiguous<T>(ctx, stream, ctx->inputs[2], swhh, &whh)) return st;
  if (OarStatus st = cv_contiguous<T>(ctx, stream, ctx->inputs[8], sres, &res)) return st;
  if (mode == Mode::Tanh || mode == Mode::Relu)
    if (OarStatus st = cv_contiguous<T>(ctx, stream, ctx->inputs[7], sout, &outp)) return st;
  if (who_t)
    if (OarStatus st = cv_contiguous<T>(ctx, stream, *who_t, swho, &who)) return st;
  if (gout_t)
    if (OarStatus st = cv_contiguous<T>(ctx, stream, *gout_t, sgo, &gout)) return st;
  if (gh_t)
    if (OarStatus st = cv_contiguous<T>(ctx, stream, *gh_t, sgh, &ghp)) return st;
  if (gc_t)
    if (OarStatus st = cv_contiguous<T>(ctx, stream, *gc_t, sgc, &gcp)) return st;
  const size_t es = sizeof(T);
  const size_t gates_bytes = static_cast<size_t>(TB * GH) * es;
  if (OarStatus st = sdgx.alloc(ctx, stream, gates_bytes)) return st;
  if (OarStatus st = zero(ctx, stream, sdgx.p, gates_bytes)) return st;
  if (gru) {
    if (OarStatus st = sdgh.alloc(ctx, stream, gates_bytes)) return st;
    if (OarStatus st = zero(ctx, stream, sdgh.p, gates_bytes)) return st;
    if (OarStatus st = sdirect.alloc(ctx, stream, static_cast<size_t>(B * H) * es)) return st;
  }
  T* dgx = sdgx.as<T>();
  T* dgh_all = gru ? sdgh.as<T>() : dgx;
  if (OarStatus st = sdh.alloc(ctx, stream, static_cast<size_t>(B * P) * es)) return st;
  if (OarStatus st = ghp ? copy_d2d(ctx, stream, sdh.p, ghp, static_cast<size_t>(B * P) * es)
                         : zero(ctx, stream, sdh.p, static_cast<size_t>(B * P) * es))
    return st;
  if (lstm) {
    if (OarStatus st = sdc.alloc(ctx, stream, static_cast<size_t>(B * H) * es)) return st;
    if (OarStatus st = gcp ? copy_d2d(ctx, stream, sdc.p, gcp, static_cast<size_t>(B * H) * es)
                           : zero(ctx, stream, sdc.p, static_cast<size_t>(B * H) * es))
      return st;
  }
  if (OarStatus st = sdht.alloc(ctx, stream, static_cast<size_t>(TB * P) * es)) return st;
  if (OarStatus st = zero(ctx, stream, sdht.p, static_cast<size_t>(TB * P) * es)) return st;
  if (d.projected)
    if (OarStatus st = sdhraw.alloc(ctx, stream, static_cast<size_t>(B * H) * es)) return st;
  if (OarStatus st = sdhprev.alloc(ctx, stream, static_cast<size_t>(B * P) * es)) return st;
  T* dh = sdh.as<T>();
  T* dht = sdht.as<T>();
  BwdStep<T> a{};
  a.B = B;
  a.H = H;
  a.P = P;
  a.R = R;
  a.GH = GH;
  a.mode = mode;
  a.projected = d.projected;
  a.res = res;
  a.out = outp;
  a.dht = dht;
  a.dhraw = d.projected ? sdhraw.as<T>() : nullptr;
  a.dgx = dgx;
  a.dgh = dgh_all;
  a.dc = lstm ? sdc.as<T>() : nullptr;
  a.direct = gru ? sdirect.as<T>() : nullptr;
  a.lens = lens;
  const unsigned bp_blocks = blocks_for(ctx->device_id, B * P);
  const unsigned gate_blocks = blocks_for(ctx->device_id, B * H);
  for (int64_t s = T_ - 1; s >= 0 && B > 0; --s) {
    const int64_t t = reverse ? T_ - 1 - s : s;
    bwd_collect<T><<<bp_blocks, kThreads, 0, stream>>>(dh, gout, dht, B, P, t, lens);
    if (OarStatus st = check_launch(ctx, "rnn_layer_grad")) return st;
    if (d.projected)
      if (OarStatus st = rm_gemm<T>(ctx, stream, false, true, B, H, P, dht + t * B * P, P, who, P,
                                    sdhraw.as<T>(), H))
        return st;
    a.t = t;
    bwd_gates<T><<<gate_blocks, kThreads, 0, stream>>>(a);
    if (OarStatus st = check_launch(ctx, "rnn_layer_grad gates")) return st;
    if (OarStatus st = rm_gemm<T>(ctx, stream, false, false, B, P, GH, dgh_all + t * B * GH, GH, whh, P,
                                  sdhprev.as<T>(), P))
      return st;
    bwd_carry<T><<<bp_blocks, kThreads, 0, stream>>>(sdhprev.as<T>(), a.direct, dh, B, P, t, lens);
    if (OarStatus st = check_launch(ctx, "rnn_layer_grad")) return st;
  }
  if (dst[5])
    if (OarStatus st = copy_d2d(ctx, stream, dst[5], dh, static_cast<size_t>(B * P) * es)) return st;
  if (dst[6])
    if (OarStatus st = copy_d2d(ctx, stream, dst[6], a.dc, static_cast<size_t>(B * H) * es)) return st;
  if (dst[0])
    if (OarStatus st = rm_gemm<T>(ctx, stream, false, false, TB, I, GH, dgx, GH, wih, I, dst[0], I)) return st;
  if (dst[1])
    if (OarStatus st = rm_gemm<T>(ctx, stream, true, false, GH, I, TB, dgx, GH, xp, I, dst[1], I)) return st;
  if (dst[2])
    if (OarStatus st = rm_gemm<T>(ctx, stream, true, false, GH, P, TB, dgh_all, GH, res, R, dst[2], P)) return st;
  if (dst[3] || dst[4]) {  // column sums: dgx^T @ ones
    if (OarStatus st = sones.alloc(ctx, stream, static_cast<size_t>(TB) * es)) return st;
    if (TB > 0) {
      fill_ones<T><<<blocks_for(ctx->device_id, TB), kThreads, 0, stream>>>(sones.as<T>(), TB);
      if (OarStatus st = check_launch(ctx, "rnn_layer_grad")) return st;
    }
    for (int k = 3; k < 5; ++k)
      if (dst[k])
        if (OarStatus st = rm_gemm<T>(ctx, stream, true, false, GH, 1, TB, k == 3 ? dgx : dgh_all, GH, sones.as<T>(),
                                      1, dst[k], 1))
          return st;
  }
  if (dst[7])
    if (OarStatus st = rm_gemm<T>(ctx, stream, true, false, H, P, TB, res + P + 6 * H, R, dht, P, dst[7], P))
      return st;
  return OAR_STATUS_OK;
}

}  // namespace

OarStatus k_rnn_layer(const OarKernelContext* ctx) {
  if (ctx->num_inputs < 6 || ctx->num_outputs != 4)
    return fail(ctx, "rnn_layer on gpu: expects 9 inputs and 4 outputs");
  Mode mode;
  if (!read_mode(ctx, &mode))
    return fail(ctx, "rnn_layer on gpu: mode must be RNN_TANH, RNN_RELU, LSTM or GRU, got '%s'",
                cv_string(ctx, "mode", ""));
  const bool reverse = attr_bool(ctx, "is_reverse", false);
  for (int i : {0, 1, 2, 5})
    if (ctx->inputs[i].ndim < 0) return fail(ctx, "rnn_layer on gpu: input %d is absent", i);
  for (int i = 0; i < 4; ++i)
    if (ctx->outputs[i].ndim < 0 || !is_contiguous(ctx->outputs[i]))
      return fail(ctx, "rnn_layer on gpu: output %d must be present and contiguous", i);
  const OarTensor& x = ctx->inputs[0];
  const OarTensor *bih = opt(ctx, 3), *bhh = opt(ctx, 4), *c0 = opt(ctx, 6), *lens_t = opt(ctx, 7),
                  *who = opt(ctx, 8);
  Dims d;
  Lens lens;
  if (OarStatus st = check_layer(ctx, mode, x, ctx->inputs[1], ctx->inputs[2], lens_t, who, &d, &lens)) return st;
  if (mode == Mode::Lstm && !c0) return fail(ctx, "rnn_layer on gpu: LSTM needs c0");
  for (const OarTensor* t : {bih, bhh, c0, &ctx->inputs[5], &ctx->outputs[0], &ctx->outputs[1],
                             &ctx->outputs[2], &ctx->outputs[3]})
    if (t && t->dtype != x.dtype) return fail(ctx, "rnn_layer on gpu: every tensor must be %s", dtype_name(x.dtype));
  if ((bih && !same_shape(*bih, {d.GH})) || (bhh && !same_shape(*bhh, {d.GH})) ||
      !same_shape(ctx->inputs[5], {d.B, d.P}) || (mode == Mode::Lstm && !same_shape(*c0, {d.B, d.H})))
    return fail(ctx, "rnn_layer on gpu: a bias or an initial state has the wrong shape");
  if (!same_shape(ctx->outputs[0], {d.T, d.B, d.P}) || !same_shape(ctx->outputs[1], {d.B, d.P}) ||
      !same_shape(ctx->outputs[3], {d.T, d.B, d.R}) ||
      (mode == Mode::Lstm && !same_shape(ctx->outputs[2], {d.B, d.H})))
    return fail(ctx, "rnn_layer on gpu: an output has the wrong shape");
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(Types<float, double>{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = rnn_forward<T>(ctx, stream, mode, reverse, d, lens);
  });
  return found ? st : unsupported(ctx, x.dtype);
}

OarStatus k_rnn_layer_grad(const OarKernelContext* ctx) {
  if (ctx->num_inputs < 9 || ctx->num_outputs != 8)
    return fail(ctx, "rnn_layer_grad on gpu: expects 12 inputs and 8 outputs");
  Mode mode;
  if (!read_mode(ctx, &mode))
    return fail(ctx, "rnn_layer_grad on gpu: mode must be RNN_TANH, RNN_RELU, LSTM or GRU, got '%s'",
                cv_string(ctx, "mode", ""));
  const bool reverse = attr_bool(ctx, "is_reverse", false);
  for (int i : {0, 1, 2, 7, 8})
    if (ctx->inputs[i].ndim < 0) return fail(ctx, "rnn_layer_grad on gpu: input %d is absent", i);
  const OarTensor& x = ctx->inputs[0];
  Dims d;
  Lens lens;
  if (OarStatus st = check_layer(ctx, mode, x, ctx->inputs[1], ctx->inputs[2], opt(ctx, 5), opt(ctx, 6), &d, &lens))
    return st;
  const OarTensor *gout = opt(ctx, 9), *gh = opt(ctx, 10), *gc = mode == Mode::Lstm ? opt(ctx, 11) : nullptr;
  for (const OarTensor* t : {&ctx->inputs[7], &ctx->inputs[8], gout, gh, gc})
    if (t && t->dtype != x.dtype)
      return fail(ctx, "rnn_layer_grad on gpu: every tensor must be %s", dtype_name(x.dtype));
  if (!same_shape(ctx->inputs[7], {d.T, d.B, d.P}) || !same_shape(ctx->inputs[8], {d.T, d.B, d.R}) ||
      (gout && !same_shape(*gout, {d.T, d.B, d.P})) || (gh && !same_shape(*gh, {d.B, d.P})) ||
      (gc && !same_shape(*gc, {d.B, d.H})))
    return fail(ctx, "rnn_layer_grad on gpu: out, reserve or an incoming gradient has the wrong shape");
  const int64_t GH = d.GH, H = d.H, P = d.P, B = d.B;
  const int64_t want[8][3] = {{d.T, B, d.I}, {GH, d.I}, {GH, P}, {GH}, {GH}, {B, P}, {B, H}, {H, P}};
  const int32_t ndims[8] = {3, 2, 2, 1, 1, 2, 2, 2};
  for (int i = 0; i < 8; ++i) {
    const OarTensor& g = ctx->outputs[i];
    if (g.ndim < 0) continue;
    bool fits = g.ndim == ndims[i];
    for (int k = 0; fits && k < ndims[i]; ++k) fits = g.shape[k] == want[i][k];
    if (g.dtype != x.dtype || !fits || !is_contiguous(g))
      return fail(ctx, "rnn_layer_grad on gpu: gradient %d must be a contiguous %s tensor of its input's shape", i,
                  dtype_name(x.dtype));
  }
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(Types<float, double>{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = rnn_backward<T>(ctx, stream, mode, reverse, d, lens);
  });
  return found ? st : unsupported(ctx, x.dtype);
}

}  // namespace oar_cuda
