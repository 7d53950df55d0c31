#include "oar/kernels/cpu/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/matmul.h"
#include "oar/kernels/cpu/vec_exp.h"

namespace oar::kernels {
namespace {

// C[M, N] = op(A) op(B) (+ C when accumulate), row-major with leading dimensions.
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
          const float* B, int64_t ldb, float* C, int64_t ldc, bool accumulate) {
  sgemm(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, accumulate ? 1.0f : 0.0f, C, ldc);
}
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const double* A, int64_t lda,
          const double* B, int64_t ldb, double* C, int64_t ldc, bool accumulate) {
  dgemm(ta, tb, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

// row[i] = exp(row[i] - m); returns the sum.
float exp_sum(float* row, int64_t n, float m) {
  typedef float V __attribute__((vector_size(32)));
  constexpr int64_t L = 8;
  V vs{};
  const V mv = V{} + m;
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    V x;
    __builtin_memcpy(&x, row + i, sizeof(V));
    const V e = exp_f32(x - mv);
    __builtin_memcpy(row + i, &e, sizeof(V));
    vs += e;
  }
  float s = 0;
  for (int j = 0; j < L; ++j) s += vs[j];
  for (; i < n; ++i) { row[i] = std::exp(row[i] - m); s += row[i]; }
  return s;
}
double exp_sum(double* row, int64_t n, double m) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) { row[i] = std::exp(row[i] - m); s += row[i]; }
  return s;
}

struct Dims {
  int64_t B, Sq, Sk, H, Hk, D, Dv;
};

// The mask of the scores, [B, H, Sq, Sk], read through its batch, head and row strides with
// each row contiguous: an expanded mask (stride 0 over the batch, the heads or the query rows, as
// a [Sq, Sk] causal mask or a [B, 1, 1, Sk] padding mask broadcast by the caller) is read in
// place, not copied B * H * Sq times.
struct MaskView {
  Tensor keep;  // the tensor the pointer reads (the mask, or a contiguous copy of it)
  int64_t batch_stride = 0, head_stride = 0, row_stride = 0;
  int64_t offset(int64_t b, int64_t h) const { return b * batch_stride + h * head_stride; }
};

MaskView mask_view(const Tensor& mask) {
  MaskView m;
  if (!mask.defined()) return m;
  const Shape& sh = mask.shape();
  const Strides& st = mask.strides();
  const bool rows_ok = (sh[3] <= 1 || st[3] == 1) && st[0] >= 0 && st[1] >= 0 && st[2] >= 0;
  m.keep = rows_ok ? mask : mask.contiguous();
  m.batch_stride = sh[0] <= 1 ? 0 : m.keep.strides()[0];
  m.head_stride = sh[1] <= 1 ? 0 : m.keep.strides()[1];
  m.row_stride = sh[2] <= 1 ? 0 : m.keep.strides()[2];
  return m;
}

Dims dims_of(const Tensor& q, const Tensor& k, const Tensor& v) {
  return Dims{q.shape()[0], q.shape()[1], k.shape()[1], q.shape()[2], k.shape()[2], q.shape()[3],
              v.shape()[3]};
}

template <typename T>
void forward(const Dims& d, const T* q, const T* k, const T* v, const MaskView& mask,
             const T* dm, T scale, bool causal, T* out, T* probs) {
  const int64_t group = d.H / d.Hk, SS = d.Sq * d.Sk;
  const bool bool_mask = mask.keep.defined() && mask.keep.dtype() == DType::Bool;
  const bool* mb = bool_mask ? static_cast<const bool*>(mask.keep.raw_data()) : nullptr;
  const T* mf = mask.keep.defined() && !bool_mask ? static_cast<const T*>(mask.keep.raw_data()) : nullptr;
  const T ninf = -std::numeric_limits<T>::infinity();
  parallel_for(0, d.B * d.H, 1, [&](int64_t b0, int64_t b1) {
    std::vector<T> tmp(dm ? SS : 0), scratch(probs ? 0 : SS);  // no probs: one head's P at a time
    for (int64_t bh = b0; bh < b1; ++bh) {
      const int64_t b = bh / d.H, h = bh % d.H, hk = h / group;
      const T* qp = q + (b * d.Sq * d.H + h) * d.D;
      const T* kp = k + (b * d.Sk * d.Hk + hk) * d.D;
      const T* vp = v + (b * d.Sk * d.Hk + hk) * d.Dv;
      T* P = probs ? probs + bh * SS : scratch.data();
      gemm(false, true, d.Sq, d.Sk, d.D, qp, d.H * d.D, kp, d.Hk * d.D, P, d.Sk, false);
      const int64_t moff = mask.offset(b, h);
      for (int64_t i = 0; i < d.Sq; ++i) {
        T* row = P + i * d.Sk;
        const int64_t lim = causal ? std::min(i + 1, d.Sk) : d.Sk;
        // One branch-free pass per term, so each loop vectorises (a loop testing every term
        // per element ran scalar and took half of the forward).
        if (mf) {
          const T* mfr = mf + moff + i * mask.row_stride;
#pragma omp simd
          for (int64_t j = 0; j < d.Sk; ++j) row[j] = row[j] * scale + mfr[j];
        } else {
#pragma omp simd
          for (int64_t j = 0; j < d.Sk; ++j) row[j] *= scale;
        }
        if (mb) {
          const bool* mbr = mb + moff + i * mask.row_stride;
#pragma omp simd
          for (int64_t j = 0; j < d.Sk; ++j) row[j] = mbr[j] ? row[j] : ninf;
        }
        std::fill(row + lim, row + d.Sk, ninf);
        T m = ninf;
#pragma omp simd reduction(max : m)
        for (int64_t j = 0; j < d.Sk; ++j) m = row[j] > m ? row[j] : m;
        // A row with every score -inf has no defined softmax: NaN, as the formula gives.
        const T sum = exp_sum(row, d.Sk, m == ninf ? std::numeric_limits<T>::quiet_NaN() : m);
        const T inv = T(1) / sum;
#pragma omp simd
        for (int64_t j = 0; j < d.Sk; ++j) row[j] *= inv;
      }
      const T* W = P;
      if (dm) {
        const T* mrow = dm + bh * SS;
        for (int64_t i = 0; i < SS; ++i) tmp[i] = P[i] * mrow[i];
        W = tmp.data();
      }
      gemm(false, false, d.Sq, d.Dv, d.Sk, W, d.Sk, vp, d.Hk * d.Dv,
           out + (b * d.Sq * d.H + h) * d.Dv, d.H * d.Dv, false);
    }
  });
}

