#include "oar/kernels/cpu/rnn.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/matmul.h"
#include "oar/kernels/cpu/vec_math.h"

namespace oar::kernels {

namespace {

// C[M, N] = op(A) @ op(B) (+ C when accumulate), row-major with leading dimensions.
template <typename T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B,
          int64_t ldb, T* C, int64_t ldc, bool accumulate) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    if (!accumulate)
      for (int64_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, T(0));
    return;
  }
  if constexpr (std::is_same_v<T, float>)
    sgemm(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, accumulate ? 1.0f : 0.0f, C, ldc);
  else
    dgemm(ta, tb, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

template <typename T>
inline T sigmoid(T v) { return T(1) / (T(1) + std::exp(-v)); }

// p[i] = f(p[i]) for i < n, f sigmoid or tanh: SLEEF's vectorised span when oar has one (the
// gates are most of a step's time at small hidden sizes), else libm per element.
template <typename T>
void activate(UnaryOp op, T* p, int64_t n) {
  SpanFn<T> fn = nullptr;
  if constexpr (std::is_same_v<T, float>) fn = vec_span_f32(op);
  else fn = vec_span_f64(op);
  if (fn) return fn(p, p, n);
  for (int64_t i = 0; i < n; ++i) p[i] = op == UnaryOp::Sigmoid ? sigmoid(p[i]) : std::tanh(p[i]);
}

template <typename T>
const T* data_or_null(const Tensor& t, Tensor& keep) {
  if (!t.defined()) return nullptr;
  keep = t.contiguous();
  return keep.data<T>();
}

// Valid length of every batch row (T when no sequence_length).
std::vector<int64_t> lengths(const Tensor& sequence_length, int64_t B, int64_t T) {
  std::vector<int64_t> len(B, T);
  if (!sequence_length.defined()) return len;
  const Tensor s = sequence_length.contiguous();
  if (s.dtype() == DType::Int32) {
    for (int64_t b = 0; b < B; ++b) len[b] = s.data<int32_t>()[b];
  } else {
    for (int64_t b = 0; b < B; ++b) len[b] = s.data<int64_t>()[b];
  }
  return len;
}

// Adds a bias row to each of `rows` rows of width n.
template <typename T>
void add_rows(T* m, int64_t rows, int64_t n, const T* bias) {
  if (!bias) return;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) m[r * n + j] += bias[j];
}

// Column sums of a [rows, n] matrix into out[n].
template <typename T>
void column_sums(const T* m, int64_t rows, int64_t n, T* out) {
  std::fill(out, out + n, T(0));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) out[j] += m[r * n + j];
}

struct Dims {
  int64_t T, B, I, H, P, G, GH, R;
  bool projected;
};

Dims dims_of(const Tensor& x, const Tensor& weight_ih, const Tensor& weight_hh,
             const Tensor& weight_ho, RnnMode mode) {
  Dims d;
  d.T = x.shape()[0];
  d.B = x.shape()[1];
  d.I = x.shape()[2];
  d.G = rnn_gate_count(mode);
  d.GH = weight_ih.shape()[0];
  d.H = d.GH / d.G;
  d.P = weight_hh.shape()[1];
  d.projected = weight_ho.defined();
  d.R = rnn_reserve_width(mode, d.H, d.P, d.projected);
  return d;
}

