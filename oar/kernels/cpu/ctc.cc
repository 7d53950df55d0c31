#include "oar/kernels/cpu/ctc.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"

namespace oar::kernels {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

inline double log_add(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

std::vector<int64_t> to_int64(const Tensor& t) {
  const Tensor c = t.contiguous();
  std::vector<int64_t> v(c.numel());
  if (c.dtype() == DType::Int32) {
    const int32_t* p = c.data<int32_t>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = p[i];
  } else {
    const int64_t* p = c.data<int64_t>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = p[i];
  }
  return v;
}

template <typename D>
void ctc_impl(const Tensor& logits, const std::vector<int64_t>& labels, int64_t Lmax,
              const std::vector<int64_t>& ilen, const std::vector<int64_t>& llen, int64_t blank,
              bool norm_by_times, const Tensor& loss, const Tensor& grad) {
  const Tensor xc = logits.contiguous();
  const int64_t T = xc.shape()[0], N = xc.shape()[1], C = xc.shape()[2];
  const D* x = xc.data<D>();
  D* lo = loss.data<D>();
  D* g = grad.data<D>();
  std::fill(g, g + T * N * C, D(0));
  parallel_for(0, N, 1, [&](int64_t nb, int64_t ne) {
    std::vector<double> lp, alpha, beta;
    std::vector<int64_t> ext;
    for (int64_t n = nb; n < ne; ++n) {
      const int64_t Tn = ilen[n], L = llen[n], S = 2 * L + 1;
      // log-softmax of the used time steps
      lp.assign(Tn * C, 0.0);
      for (int64_t t = 0; t < Tn; ++t) {
        const D* row = x + (t * N + n) * C;
        double m = kNegInf;
        for (int64_t c = 0; c < C; ++c) m = std::max(m, double(row[c]));
        double s = 0;
        for (int64_t c = 0; c < C; ++c) s += std::exp(double(row[c]) - m);
        const double lse = m + std::log(s);
        for (int64_t c = 0; c < C; ++c) lp[t * C + c] = double(row[c]) - lse;
      }
      ext.assign(S, blank);
      for (int64_t i = 0; i < L; ++i) ext[2 * i + 1] = labels[n * Lmax + i];
      // may state s be entered from s - 2 (skipping a blank between two different labels)?
      auto skip = [&](int64_t s) { return s >= 2 && ext[s] != blank && ext[s] != ext[s - 2]; };
      alpha.assign(std::max<int64_t>(Tn, 1) * S, kNegInf);
      beta.assign(std::max<int64_t>(Tn, 1) * S, kNegInf);
      double ll = kNegInf;
      if (Tn > 0) {
        alpha[0] = lp[ext[0]];
        if (S > 1) alpha[1] = lp[ext[1]];
        for (int64_t t = 1; t < Tn; ++t) {
          const double* prev = &alpha[(t - 1) * S];
          double* cur = &alpha[t * S];
          // states that can still reach the end: s >= S - 2 (Tn - t) (pruning is optional)
          for (int64_t s = 0; s < S; ++s) {
            double a = prev[s];
            if (s >= 1) a = log_add(a, prev[s - 1]);
            if (skip(s)) a = log_add(a, prev[s - 2]);
            cur[s] = a == kNegInf ? kNegInf : a + lp[t * C + ext[s]];
          }
        }
        const double* last = &alpha[(Tn - 1) * S];
        ll = S > 1 ? log_add(last[S - 1], last[S - 2]) : last[S - 1];
      } else if (L == 0) {
        ll = 0.0;  // an empty input emits the empty label with probability 1
      }
      lo[n] = D(-ll);
      if (Tn == 0 || ll == kNegInf) continue;
      double* b = &beta[(Tn - 1) * S];
      b[S - 1] = lp[(Tn - 1) * C + ext[S - 1]];
      if (S > 1) b[S - 2] = lp[(Tn - 1) * C + ext[S - 2]];
      for (int64_t t = Tn - 2; t >= 0; --t) {
        const double* nxt = &beta[(t + 1) * S];
        double* cur = &beta[t * S];
        for (int64_t s = 0; s < S; ++s) {
          double v = nxt[s];
          if (s + 1 < S) v = log_add(v, nxt[s + 1]);
          if (s + 2 < S && skip(s + 2)) v = log_add(v, nxt[s + 2]);
          cur[s] = v == kNegInf ? kNegInf : v + lp[t * C + ext[s]];
        }
      }
      // d loss / d x[t, c] = softmax(t, c) - sum over states s with label c of the posterior
      // exp(alpha + beta - lp - ll) (alpha and beta both hold the emission at t).
      const double scale = norm_by_times ? 1.0 / double(Tn) : 1.0;
      std::vector<double> occ(C);
      for (int64_t t = 0; t < Tn; ++t) {
        std::fill(occ.begin(), occ.end(), kNegInf);
        for (int64_t s = 0; s < S; ++s) {
          const double a = alpha[t * S + s], bb = beta[t * S + s];
          if (a == kNegInf || bb == kNegInf) continue;
          occ[ext[s]] = log_add(occ[ext[s]], a + bb - lp[t * C + ext[s]]);
        }
        D* gr = g + (t * N + n) * C;
        for (int64_t c = 0; c < C; ++c)
          gr[c] = D(scale * (std::exp(lp[t * C + c]) - std::exp(occ[c] - ll)));
      }
    }
  });
}

}  // namespace

void ctc_loss(const Tensor& logits, const Tensor& labels, const Tensor& input_lengths,
              const Tensor& label_lengths, int64_t blank, bool norm_by_times, const Tensor& loss,
              const Tensor& grad) {
  const int64_t T = logits.shape()[0], N = logits.shape()[1], C = logits.shape()[2];
  const int64_t Lmax = labels.shape()[1];
  const std::vector<int64_t> lab = to_int64(labels), il = to_int64(input_lengths),
                             ll = to_int64(label_lengths);
  for (int64_t n = 0; n < N; ++n) {
    OAR_ENFORCE_ARG(il[n] >= 0 && il[n] <= T, "ctc_loss: input_lengths[", n, "] must be in [0, ",
                    T, "] (the time steps of log_probs), got ", il[n]);
    OAR_ENFORCE_ARG(ll[n] >= 0 && ll[n] <= Lmax, "ctc_loss: label_lengths[", n,
                    "] must be in [0, ", Lmax, "] (the columns of labels), got ", ll[n]);
    for (int64_t i = 0; i < ll[n]; ++i) {
      const int64_t v = lab[n * Lmax + i];
      OAR_ENFORCE(v >= 0 && v < C, OutOfRange, "ctc_loss: labels[", n, ", ", i,
                  "] must be a class in [0, ", C, "), got ", v);
      OAR_ENFORCE_ARG(v != blank, "ctc_loss: labels[", n, ", ", i, "] is the blank class ", blank);
    }
  }
  dispatch_floating(logits.dtype(), "ctc_loss", [&](auto tag) {
    using T_ = decltype(tag);
    if constexpr (std::is_same_v<T_, float> || std::is_same_v<T_, double>) {
      ctc_impl<T_>(logits, lab, Lmax, il, ll, blank, norm_by_times, loss, grad);
    } else {
      OAR_THROW(TypeMismatch, "ctc_loss: argument 'log_probs' must be float32 or float64, got ",
                dtype_name(logits.dtype()));
    }
  });
}

}  // namespace oar::kernels