template <typename T>
void backward(const Dims& d, const T* q, const T* k, const T* v, const T* probs, const T* dm,
              const T* dout, T scale, T* dq, T* dk, T* dv, T* dscore) {
  const int64_t group = d.H / d.Hk, SS = d.Sq * d.Sk;
  // One task per (batch, key/value head): it owns that head's dk and dv.
  parallel_for(0, d.B * d.Hk, 1, [&](int64_t b0, int64_t b1) {
    std::vector<T> dP(SS), Pd(dm ? SS : 0);
    for (int64_t bk = b0; bk < b1; ++bk) {
      const int64_t b = bk / d.Hk, hk = bk % d.Hk;
      const T* kp = k + (b * d.Sk * d.Hk + hk) * d.D;
      const T* vp = v + (b * d.Sk * d.Hk + hk) * d.Dv;
      T* dkp = dk + (b * d.Sk * d.Hk + hk) * d.D;
      T* dvp = dv + (b * d.Sk * d.Hk + hk) * d.Dv;
      for (int64_t s = 0; s < d.Sk; ++s) {
        std::fill(dkp + s * d.Hk * d.D, dkp + s * d.Hk * d.D + d.D, T(0));
        std::fill(dvp + s * d.Hk * d.Dv, dvp + s * d.Hk * d.Dv + d.Dv, T(0));
      }
      for (int64_t h = hk * group; h < (hk + 1) * group; ++h) {
        const int64_t bh = b * d.H + h;
        const T* P = probs + bh * SS;
        const T* qp = q + (b * d.Sq * d.H + h) * d.D;
        const T* gp = dout + (b * d.Sq * d.H + h) * d.Dv;
        T* dqp = dq + (b * d.Sq * d.H + h) * d.D;
        const T* W = P;
        if (dm) {
          for (int64_t i = 0; i < SS; ++i) Pd[i] = P[i] * dm[bh * SS + i];
          W = Pd.data();
        }
        // dV += W^T dO; dW = dO V^T.
        gemm(true, false, d.Sk, d.Dv, d.Sq, W, d.Sk, gp, d.H * d.Dv, dvp, d.Hk * d.Dv, true);
        gemm(false, true, d.Sq, d.Sk, d.Dv, gp, d.H * d.Dv, vp, d.Hk * d.Dv, dP.data(), d.Sk, false);
        // dS = scale * P * (dP - sum_j dP P), dP taken through the dropout mask.
        for (int64_t i = 0; i < d.Sq; ++i) {
          T* g = dP.data() + i * d.Sk;
          const T* p = P + i * d.Sk;
          if (dm) {
            const T* mrow = dm + bh * SS + i * d.Sk;
#pragma omp simd
            for (int64_t j = 0; j < d.Sk; ++j) g[j] *= mrow[j];
          }
          T dot = 0;
#pragma omp simd reduction(+ : dot)
          for (int64_t j = 0; j < d.Sk; ++j) dot += g[j] * p[j];
#pragma omp simd
          for (int64_t j = 0; j < d.Sk; ++j) g[j] = p[j] == T(0) ? T(0) : p[j] * (g[j] - dot);
          if (dscore) std::copy(g, g + d.Sk, dscore + bh * SS + i * d.Sk);
#pragma omp simd
          for (int64_t j = 0; j < d.Sk; ++j) g[j] *= scale;
        }
        // dQ = dS K; dK += dS^T Q.
        gemm(false, false, d.Sq, d.D, d.Sk, dP.data(), d.Sk, kp, d.Hk * d.D, dqp, d.H * d.D, false);
        gemm(true, false, d.Sk, d.D, d.Sq, dP.data(), d.Sk, qp, d.H * d.D, dkp, d.Hk * d.D, true);
      }
    }
  });
}

}  // namespace