template <typename T>
void forward_impl(const Tensor& x, const Tensor& weight_ih, const Tensor& weight_hh,
                  const Tensor& bias_ih, const Tensor& bias_hh, const Tensor& h0,
                  const Tensor& c0, const Tensor& sequence_length, const Tensor& weight_ho,
                  RnnMode mode, bool is_reverse, const Tensor& out, const Tensor& last_h,
                  const Tensor& last_c, const Tensor& reserve) {
  const Dims d = dims_of(x, weight_ih, weight_hh, weight_ho, mode);
  const int64_t T_ = d.T, B = d.B, H = d.H, P = d.P, GH = d.GH, R = d.R;
  Tensor kx, kwih, kwhh, kbih, kbhh, kh0, kc0, kwho;
  const T* xp = data_or_null<T>(x, kx);
  const T* wih = data_or_null<T>(weight_ih, kwih);
  const T* whh = data_or_null<T>(weight_hh, kwhh);
  const T* bih = data_or_null<T>(bias_ih, kbih);
  const T* bhh = data_or_null<T>(bias_hh, kbhh);
  const T* who = data_or_null<T>(weight_ho, kwho);
  const std::vector<int64_t> len = lengths(sequence_length, B, T_);
  T* outp = out.data<T>();
  T* res = reserve.data<T>();
  std::fill(res, res + T_ * B * R, T(0));  // invalid steps keep zero gates (read by the GEMMs)

  // The input projection of every time step at once.
  std::vector<T> xw(static_cast<size_t>(T_ * B * GH));
  gemm<T>(false, true, T_ * B, GH, d.I, xp, d.I, wih, d.I, xw.data(), GH, false);
  add_rows(xw.data(), T_ * B, GH, bih);

  std::vector<T> h(static_cast<size_t>(B * P)), c(mode == RnnMode::Lstm ? B * H : 0);
  std::memcpy(h.data(), data_or_null<T>(h0, kh0), sizeof(T) * B * P);
  if (mode == RnnMode::Lstm) std::memcpy(c.data(), data_or_null<T>(c0, kc0), sizeof(T) * B * H);
  std::vector<T> hw(static_cast<size_t>(B * GH)), hproj(d.projected ? B * P : 0);
  std::vector<T> scratch(static_cast<size_t>(B * H));  // tanh(c) of each row (LSTM)
  // Rows are independent within a step: threads split them when a step has enough work.
  const bool parallel_rows = B > 1 && B * GH >= (1 << 14);

  for (int64_t s = 0; s < T_; ++s) {
    const int64_t t = is_reverse ? T_ - 1 - s : s;
    gemm<T>(false, true, B, GH, P, h.data(), P, whh, P, hw.data(), GH, false);
    add_rows(hw.data(), B, GH, bhh);
#pragma omp parallel for schedule(static) if (parallel_rows)
    for (int64_t b = 0; b < B; ++b) {
      T* row = res + (t * B + b) * R;
      T* o = outp + (t * B + b) * P;
      T* hb = h.data() + b * P;
      std::memcpy(row, hb, sizeof(T) * P);
      const bool valid = t < len[b];
      const T* gx = xw.data() + (t * B + b) * GH;
      const T* gh = hw.data() + b * GH;
      if (!valid) {
        std::fill(o, o + P, T(0));
        if (mode == RnnMode::Lstm) std::memcpy(row + P, c.data() + b * H, sizeof(T) * H);
        continue;
      }
      switch (mode) {
        case RnnMode::Tanh:
          for (int64_t j = 0; j < H; ++j) hb[j] = gx[j] + gh[j];
          activate(UnaryOp::Tanh, hb, H);
          std::memcpy(o, hb, sizeof(T) * H);
          break;
        case RnnMode::Relu:
          for (int64_t j = 0; j < H; ++j) o[j] = hb[j] = std::max(gx[j] + gh[j], T(0));
          break;
        case RnnMode::Lstm: {
          T* cb = c.data() + b * H;
          T* cprev = row + P;
          T* gates = row + P + H;  // i, f, g, o
          T* cnew = row + P + 5 * H;
          T* tc = scratch.data() + b * H;
          std::memcpy(cprev, cb, sizeof(T) * H);
          for (int64_t j = 0; j < 4 * H; ++j) gates[j] = gx[j] + gh[j];
          activate(UnaryOp::Sigmoid, gates, 2 * H);
          activate(UnaryOp::Tanh, gates + 2 * H, H);
          activate(UnaryOp::Sigmoid, gates + 3 * H, H);
          for (int64_t j = 0; j < H; ++j) tc[j] = cb[j] = cnew[j] = gates[H + j] * cb[j] + gates[j] * gates[2 * H + j];
          activate(UnaryOp::Tanh, tc, H);
          T* hr = d.projected ? row + P + 6 * H : o;
          for (int64_t j = 0; j < H; ++j) hr[j] = gates[3 * H + j] * tc[j];
          if (!d.projected) std::memcpy(hb, o, sizeof(T) * H);
          break;
        }
        case RnnMode::Gru: {
          T* gates = row + H;  // r, z, n, h_candidate
          for (int64_t j = 0; j < 2 * H; ++j) gates[j] = gx[j] + gh[j];
          activate(UnaryOp::Sigmoid, gates, 2 * H);
          for (int64_t j = 0; j < H; ++j) {
            gates[3 * H + j] = gh[2 * H + j];
            gates[2 * H + j] = gx[2 * H + j] + gates[j] * gh[2 * H + j];
          }
          activate(UnaryOp::Tanh, gates + 2 * H, H);
          for (int64_t j = 0; j < H; ++j) {
            const T n = gates[2 * H + j];
            o[j] = hb[j] = (hb[j] - n) * gates[H + j] + n;
          }
          break;
        }
      }
    }
    if (d.projected) {  // h = h_raw @ weight_ho, for the valid rows
      gemm<T>(false, false, B, P, H, res + t * B * R + P + 6 * H, R, who, P, hproj.data(), P,
              false);
      for (int64_t b = 0; b < B; ++b) {
        if (t >= len[b]) continue;
        std::memcpy(h.data() + b * P, hproj.data() + b * P, sizeof(T) * P);
        std::memcpy(outp + (t * B + b) * P, hproj.data() + b * P, sizeof(T) * P);
      }
    }
  }
  std::memcpy(last_h.data<T>(), h.data(), sizeof(T) * B * P);
  if (mode == RnnMode::Lstm) std::memcpy(last_c.data<T>(), c.data(), sizeof(T) * B * H);
}

