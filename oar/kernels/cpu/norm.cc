#include "oar/kernels/cpu/norm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/elementwise.h"

namespace oar::kernels {
namespace {

// Pointer to T data of an optional tensor made contiguous (kept alive by `keep`).
template <typename T>
const T* opt_data(const Tensor& t, Tensor& keep) {
  if (!t.defined()) return nullptr;
  keep = t.contiguous();
  return keep.data<T>();
}

// Splits [0, n) into at most `threads` chunks of at least `min_chunk`; returns the chunk count.
int64_t chunk_count(int64_t n, int64_t min_chunk) {
  const int64_t by_size = std::max<int64_t>(1, n / std::max<int64_t>(min_chunk, 1));
  return std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), std::min(n, by_size)));
}

// Sums of (x[i] - shift) and its square over one row, in float64 (4 double lanes x 2).
typedef float V4f __attribute__((vector_size(16)));
typedef double V4d __attribute__((vector_size(32)));
inline V4d load4d(const float* p) {
  V4f v;
  std::memcpy(&v, p, sizeof(v));
  return __builtin_convertvector(v, V4d);
}
inline V4d load4d(const double* p) {
  V4d v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline double hsum4(V4d v) { return (v[0] + v[1]) + (v[2] + v[3]); }

template <typename T>
void row_shifted_sums(const T* x, int64_t n, double shift, double& s1, double& s2) {
  V4d a1{}, a2{}, b1{}, b2{};
  const V4d sh = V4d{} + shift;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const V4d d0 = load4d(x + i) - sh, d1 = load4d(x + i + 4) - sh;
    a1 += d0;
    a2 += d0 * d0;
    b1 += d1;
    b2 += d1 * d1;
  }
  double r1 = hsum4(a1 + b1), r2 = hsum4(a2 + b2);
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - shift;
    r1 += d;
    r2 += d * d;
  }
  s1 += r1;
  s2 += r2;
}

// Sums of g and g * (x - m) * r over one row, in float64.
template <typename T>
void row_grad_sums(const T* g, const T* x, int64_t n, double m, double r, double& s1,
                   double& s2) {
  V4d a1{}, a2{}, b1{}, b2{};
  const V4d mv = V4d{} + m, rv = V4d{} + r;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const V4d g0 = load4d(g + i), g1 = load4d(g + i + 4);
    a1 += g0;
    b1 += g1;
    a2 += g0 * ((load4d(x + i) - mv) * rv);
    b2 += g1 * ((load4d(x + i + 4) - mv) * rv);
  }
  double r1 = hsum4(a1 + b1), r2 = hsum4(a2 + b2);
  for (; i < n; ++i) {
    const double gd = static_cast<double>(g[i]);
    r1 += gd;
    r2 += gd * ((static_cast<double>(x[i]) - m) * r);
  }
  s1 += r1;
  s2 += r2;
}

}  // namespace

// ---------------------------------------------------------------- layer_norm
namespace {

// One row of layer_norm (or RMSNorm with rms): its mean and 1 / std into *m and *rs, and
// y = (x - mean) * rstd * w + b (w and b optional).
template <typename T>
void norm_row(const T* xr, int64_t n, const T* w, const T* b, double epsilon, bool rms, T* yr, T* m_out,
              T* rs_out) {
  double s = 0;
  if (!rms) {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += static_cast<double>(xr[i]);
  }
  const double m = s / static_cast<double>(n);  // RMSNorm: 0
  const T mt = static_cast<T>(m);
  double v = 0;
#pragma omp simd reduction(+ : v)
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(xr[i] - mt);
    v += d * d;
  }
  // The mean was rounded to T: correct the variance for it (exact in exact arithmetic).
  const double dm = m - static_cast<double>(mt);
  v = v / static_cast<double>(n) - dm * dm;
  const double rs = 1.0 / std::sqrt(std::max(v, 0.0) + epsilon);
  *m_out = mt;
  *rs_out = static_cast<T>(rs);
  // (x - mean) * rstd: subtracting first keeps a constant row exactly 0.
  const T a = static_cast<T>(rs);
  if (w && b) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - mt) * a * w[i] + b[i];
  } else if (w) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - mt) * a * w[i];
  } else if (b) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - mt) * a + b[i];
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - mt) * a;
  }
}

int64_t leading_rows(const Tensor& x, int64_t begin_norm_axis) {
  int64_t rows = 1;
  for (int64_t d = 0; d < begin_norm_axis; ++d) rows *= x.shape()[d];
  return rows;
}

}  // namespace

void layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double epsilon,
                int64_t begin_norm_axis, const Tensor& out, const Tensor& mean,
                const Tensor& rstd, bool rms) {
  const int64_t rows = leading_rows(x, begin_norm_axis);
  const int64_t n = rows == 0 ? 0 : x.numel() / rows;
  dispatch_f32_f64(x.dtype(), "layer_norm", [&](auto tag) {
    using T = decltype(tag);
    const Tensor xc = x.contiguous();
    Tensor wk, bk;
    const T* w = opt_data<T>(weight, wk);
    const T* b = opt_data<T>(bias, bk);
    const T* xp = xc.data<T>();
    T* yp = out.data<T>();
    T* mp = mean.data<T>();
    T* rp = rstd.data<T>();
    if (n == 0) {
      for (int64_t r = 0; r < rows; ++r) {
        mp[r] = T(std::nan(""));
        rp[r] = T(std::nan(""));
      }
      return;
    }
    parallel_for(0, rows, std::max<int64_t>(1, 32768 / n), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) norm_row(xp + r * n, n, w, b, epsilon, rms, yp + r * n, mp + r, rp + r);
    });
  });
}

void layer_norm_grad(const Tensor& x, const Tensor& weight, const Tensor& mean,
                     const Tensor& rstd, const Tensor& grad, int64_t begin_norm_axis,
                     const Tensor& dx, const Tensor& dweight, const Tensor& dbias, bool rms) {
  int64_t rows = 1;
  for (int64_t d = 0; d < begin_norm_axis; ++d) rows *= x.shape()[d];
  const int64_t n = rows == 0 ? 0 : x.numel() / rows;
  dispatch_f32_f64(x.dtype(), "layer_norm_grad", [&](auto tag) {
    using T = decltype(tag);
    const Tensor xc = x.contiguous(), gc = grad.contiguous();
    Tensor wk;
    const T* w = opt_data<T>(weight, wk);
    const T* xp = xc.data<T>();
    const T* gp = gc.data<T>();
    const T* mp = mean.data<T>();
    const T* rp = rstd.data<T>();
    T* dxp = dx.defined() ? dx.data<T>() : nullptr;
    const bool want_wb = dweight.defined() || dbias.defined();
    const int64_t chunks = want_wb ? chunk_count(rows, 8) : chunk_count(rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(n, 1)));
    std::vector<double> part(want_wb ? static_cast<size_t>(chunks * 2 * n) : 0, 0.0);
    if (n > 0) {
      parallel_for(0, chunks, 1, [&](int64_t k0, int64_t k1) {
        std::vector<T> xh(static_cast<size_t>(n));
        for (int64_t k = k0; k < k1; ++k) {
          const int64_t r0 = rows * k / chunks, r1 = rows * (k + 1) / chunks;
          double* pw = want_wb ? part.data() + k * 2 * n : nullptr;
          double* pb = want_wb ? pw + n : nullptr;
          for (int64_t r = r0; r < r1; ++r) {
            const T* xr = xp + r * n;
            const T* gr = gp + r * n;
            const T m = mp[r], rs = rp[r];
            T* h = xh.data();
#pragma omp simd
            for (int64_t i = 0; i < n; ++i) h[i] = (xr[i] - m) * rs;
            if (want_wb) {
#pragma omp simd
              for (int64_t i = 0; i < n; ++i) {
                pw[i] += static_cast<double>(gr[i] * h[i]);
                pb[i] += static_cast<double>(gr[i]);
              }
            }
            if (!dxp) continue;
            double sg = 0, sgh = 0;
            if (w) {
#pragma omp simd reduction(+ : sg, sgh)
              for (int64_t i = 0; i < n; ++i) {
                const double g = static_cast<double>(gr[i] * w[i]);
                sg += g;
                sgh += g * static_cast<double>(h[i]);
              }
            } else {
#pragma omp simd reduction(+ : sg, sgh)
              for (int64_t i = 0; i < n; ++i) {
                const double g = static_cast<double>(gr[i]);
                sg += g;
                sgh += g * static_cast<double>(h[i]);
              }
            }
            const T a = rms ? T(0) : static_cast<T>(sg / static_cast<double>(n));  // no centring in RMSNorm
            const T bb = static_cast<T>(sgh / static_cast<double>(n));
            T* dr = dxp + r * n;
            if (w) {
#pragma omp simd
              for (int64_t i = 0; i < n; ++i) dr[i] = rs * (gr[i] * w[i] - a - h[i] * bb);
            } else {
#pragma omp simd
              for (int64_t i = 0; i < n; ++i) dr[i] = rs * (gr[i] - a - h[i] * bb);
            }
          }
        }
      });
    }
    if (want_wb) {
      T* dw = dweight.defined() ? dweight.data<T>() : nullptr;
      T* db = dbias.defined() ? dbias.data<T>() : nullptr;
      for (int64_t i = 0; i < n; ++i) {
        double sw = 0, sb = 0;
        for (int64_t k = 0; k < chunks; ++k) {
          sw += part[k * 2 * n + i];
          sb += part[k * 2 * n + n + i];
        }
        if (dw) dw[i] = static_cast<T>(sw);
        if (db) db[i] = static_cast<T>(sb);
      }
    }
  });
}