void sdpa_forward(const Tensor& q0, const Tensor& k0, const Tensor& v0, const Tensor& mask0,
                  const Tensor& dmask0, double scale, bool is_causal, const Tensor& out,
                  const Tensor& probs) {
  if (out.numel() == 0 && (!probs.defined() || probs.numel() == 0)) return;
  const Tensor q = q0.contiguous(), k = k0.contiguous(), v = v0.contiguous();
  const MaskView mask = mask_view(mask0);
  const Tensor dmask = dmask0.defined() ? dmask0.contiguous() : dmask0;
  const Dims d = dims_of(q, k, v);
  if (d.Sk == 0) {  // no keys: every softmax is empty
    dispatch_floating(q.dtype(), "scaled_dot_product_attention", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        std::fill(static_cast<T*>(out.raw_data()), static_cast<T*>(out.raw_data()) + out.numel(),
                  std::numeric_limits<T>::quiet_NaN());
      }
    });
    return;
  }
  dispatch_floating(q.dtype(), "scaled_dot_product_attention", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      forward<T>(d, static_cast<const T*>(q.raw_data()), static_cast<const T*>(k.raw_data()),
                 static_cast<const T*>(v.raw_data()), mask,
                 dmask.defined() ? static_cast<const T*>(dmask.raw_data()) : nullptr, T(scale),
                 is_causal, static_cast<T*>(out.raw_data()),
                 probs.defined() ? static_cast<T*>(probs.raw_data()) : nullptr);
    } else {
      unsupported_dtype("scaled_dot_product_attention", q.dtype(), "float32, float64");
    }
  });
}

void attention_inference(const Tensor& query, const Tensor& key, const Tensor& value, double scale,
                         const Tensor& out) {
  sdpa_forward(query, key, value, Tensor(), Tensor(), scale, false, out, Tensor());
}

std::vector<Tensor> sdpa_backward(const std::vector<Tensor>& inputs, const Tensor& probs0,
                                  const Tensor& dmask0, const Tensor& dout0, double scale) {
  const Tensor q = inputs[0].contiguous(), k = inputs[1].contiguous(), v = inputs[2].contiguous();
  const bool with_mask = inputs.size() > 3, mask_grad = with_mask && inputs[3].dtype() != DType::Bool;
  Tensor dscore = mask_grad ? Tensor::make(probs0.shape(), q.dtype()) : Tensor();
  const Tensor probs = probs0.contiguous(), dout = dout0.contiguous();
  const Tensor dmask = dmask0.defined() ? dmask0.contiguous() : dmask0;
  Tensor dq = Tensor::make(q.shape(), q.dtype()), dk = Tensor::make(k.shape(), k.dtype()),
         dv = Tensor::make(v.shape(), v.dtype());
  const Dims d = dims_of(q, k, v);
  dispatch_floating(q.dtype(), "scaled_dot_product_attention_grad", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (q.numel() == 0 || k.numel() == 0 || v.numel() == 0) {
        std::fill(static_cast<T*>(dq.raw_data()), static_cast<T*>(dq.raw_data()) + dq.numel(), T(0));
        std::fill(static_cast<T*>(dk.raw_data()), static_cast<T*>(dk.raw_data()) + dk.numel(), T(0));
        std::fill(static_cast<T*>(dv.raw_data()), static_cast<T*>(dv.raw_data()) + dv.numel(), T(0));
        if (mask_grad)
          std::fill(static_cast<T*>(dscore.raw_data()), static_cast<T*>(dscore.raw_data()) + dscore.numel(), T(0));
        return;
      }
      backward<T>(d, static_cast<const T*>(q.raw_data()), static_cast<const T*>(k.raw_data()),
                  static_cast<const T*>(v.raw_data()), static_cast<const T*>(probs.raw_data()),
                  dmask.defined() ? static_cast<const T*>(dmask.raw_data()) : nullptr,
                  static_cast<const T*>(dout.raw_data()), T(scale),
                  static_cast<T*>(dq.raw_data()), static_cast<T*>(dk.raw_data()),
                  static_cast<T*>(dv.raw_data()),
                  mask_grad ? static_cast<T*>(dscore.raw_data()) : nullptr);
    } else {
      unsupported_dtype("scaled_dot_product_attention_grad", q.dtype(), "float32, float64");
    }
  });
  if (with_mask) return {dq, dk, dv, dscore};
  return {dq, dk, dv};
}

}  // namespace oar::kernels