template <typename T>
void backward_impl(const Tensor& x, const Tensor& weight_ih, const Tensor& weight_hh,
                   const Tensor& sequence_length, const Tensor& weight_ho, RnnMode mode,
                   bool is_reverse, const Tensor& out, const Tensor& reserve,
                   const Tensor& grad_out, const Tensor& grad_h, const Tensor& grad_c,
                   const Tensor& dx, const Tensor& dweight_ih, const Tensor& dweight_hh,
                   const Tensor& dbias_ih, const Tensor& dbias_hh, const Tensor& dh0,
                   const Tensor& dc0, const Tensor& dweight_ho) {
  const Dims d = dims_of(x, weight_ih, weight_hh, weight_ho, mode);
  const int64_t T_ = d.T, B = d.B, H = d.H, P = d.P, GH = d.GH, R = d.R;
  Tensor kx, kwih, kwhh, kwho, kout, kres, kgo, kgh, kgc;
  const T* xp = data_or_null<T>(x, kx);
  const T* wih = data_or_null<T>(weight_ih, kwih);
  const T* whh = data_or_null<T>(weight_hh, kwhh);
  const T* who = data_or_null<T>(weight_ho, kwho);
  const T* outp = data_or_null<T>(out, kout);
  const T* res = data_or_null<T>(reserve, kres);
  const T* gout = data_or_null<T>(grad_out, kgo);
  const T* gh_in = data_or_null<T>(grad_h, kgh);
  const T* gc_in = mode == RnnMode::Lstm ? data_or_null<T>(grad_c, kgc) : nullptr;
  const std::vector<int64_t> len = lengths(sequence_length, B, T_);

  // Gate gradients (pre-activation) of every step: the input side and the hidden side (they
  // differ only for GRU, where the reset gate scales the hidden part of the candidate).
  std::vector<T> dgx(static_cast<size_t>(T_ * B * GH), T(0));
  std::vector<T> dgh_store(mode == RnnMode::Gru ? T_ * B * GH : 0, T(0));
  T* dgh_all = mode == RnnMode::Gru ? dgh_store.data() : dgx.data();
  std::vector<T> dh(static_cast<size_t>(B * P), T(0)), dc(mode == RnnMode::Lstm ? B * H : 0, T(0));
  if (gh_in) std::memcpy(dh.data(), gh_in, sizeof(T) * B * P);
  if (gc_in) std::memcpy(dc.data(), gc_in, sizeof(T) * B * H);
  // Gradient reaching each step's (projected) output h: kept for weight_ho's GEMM.
  std::vector<T> dht(static_cast<size_t>(T_ * B * P), T(0));
  std::vector<T> dhraw(d.projected ? B * H : 0), dhprev(static_cast<size_t>(B * P));
  std::vector<T> direct(mode == RnnMode::Gru ? B * H : 0);

  for (int64_t s = T_ - 1; s >= 0; --s) {
    const int64_t t = is_reverse ? T_ - 1 - s : s;
    T* dht_t = dht.data() + t * B * P;
    for (int64_t b = 0; b < B; ++b) {
      if (t >= len[b]) continue;
      for (int64_t j = 0; j < P; ++j)
        dht_t[b * P + j] = dh[b * P + j] + (gout ? gout[(t * B + b) * P + j] : T(0));
    }
    if (d.projected) gemm<T>(false, true, B, H, P, dht_t, P, who, P, dhraw.data(), H, false);
    for (int64_t b = 0; b < B; ++b) {
      if (t >= len[b]) continue;
      const T* row = res + (t * B + b) * R;
      T* gx = dgx.data() + (t * B + b) * GH;
      const T* dhb = dht_t + b * P;
      switch (mode) {
        case RnnMode::Tanh: {
          const T* v = outp + (t * B + b) * P;
          for (int64_t j = 0; j < H; ++j) gx[j] = dhb[j] * (T(1) - v[j] * v[j]);
          break;
        }
        case RnnMode::Relu: {
          const T* v = outp + (t * B + b) * P;
          for (int64_t j = 0; j < H; ++j) gx[j] = v[j] > T(0) ? dhb[j] : T(0);
          break;
        }
        case RnnMode::Lstm: {
          const T* cprev = row + P;
          const T* gates = row + P + H;
          const T* cnew = row + P + 5 * H;
          const T* dhr = d.projected ? dhraw.data() + b * H : dhb;
          T* dcb = dc.data() + b * H;
          for (int64_t j = 0; j < H; ++j) {
            const T i = gates[j], f = gates[H + j], g = gates[2 * H + j], og = gates[3 * H + j];
            const T tc = std::tanh(cnew[j]);
            const T dcell = dcb[j] + dhr[j] * og * (T(1) - tc * tc);
            gx[j] = dcell * g * i * (T(1) - i);
            gx[H + j] = dcell * cprev[j] * f * (T(1) - f);
            gx[2 * H + j] = dcell * i * (T(1) - g * g);
            gx[3 * H + j] = dhr[j] * tc * og * (T(1) - og);
            dcb[j] = dcell * f;
          }
          break;
        }
        case RnnMode::Gru: {
          const T* hprev = row;
          const T* gates = row + H;
          T* gh = dgh_all + (t * B + b) * GH;
          for (int64_t j = 0; j < H; ++j) {
            const T r = gates[j], z = gates[H + j], n = gates[2 * H + j], hc = gates[3 * H + j];
            const T dn = dhb[j] * (T(1) - z) * (T(1) - n * n);
            const T dz = dhb[j] * (hprev[j] - n) * z * (T(1) - z);
            const T dr = dn * hc * r * (T(1) - r);
            gx[j] = gh[j] = dr;
            gx[H + j] = gh[H + j] = dz;
            gx[2 * H + j] = dn;
            gh[2 * H + j] = dn * r;
            direct[b * H + j] = dhb[j] * z;
          }
          break;
        }
      }
    }
    // Gradient to the previous state: through the recurrent weights for valid rows; invalid rows
    // carried the state unchanged, so their gradient passes through.
    gemm<T>(false, false, B, P, GH, dgh_all + t * B * GH, GH, whh, P, dhprev.data(), P, false);
    for (int64_t b = 0; b < B; ++b) {
      if (t >= len[b]) continue;
      for (int64_t j = 0; j < P; ++j)
        dh[b * P + j] = dhprev[b * P + j] + (mode == RnnMode::Gru ? direct[b * H + j] : T(0));
    }
  }
  if (dh0.defined()) std::memcpy(dh0.data<T>(), dh.data(), sizeof(T) * B * P);
  if (dc0.defined() && mode == RnnMode::Lstm) std::memcpy(dc0.data<T>(), dc.data(), sizeof(T) * B * H);
  const int64_t TB = T_ * B;
  if (dx.defined()) gemm<T>(false, false, TB, d.I, GH, dgx.data(), GH, wih, d.I, dx.data<T>(), d.I, false);
  if (dweight_ih.defined())
    gemm<T>(true, false, GH, d.I, TB, dgx.data(), GH, xp, d.I, dweight_ih.data<T>(), d.I, false);
  if (dweight_hh.defined())
    gemm<T>(true, false, GH, P, TB, dgh_all, GH, res, R, dweight_hh.data<T>(), P, false);
  if (dbias_ih.defined()) column_sums(dgx.data(), TB, GH, dbias_ih.data<T>());
  if (dbias_hh.defined()) column_sums(dgh_all, TB, GH, dbias_hh.data<T>());
  if (dweight_ho.defined() && d.projected)
    gemm<T>(true, false, H, P, TB, res + P + 6 * H, R, dht.data(), P, dweight_ho.data<T>(), P, false);
}

}  // namespace