void fused_norm(const Tensor& x, const Tensor& bias, const Tensor& residual, const Tensor& norm_weight,
                const Tensor& norm_bias, double epsilon, int64_t begin_norm_axis, double residual_alpha,
                bool rms, const Tensor& out, const Tensor& residual_out, const Tensor& mean,
                const Tensor& rstd) {
  const int64_t rows = leading_rows(x, begin_norm_axis);
  const int64_t n = rows == 0 ? 0 : x.numel() / rows;
  if (n == 0) {  // empty rows: no statistics (NaN), as layer_norm
    layer_norm(residual_out, norm_weight, norm_bias, epsilon, begin_norm_axis, out, mean, rstd, rms);
    return;
  }
  dispatch_f32_f64(x.dtype(), "fused_norm", [&](auto tag) {
    using T = decltype(tag);
    const Tensor xc = x.contiguous();
    Tensor bk, rk, wk, nbk;
    const T* b = opt_data<T>(bias, bk);
    const T* res = opt_data<T>(residual, rk);
    const T* w = opt_data<T>(norm_weight, wk);
    const T* nb = opt_data<T>(norm_bias, nbk);
    const T* xp = xc.data<T>();
    T *hp = residual_out.data<T>(), *yp = out.data<T>(), *mp = mean.data<T>(), *rp = rstd.data<T>();
    const T alpha = static_cast<T>(residual_alpha);
    // Each row's h is normalised while it is still in cache.
    parallel_for(0, rows, std::max<int64_t>(1, 32768 / n), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* xr = xp + r * n;
        const T* rr = res ? res + r * n : nullptr;
        T* hr = hp + r * n;
        if (b && rr) {
#pragma omp simd
          for (int64_t i = 0; i < n; ++i) hr[i] = xr[i] + b[i] + alpha * rr[i];
        } else if (rr) {
#pragma omp simd
          for (int64_t i = 0; i < n; ++i) hr[i] = xr[i] + alpha * rr[i];
        } else if (b) {
#pragma omp simd
          for (int64_t i = 0; i < n; ++i) hr[i] = xr[i] + b[i];
        } else {
          std::copy(xr, xr + n, hr);
        }
        norm_row(hr, n, w, nb, epsilon, rms, yp + r * n, mp + r, rp + r);
      }
    });
  });
}

// ---------------------------------------------------------------- batch_norm
namespace {

// Per-channel sums over [outer, C, inner] of f1(value, channel, flat index) into acc1 [C] and
// of f2(...) into acc2 (double), in one pass, in parallel chunks with partial sums.
template <typename T, typename F1, typename F2, typename R>
void channel_sums(const T* p, int64_t outer, int64_t C, int64_t inner, double* acc1,
                  double* acc2, F1 f1, F2 f2, R row_fn) {
  const int64_t total = outer * C * inner;
  std::fill(acc1, acc1 + C, 0.0);
  std::fill(acc2, acc2 + C, 0.0);
  if (total == 0) return;
  const bool rows_mode = inner > 1;
  const int64_t units = rows_mode ? outer * C : outer;
  const int64_t chunks = chunk_count(units, std::max<int64_t>(1, 16384 / (rows_mode ? inner : C)));
  std::vector<double> part(static_cast<size_t>(chunks * 2 * C), 0.0);
  parallel_for(0, chunks, 1, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      double* p1 = part.data() + k * 2 * C;
      double* p2 = p1 + C;
      const int64_t u0 = units * k / chunks, u1 = units * (k + 1) / chunks;
      if (!rows_mode) {
        for (int64_t o = u0; o < u1; ++o) {
          const T* row = p + o * C;
#pragma omp simd
          for (int64_t c = 0; c < C; ++c) {
            p1[c] += f1(row[c], c, o * C + c);
            p2[c] += f2(row[c], c, o * C + c);
          }
        }
        continue;
      }
      for (int64_t r = u0; r < u1; ++r) {
        const int64_t c = r % C;
        row_fn(r * inner, c, p1[c], p2[c]);
      }
    }
  });
  for (int64_t k = 0; k < chunks; ++k)
    for (int64_t c = 0; c < C; ++c) {
      acc1[c] += part[k * 2 * C + c];
      acc2[c] += part[k * 2 * C + C + c];
    }
}

