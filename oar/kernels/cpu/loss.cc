#include "oar/kernels/cpu/loss.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/vec_exp.h"

#pragma GCC diagnostic ignored "-Wpsabi"

namespace oar::kernels {
namespace {

typedef float V8 __attribute__((vector_size(32)));

inline V8 load8(const float* p) {
  V8 v;
  std::memcpy(&v, p, sizeof(V8));
  return v;
}
inline void store8(float* p, V8 v) { std::memcpy(p, &v, sizeof(V8)); }

// log(sum(exp(x - m))) + m of one row.
inline double row_lse(const float* x, int64_t n) {
  float m = -std::numeric_limits<float>::infinity();
  const int64_t full = n / 8 * 8;
  if (full) {  // 8 lanes of running maxima (a scalar max chain is latency-bound)
    V8 vm = load8(x);
    for (int64_t i = 8; i < full; i += 8) {
      const V8 v = load8(x + i);
      vm = v > vm ? v : vm;
    }
    for (int j = 0; j < 8; ++j) m = vm[j] > m ? vm[j] : m;
  }
  for (int64_t i = full; i < n; ++i) m = x[i] > m ? x[i] : m;
  if (std::isinf(m)) return m;
  V8 acc = V8{} + 0.0f;
  const V8 mv = V8{} + m;
  for (int64_t i = 0; i < full; i += 8) acc += exp_f32(load8(x + i) - mv);
  double s = 0;
  for (int j = 0; j < 8; ++j) s += acc[j];
  for (int64_t i = full; i < n; ++i) s += exp_f32(x[i] - m);
  return std::log(s) + m;
}
inline double row_lse(const double* x, int64_t n) {
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  if (std::isinf(m)) return m;
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += std::exp(x[i] - m);
  return std::log(s) + m;
}
// out = exp(x - lse) * g
inline void row_softmax_scaled(const float* x, float lse, float g, float* out, int64_t n) {
  const int64_t full = n / 8 * 8;
  const V8 lv = V8{} + lse, gv = V8{} + g;
  for (int64_t i = 0; i < full; i += 8) store8(out + i, exp_f32(load8(x + i) - lv) * gv);
  for (int64_t i = full; i < n; ++i) out[i] = exp_f32(x[i] - lse) * g;
}
inline void row_softmax_scaled(const double* x, double lse, double g, double* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::exp(x[i] - lse) * g;
}

template <typename L>
int64_t label_at(const Tensor& label, int64_t i) {
  return static_cast<int64_t>(label.data<L>()[i]);
}

}  // namespace

void hard_cross_entropy(const Tensor& input, const Tensor& label, const Tensor& weight,
                        int64_t ignore_index, CEInput mode, const Tensor& loss,
                        const Tensor& wsum, const Tensor& lse) {
  const int64_t M = input.shape()[0], C = input.shape()[1];
  const Tensor lc = label.contiguous();
  const bool l64 = lc.dtype() == DType::Int64;
  // Check labels first (sequential; cheap next to the row work).
  for (int64_t i = 0; i < M; ++i) {
    const int64_t l = l64 ? label_at<int64_t>(lc, i) : label_at<int32_t>(lc, i);
    if (l == ignore_index || (l >= 0 && l < C)) continue;
    // As Paddle: IndexError from cross_entropy, ValueError from nll_loss.
    if (mode == CEInput::LogProbs)
      OAR_THROW(InvalidArgument, "nll_loss: label value ", l, " at position ", i,
                " is out of range: expected a class index in [0, ", C, ") or ignore_index (",
                ignore_index, ")");
    OAR_THROW(OutOfRange, "cross_entropy: label value ", l, " at position ", i,
              " is out of range: expected a class index in [0, ", C, ") or ignore_index (",
              ignore_index, ")");
  }
  dispatch_f32_f64(input.dtype(), "cross_entropy", [&](auto tag) {
    using T = decltype(tag);
    const Tensor xc = input.contiguous();
    const Tensor wc = weight.defined() ? weight.contiguous() : Tensor();
    const T* xp = xc.data<T>();
    const T* wp = wc.defined() ? wc.data<T>() : nullptr;
    T* lp = loss.data<T>();
    T* wsp = wsum.data<T>();
    T* lsp = lse.data<T>();
    parallel_for(0, M, std::max<int64_t>(1, 16384 / std::max<int64_t>(C, 1)),
                 [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t l = l64 ? label_at<int64_t>(lc, r) : label_at<int32_t>(lc, r);
        const T* xr = xp + r * C;
        double ls = 0;
        if (mode == CEInput::Logits) ls = C > 0 ? row_lse(xr, C) : 0.0;
        lsp[r] = static_cast<T>(ls);
        if (l == ignore_index) {
          lp[r] = T(0);
          wsp[r] = T(0);
          continue;
        }
        const double w = wp ? static_cast<double>(wp[l]) : 1.0;
        double logp;
        if (mode == CEInput::Logits) logp = static_cast<double>(xr[l]) - ls;
        else if (mode == CEInput::Probs) logp = std::log(static_cast<double>(xr[l]));
        else logp = static_cast<double>(xr[l]);
        lp[r] = static_cast<T>(-w * logp);
        wsp[r] = static_cast<T>(w);
      }
    });
  });
}

void hard_cross_entropy_grad(const Tensor& input, const Tensor& label, const Tensor& weight,
                             const Tensor& lse, const Tensor& grad, int64_t ignore_index,
                             CEInput mode, const Tensor& dinput) {
  const int64_t M = input.shape()[0], C = input.shape()[1];
  const Tensor lc = label.contiguous();
  const bool l64 = lc.dtype() == DType::Int64;
  dispatch_f32_f64(input.dtype(), "cross_entropy_grad", [&](auto tag) {
    using T = decltype(tag);
    const Tensor xc = input.contiguous(), gc = grad.contiguous();
    const Tensor wc = weight.defined() ? weight.contiguous() : Tensor();
    const T* xp = xc.data<T>();
    const T* wp = wc.defined() ? wc.data<T>() : nullptr;
    const T* gp = gc.data<T>();
    const T* lsp = lse.data<T>();
    T* dp = dinput.data<T>();
    parallel_for(0, M, std::max<int64_t>(1, 16384 / std::max<int64_t>(C, 1)),
                 [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t l = l64 ? label_at<int64_t>(lc, r) : label_at<int32_t>(lc, r);
        T* dr = dp + r * C;
        if (l == ignore_index) {
          std::fill(dr, dr + C, T(0));
          continue;
        }
        const T g = static_cast<T>(static_cast<double>(gp[r]) * (wp ? static_cast<double>(wp[l]) : 1.0));
        const T* xr = xp + r * C;
        if (mode == CEInput::Logits) {
          row_softmax_scaled(xr, lsp[r], g, dr, C);
          dr[l] -= g;
        } else {
          std::fill(dr, dr + C, T(0));
          dr[l] = mode == CEInput::Probs ? -g / xr[l] : -g;
        }
      }
    });
  });
}

}  // namespace oar::kernels