void rnn_layer(const Tensor& x, const Tensor& weight_ih, const Tensor& weight_hh,
               const Tensor& bias_ih, const Tensor& bias_hh, const Tensor& h0, const Tensor& c0,
               const Tensor& sequence_length, const Tensor& weight_ho, RnnMode mode,
               bool is_reverse, const Tensor& out, const Tensor& last_h, const Tensor& last_c,
               const Tensor& reserve) {
  dispatch_f32_f64(x.dtype(), "rnn_layer", [&](auto tag) {
    using T = decltype(tag);
    forward_impl<T>(x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0, sequence_length,
                    weight_ho, mode, is_reverse, out, last_h, last_c, reserve);
  });
}

void rnn_layer_grad(const Tensor& x, const Tensor& weight_ih, const Tensor& weight_hh,
                    const Tensor& bias_ih, const Tensor& bias_hh, const Tensor& sequence_length,
                    const Tensor& weight_ho, RnnMode mode, bool is_reverse, const Tensor& out,
                    const Tensor& reserve, const Tensor& grad_out, const Tensor& grad_h,
                    const Tensor& grad_c, const Tensor& dx, const Tensor& dweight_ih,
                    const Tensor& dweight_hh, const Tensor& dbias_ih, const Tensor& dbias_hh,
                    const Tensor& dh0, const Tensor& dc0, const Tensor& dweight_ho) {
  (void)bias_ih;
  (void)bias_hh;
  dispatch_f32_f64(x.dtype(), "rnn_layer_grad", [&](auto tag) {
    using T = decltype(tag);
    backward_impl<T>(x, weight_ih, weight_hh, sequence_length, weight_ho, mode, is_reverse, out,
                     reserve, grad_out, grad_h, grad_c, dx, dweight_ih, dweight_hh, dbias_ih,
                     dbias_hh, dh0, dc0, dweight_ho);
  });
}

}  // namespace oar::kernels