// out[i] = g(value, channel, flat index) over [outer, C, inner], in parallel.
template <typename T, typename G>
void channel_map(int64_t outer, int64_t C, int64_t inner, T* out, G g) {
  const int64_t rows = outer * C;
  if (rows * inner == 0) return;
  if (inner == 1) {
    parallel_for(0, outer, std::max<int64_t>(1, 32768 / C), [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        T* row = out + o * C;
#pragma omp simd
        for (int64_t c = 0; c < C; ++c) row[c] = g(c, o * C + c);
      }
    });
    return;
  }
  parallel_for(0, rows, std::max<int64_t>(1, 32768 / inner), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t c = r % C;
      T* row = out + r * inner;
      const int64_t base = r * inner;
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i) row[i] = g(c, base + i);
    }
  });
}

void dims3(const Tensor& x, int64_t axis, int64_t& outer, int64_t& C, int64_t& inner) {
  if (axis < 0) axis += x.ndim();
  outer = 1;
  inner = 1;
  C = x.ndim() > axis ? x.shape()[axis] : 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (int64_t d = axis + 1; d < x.ndim(); ++d) inner *= x.shape()[d];
}

}  // namespace

void batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                const Tensor& weight, const Tensor& bias, bool use_batch_stats,
                bool update_running, double momentum, double epsilon, int64_t channel_axis,
                const Tensor& out, const Tensor& saved_mean, const Tensor& saved_rstd) {
  int64_t outer, C, inner;
  dims3(x, channel_axis, outer, C, inner);
  const int64_t count = outer * inner;
  dispatch_f32_f64(x.dtype(), "batch_norm", [&](auto tag) {
    using T = decltype(tag);
    const Tensor xc = x.contiguous();
    Tensor wk, bk;
    const T* w = opt_data<T>(weight, wk);
    const T* b = opt_data<T>(bias, bk);
    const T* xp = xc.data<T>();
    T* sm = saved_mean.data<T>();
    T* sr = saved_rstd.data<T>();
    std::vector<double> mean(static_cast<size_t>(C)), var(static_cast<size_t>(C));
    if (use_batch_stats) {
      // One pass: sums of (x - shift) and its square, shifted by one value of the channel so
      // that a large mean does not cancel the variance.
      std::vector<T> shift(static_cast<size_t>(C));
      for (int64_t c = 0; c < C; ++c) shift[c] = count ? xp[c * (inner == 1 ? 1 : inner)] : T(0);
      const T* sh = shift.data();
      channel_sums<T>(
          xp, outer, C, inner, mean.data(), var.data(),
          [sh](T v, int64_t c, int64_t) { return static_cast<double>(v - sh[c]); },
          [sh](T v, int64_t c, int64_t) {
            const double d = static_cast<double>(v - sh[c]);
            return d * d;
          },
          [=](int64_t base, int64_t c, double& a, double& b) {
            row_shifted_sums(xp + base, inner, static_cast<double>(sh[c]), a, b);
          });
      for (int64_t c = 0; c < C; ++c) {
        const double m1 = mean[c] / static_cast<double>(count);
        var[c] = std::max(var[c] / static_cast<double>(count) - m1 * m1, 0.0);
        mean[c] = static_cast<double>(sh[c]) + m1;
      }
      if (update_running && running_mean.defined()) {
        // Running statistics are written in place (they are plain buffers, as in Paddle).
        Tensor rmc = running_mean.contiguous(), rvc = running_var.contiguous();
        T* rm = rmc.data<T>();
        T* rv = rvc.data<T>();
        for (int64_t c = 0; c < C; ++c) {
          rm[c] = static_cast<T>(momentum * static_cast<double>(rm[c]) + (1 - momentum) * mean[c]);
          rv[c] = static_cast<T>(momentum * static_cast<double>(rv[c]) + (1 - momentum) * var[c]);
        }
        if (!rmc.is_same(running_mean)) copy(rmc, running_mean);
        if (!rvc.is_same(running_var)) copy(rvc, running_var);
        running_mean.bump_version();
        running_var.bump_version();
      }
    } else {
      const Tensor rmc = running_mean.contiguous(), rvc = running_var.contiguous();
      for (int64_t c = 0; c < C; ++c) {
        mean[c] = static_cast<double>(rmc.data<T>()[c]);
        var[c] = static_cast<double>(rvc.data<T>()[c]);
      }
    }
    // y = (x - mean[c]) * a[c] + s[c] (subtracting first keeps a constant channel exactly b)
    std::vector<T> a(static_cast<size_t>(C)), s(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; ++c) {
      const double rs = 1.0 / std::sqrt(var[c] + epsilon);
      sm[c] = static_cast<T>(mean[c]);
      sr[c] = static_cast<T>(rs);
      a[c] = static_cast<T>(rs * (w ? static_cast<double>(w[c]) : 1.0));
      s[c] = b ? b[c] : T(0);
    }
    const T* ap = a.data();
    const T* sp = s.data();
    const T* mp = sm;
    channel_map<T>(outer, C, inner, out.data<T>(),
                   [=](int64_t c, int64_t i) { return (xp[i] - mp[c]) * ap[c] + sp[c]; });
  });
}

void batch_norm_grad(const Tensor& x, const Tensor& weight, const Tensor& saved_mean,
                     const Tensor& saved_rstd, const Tensor& grad, bool use_batch_stats,
                     int64_t channel_axis, const Tensor& dx, const Tensor& dweight,
                     const Tensor& dbias) {
  int64_t outer, C, inner;
  dims3(x, channel_axis, outer, C, inner);
  const int64_t count = outer * inner;
  dispatch_f32_f64(x.dtype(), "batch_norm_grad", [&](auto tag) {
    using T = decltype(tag);
    const Tensor xc = x.contiguous(), gc = grad.contiguous();
    Tensor wk;
    const T* w = opt_data<T>(weight, wk);
    const T* xp = xc.data<T>();
    const T* gp = gc.data<T>();
    const T* mp = saved_mean.data<T>();
    const T* rp = saved_rstd.data<T>();
    std::vector<double> sg(static_cast<size_t>(C)), sgh(static_cast<size_t>(C));
    channel_sums<T>(
        gp, outer, C, inner, sg.data(), sgh.data(),
        [](T g, int64_t, int64_t) { return static_cast<double>(g); },
        [=](T g, int64_t c, int64_t i) { return static_cast<double>(g * ((xp[i] - mp[c]) * rp[c])); },
        [=](int64_t base, int64_t c, double& a, double& b) {
          row_grad_sums(gp + base, xp + base, inner, static_cast<double>(mp[c]),
                        static_cast<double>(rp[c]), a, b);
        });
    if (dweight.defined()) {
      T* dw = dweight.data<T>();
      for (int64_t c = 0; c < C; ++c) dw[c] = static_cast<T>(sgh[c]);
    }
    if (dbias.defined()) {
      T* db = dbias.data<T>();
      for (int64_t c = 0; c < C; ++c) db[c] = static_cast<T>(sg[c]);
    }
    if (!dx.defined()) return;
    std::vector<T> k(static_cast<size_t>(C)), mg(static_cast<size_t>(C)), mgh(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; ++c) {
      k[c] = static_cast<T>(static_cast<double>(rp[c]) * (w ? static_cast<double>(w[c]) : 1.0));
      mg[c] = use_batch_stats ? static_cast<T>(sg[c] / static_cast<double>(count)) : T(0);
      mgh[c] = use_batch_stats ? static_cast<T>(sgh[c] / static_cast<double>(count)) : T(0);
    }
    const T* kp = k.data();
    const T* mgp = mg.data();
    const T* mghp = mgh.data();
    channel_map<T>(outer, C, inner, dx.data<T>(), [=](int64_t c, int64_t i) {
      const T h = (xp[i] - mp[c]) * rp[c];
      return kp[c] * (gp[i] - mgp[c] - h * mghp[c]);
    });
  });
}

}  // namespace oar::kernels
