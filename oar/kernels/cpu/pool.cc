#include "oar/kernels/cpu/pool.h"

#include <algorithm>
#include <cfloat>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/half_compute.h"

namespace oar::kernels {
namespace {

// The geometry, 3-D normalised (leading unit spatial dims) as for convolutions.
struct PoolShape {
  int64_t N = 0, C = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1}, stride[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  bool adaptive = false, channel_last = false;
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }

  // The window of output position o along dim d: [b, e) within the input.
  void window(int d, int64_t o, int64_t& b, int64_t& e) const {
    if (adaptive) {
      b = o * in[d] / out[d];
      e = ((o + 1) * in[d] + out[d] - 1) / out[d];
      return;
    }
    b = o * stride[d] - pad[d];
    e = std::min(b + k[d], in[d]);
    b = std::max<int64_t>(b, 0);
    e = std::max(e, b);  // a window past the input (ceil_mode) is empty
  }
};

PoolShape pool_shape(const Shape& x, const Shape& y, const IntArray& kernel_size,
                     const IntArray& stride, const IntArray& padding, bool adaptive,
                     bool channel_last) {
  PoolShape s;
  const int nd = static_cast<int>(x.size()) - 2, first = 3 - nd, sp0 = channel_last ? 1 : 2;
  s.N = x[0];
  s.C = channel_last ? x.back() : x[1];
  s.adaptive = adaptive;
  s.channel_last = channel_last;
  for (int d = 0; d < nd; ++d) {
    s.in[first + d] = x[sp0 + d];
    s.out[first + d] = y[sp0 + d];
    s.k[first + d] = kernel_size[d];
    if (!adaptive) {
      s.stride[first + d] = stride[d];
      s.pad[first + d] = padding[2 * d];
    }
  }
  return s;
}

// Calls f(o, b[3], e[3]) for every output position o (flat) of one plane.
template <typename F>
inline void for_each_window(const PoolShape& s, int64_t o, const F& f) {
  const int64_t od = o / (s.out[1] * s.out[2]), oh = o / s.out[2] % s.out[1], ow = o % s.out[2];
  int64_t b[3], e[3];
  s.window(0, od, b[0], e[0]);
  s.window(1, oh, b[1], e[1]);
  s.window(2, ow, b[2], e[2]);
  f(b, e);
}

// Planes (image, channel) per thread chunk: at least this many elements of work.
constexpr int64_t kGrain = 1 << 14;

// The windows of every output position along each dim, computed once per call.
struct Windows {
  std::vector<int64_t> b[3], e[3];
  explicit Windows(const PoolShape& s) {
    for (int d = 0; d < 3; ++d) {
      b[d].resize(static_cast<size_t>(s.out[d]));
      e[d].resize(static_cast<size_t>(s.out[d]));
      for (int64_t o = 0; o < s.out[d]; ++o) s.window(d, o, b[d][o], e[d][o]);
    }
  }
};

// One plane of a 2-D max pool (channel-first, fixed windows): the columns whose window lies
// inside the row run as loops over the output columns (strided loads the compiler vectorises),
// the few clipped border columns as single windows. Visits each window in row-major order, so
// ties and NaNs resolve as in the general path.
template <typename T>
void max_plane_2d(const PoolShape& s, const Windows& win, int64_t lo, int64_t hi, const T* xp, T* yp,
                  int32_t* mp) {
  const int64_t H = s.in[1], W = s.in[2], OW = s.out[2], S = s.stride[2], K = s.k[2], pad = s.pad[2];
  for (int64_t oh = 0; oh < s.out[1]; ++oh, yp += OW, mp += OW) {
    const int64_t h0 = win.b[1][oh], h1 = win.e[1][oh];
    auto single = [&](int64_t ow) {
      const int64_t w0 = win.b[2][ow], w1 = win.e[2][ow];
      if (h0 >= h1 || w0 >= w1) {
        yp[ow] = static_cast<T>(-FLT_MAX);
        mp[ow] = -1;
        return;
      }
      int64_t idx = h0 * W + w0;
      T best = xp[idx];
      for (int64_t h = h0; h < h1; ++h)
        for (int64_t w = w0; w < w1; ++w) {
          const T v = xp[h * W + w];
          const bool take = pool_better(v, best);
          best = take ? v : best;
          idx = take ? h * W + w : idx;
        }
      yp[ow] = best;
      mp[ow] = static_cast<int32_t>(idx);
    };
    for (int64_t ow = 0; ow < std::min(lo, OW); ++ow) single(ow);
    for (int64_t ow = std::max(hi, lo); ow < OW; ++ow) single(ow);
    if (lo >= hi) continue;
    if (h0 >= h1) {
      for (int64_t ow = lo; ow < hi; ++ow) yp[ow] = static_cast<T>(-FLT_MAX), mp[ow] = -1;
      continue;
    }
    const T* first = xp + h0 * W - pad;
    for (int64_t ow = lo; ow < hi; ++ow) {
      yp[ow] = first[ow * S];
      mp[ow] = static_cast<int32_t>(h0 * W - pad + ow * S);
    }
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t j = (h == h0 ? 1 : 0); j < K; ++j) {
        const int64_t base = h * W - pad + j;
        const T* row = xp + base;
        for (int64_t ow = lo; ow < hi; ++ow) {
          const T v = row[ow * S];
          const bool take = pool_better(v, yp[ow]);
          yp[ow] = take ? v : yp[ow];
          mp[ow] = take ? static_cast<int32_t>(base + ow * S) : mp[ow];
        }
      }
  }
  (void)H;
}

template <typename T>
void max_cf(const PoolShape& s, const T* x, T* y, int32_t* mask) {
  const int64_t X = s.in_size(), P = s.out_size(), H = s.in[1], W = s.in[2];
  const Windows win(s);
  if (!s.adaptive && s.in[0] == 1 && s.out[0] == 1 && s.k[0] == 1) {
    // Output columns whose whole window is inside the row: ow * S - pad >= 0 and
    // ow * S - pad + K <= W.
    const int64_t S = s.stride[2], K = s.k[2], pad = s.pad[2];
    const int64_t lo = (pad + S - 1) / S, hi = std::min<int64_t>(s.out[2], W + pad - K >= 0 ? (W + pad - K) / S + 1 : 0);
    parallel_for(0, s.N * s.C, std::max<int64_t>(1, kGrain / std::max<int64_t>(X, 1)), [&](int64_t p0, int64_t p1) {
      for (int64_t pl = p0; pl < p1; ++pl) max_plane_2d<T>(s, win, lo, hi, x + pl * X, y + pl * P, mask + pl * P);
    });
    return;
  }
  parallel_for(0, s.N * s.C, std::max<int64_t>(1, kGrain / std::max<int64_t>(X, 1)),
               [&](int64_t p0, int64_t p1) {
    for (int64_t pl = p0; pl < p1; ++pl) {
      const T* xp = x + pl * X;
      T* yp = y + pl * P;
      int32_t* mp = mask + pl * P;
      for (int64_t od = 0; od < s.out[0]; ++od) {
        const int64_t d0 = win.b[0][od], d1 = win.e[0][od];
        for (int64_t oh = 0; oh < s.out[1]; ++oh) {
          const int64_t h0 = win.b[1][oh], h1 = win.e[1][oh];
          for (int64_t ow = 0; ow < s.out[2]; ++ow, ++yp, ++mp) {
            const int64_t w0 = win.b[2][ow], w1 = win.e[2][ow];
            if (d0 >= d1 || h0 >= h1 || w0 >= w1) {
              *yp = static_cast<T>(-FLT_MAX);
              *mp = -1;
              continue;
            }
            int64_t idx = (d0 * H + h0) * W + w0;
            T best = xp[idx];
            for (int64_t d = d0; d < d1; ++d)
              for (int64_t h = h0; h < h1; ++h) {
                const int64_t row = (d * H + h) * W;
                for (int64_t w = w0; w < w1; ++w) {
                  const T v = xp[row + w];
                  const bool take = pool_better(v, best);
                  best = take ? v : best;
                  idx = take ? row + w : idx;
                }
              }
            *yp = best;
            *mp = static_cast<int32_t>(idx);
          }
        }
      }
    }
  });
}

template <typename T>
void max_cl(const PoolShape& s, const T* x, T* y, int32_t* mask) {
  const int64_t P = s.out_size(), H = s.in[1], W = s.in[2], C = s.C, X = s.in_size();
  parallel_for(0, s.N * P, std::max<int64_t>(1, kGrain / std::max<int64_t>(C * 4, 1)),
               [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t n = q / P, o = q % P;
      const T* xn = x + n * X * C;
      T* yo = y + q * C;
      int32_t* mo = mask + q * C;
      std::fill(yo, yo + C, static_cast<T>(-FLT_MAX));
      std::fill(mo, mo + C, -1);
      for_each_window(s, o, [&](const int64_t* b, const int64_t* e) {
        for (int64_t d = b[0]; d < e[0]; ++d)
          for (int64_t h = b[1]; h < e[1]; ++h)
            for (int64_t w = b[2]; w < e[2]; ++w) {
              const int64_t pos = (d * H + h) * W + w;
              const T* xr = xn + pos * C;
              for (int64_t c = 0; c < C; ++c)
                if (mo[c] < 0 || pool_better(xr[c], yo[c])) {
                  yo[c] = xr[c];
                  mo[c] = static_cast<int32_t>(pos);
                }
            }
      });
    }
  });
}

template <typename T>
inline T divisor(const PoolShape& s, const int64_t* b, const int64_t* e, bool exclusive) {
  if (exclusive || s.adaptive)
    return static_cast<T>((e[0] - b[0]) * (e[1] - b[1]) * (e[2] - b[2]));
  return static_cast<T>(s.k[0] * s.k[1] * s.k[2]);
}

template <typename T>
void avg_cf(const PoolShape& s, const T* x, T* y, bool exclusive) {
  const int64_t X = s.in_size(), P = s.out_size(), H = s.in[1], W = s.in[2];
  const Windows win(s);
  const T kvol = static_cast<T>(s.k[0] * s.k[1] * s.k[2]);
  parallel_for(0, s.N * s.C, std::max<int64_t>(1, kGrain / std::max<int64_t>(X, 1)),
               [&](int64_t p0, int64_t p1) {
    for (int64_t pl = p0; pl < p1; ++pl) {
      const T* xp = x + pl * X;
      T* yp = y + pl * P;
      for (int64_t od = 0; od < s.out[0]; ++od) {
        const int64_t d0 = win.b[0][od], d1 = win.e[0][od];
        for (int64_t oh = 0; oh < s.out[1]; ++oh) {
          const int64_t h0 = win.b[1][oh], h1 = win.e[1][oh];
          for (int64_t ow = 0; ow < s.out[2]; ++ow, ++yp) {
            const int64_t w0 = win.b[2][ow], w1 = win.e[2][ow];
            T sum = 0;
            for (int64_t d = d0; d < d1; ++d)
              for (int64_t h = h0; h < h1; ++h) {
                const T* xr = xp + (d * H + h) * W;
                for (int64_t w = w0; w < w1; ++w) sum += xr[w];
              }
            const T div = (exclusive || s.adaptive)
                              ? static_cast<T>((d1 - d0) * (h1 - h0) * (w1 - w0))
                              : kvol;
            *yp = sum / div;
          }
        }
      }
    }
  });
}

template <typename T>
void avg_cl(const PoolShape& s, const T* x, T* y, bool exclusive) {
  const int64_t P = s.out_size(), H = s.in[1], W = s.in[2], C = s.C, X = s.in_size();
  parallel_for(0, s.N * P, std::max<int64_t>(1, kGrain / std::max<int64_t>(C * 4, 1)),
               [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t n = q / P, o = q % P;
      const T* xn = x + n * X * C;
      T* yo = y + q * C;
      std::fill(yo, yo + C, T(0));
      for_each_window(s, o, [&](const int64_t* b, const int64_t* e) {
        for (int64_t d = b[0]; d < e[0]; ++d)
          for (int64_t h = b[1]; h < e[1]; ++h)
            for (int64_t w = b[2]; w < e[2]; ++w) {
              const T* xr = xn + ((d * H + h) * W + w) * C;
              for (int64_t c = 0; c < C; ++c) yo[c] += xr[c];
            }
        const T div = divisor<T>(s, b, e, exclusive);
        for (int64_t c = 0; c < C; ++c) yo[c] /= div;
      });
    }
  });
}

template <typename T>
void avg_grad(const PoolShape& s, const T* dy, T* dx, bool exclusive) {
  const int64_t X = s.in_size(), P = s.out_size(), H = s.in[1], W = s.in[2], C = s.C;
  if (!s.channel_last) {
    parallel_for(0, s.N * s.C, std::max<int64_t>(1, kGrain / std::max<int64_t>(X, 1)),
                 [&](int64_t p0, int64_t p1) {
      for (int64_t pl = p0; pl < p1; ++pl) {
        T* xp = dx + pl * X;
        std::fill(xp, xp + X, T(0));
        for (int64_t o = 0; o < P; ++o) {
          for_each_window(s, o, [&](const int64_t* b, const int64_t* e) {
            const T g = dy[pl * P + o] / divisor<T>(s, b, e, exclusive);
            for (int64_t d = b[0]; d < e[0]; ++d)
              for (int64_t h = b[1]; h < e[1]; ++h) {
                T* xr = xp + (d * H + h) * W;
                for (int64_t w = b[2]; w < e[2]; ++w) xr[w] += g;
              }
          });
        }
      }
    });
    return;
  }
  // Channel-last: windows overlap across positions, so threads split images.
  parallel_for(0, s.N, 1, [&](int64_t n0, int64_t n1) {
    std::vector<T> g(static_cast<size_t>(C));
    for (int64_t n = n0; n < n1; ++n) {
      T* xn = dx + n * X * C;
      std::fill(xn, xn + X * C, T(0));
      for (int64_t o = 0; o < P; ++o) {
        const T* dyo = dy + (n * P + o) * C;
        for_each_window(s, o, [&](const int64_t* b, const int64_t* e) {
          const T div = divisor<T>(s, b, e, exclusive);
          for (int64_t c = 0; c < C; ++c) g[c] = dyo[c] / div;
          for (int64_t d = b[0]; d < e[0]; ++d)
            for (int64_t h = b[1]; h < e[1]; ++h)
              for (int64_t w = b[2]; w < e[2]; ++w) {
                T* xr = xn + ((d * H + h) * W + w) * C;
                for (int64_t c = 0; c < C; ++c) xr[c] += g[c];
              }
        });
      }
    }
  });
}

Tensor dense(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor c = Tensor::make(t.shape(), t.dtype());
  copy(t, c);
  return c;
}

// Image-plane geometry of a mask-indexed pair (input shape `in`, output shape `out`):
// number of planes-or-images, input and output elements per plane, channel stride.
struct MaskGeo {
  int64_t N, C, X, P;
};
MaskGeo mask_geo(const Shape& in, const Shape& out, bool channel_last) {
  MaskGeo g{in[0], channel_last ? in.back() : in[1], 1, 1};
  const size_t sp0 = channel_last ? 1 : 2, sp1 = channel_last ? in.size() - 1 : in.size();
  for (size_t d = sp0; d < sp1; ++d) {
    g.X *= in[d];
    g.P *= out[d];
  }
  return g;
}

}  // namespace

void pool_max(const Tensor& x0, const IntArray& kernel_size, const IntArray& stride,
              const IntArray& padding, bool adaptive, bool channel_last, const Tensor& out,
              const Tensor& mask) {
  if (out.numel() == 0) return;
  const PoolShape s =
      pool_shape(x0.shape(), out.shape(), kernel_size, stride, padding, adaptive, channel_last);
  if (is_half_dtype(x0.dtype())) {
    Tensor o32 = float32_like(out);
    pool_max(to_float32(x0), kernel_size, stride, padding, adaptive, channel_last, o32, mask);
    return copy(o32, out);
  }
  const Tensor x = dense(x0);
  int32_t* m = static_cast<int32_t*>(mask.raw_data());
  dispatch_floating(x.dtype(), "max_pool", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* xp = static_cast<const T*>(x.raw_data());
      T* yp = static_cast<T*>(out.raw_data());
      if (channel_last) max_cl<T>(s, xp, yp, m);
      else max_cf<T>(s, xp, yp, m);
    } else {
      unsupported_dtype("max_pool", x.dtype(), "float32, float64");
    }
  });
}

void pool_avg(const Tensor& x0, const IntArray& kernel_size, const IntArray& stride,
              const IntArray& padding, bool exclusive, bool adaptive, bool channel_last,
              const Tensor& out) {
  if (out.numel() == 0) return;
  const PoolShape s =
      pool_shape(x0.shape(), out.shape(), kernel_size, stride, padding, adaptive, channel_last);
  if (is_half_dtype(x0.dtype())) {
    Tensor o32 = float32_like(out);
    pool_avg(to_float32(x0), kernel_size, stride, padding, exclusive, adaptive, channel_last, o32);
    return copy(o32, out);
  }
  const Tensor x = dense(x0);
  dispatch_floating(x.dtype(), "avg_pool", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* xp = static_cast<const T*>(x.raw_data());
      T* yp = static_cast<T*>(out.raw_data());
      if (channel_last) avg_cl<T>(s, xp, yp, exclusive);
      else avg_cf<T>(s, xp, yp, exclusive);
    } else {
      unsupported_dtype("avg_pool", x.dtype(), "float32, float64");
    }
  });
}

void pool_avg_grad(const Tensor& dy0, const IntArray& kernel_size, const IntArray& stride,
                   const IntArray& padding, bool exclusive, bool adaptive, bool channel_last,
                   const Tensor& dx) {
  if (dx.numel() == 0) return;
  const PoolShape s =
      pool_shape(dx.shape(), dy0.shape(), kernel_size, stride, padding, adaptive, channel_last);
  if (is_half_dtype(dy0.dtype())) {
    Tensor d32 = float32_like(dx);
    pool_avg_grad(to_float32(dy0), kernel_size, stride, padding, exclusive, adaptive,
                  channel_last, d32);
    return copy(d32, dx);
  }
  const Tensor dy = dense(dy0);
  dispatch_floating(dy.dtype(), "avg_pool_grad", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      avg_grad<T>(s, static_cast<const T*>(dy.raw_data()), static_cast<T*>(dx.raw_data()),
                  exclusive);
    } else {
      unsupported_dtype("avg_pool_grad", dy.dtype(), "float32, float64");
    }
  });
}

void pool_max_grad(const Tensor& dy0, const Tensor& mask0, bool channel_last, const Tensor& dx) {
  if (dx.numel() == 0) return;
  if (is_half_dtype(dy0.dtype())) {  // overlapping windows add up: sum in float32
    Tensor d32 = float32_like(dx);
    pool_max_grad(to_float32(dy0), mask0, channel_last, d32);
    return copy(d32, dx);
  }
  fill(dx, Scalar(0));
  const Tensor dy = dense(dy0), mask = dense(mask0);
  const MaskGeo g = mask_geo(dx.shape(), dy.shape(), channel_last);
  const int32_t* m = static_cast<const int32_t*>(mask.raw_data());
  dispatch_floating(dy.dtype(), "max_pool_grad", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* dyp = static_cast<const T*>(dy.raw_data());
      T* dxp = static_cast<T*>(dx.raw_data());
      if (!channel_last) {
        parallel_for(0, g.N * g.C, std::max<int64_t>(1, kGrain / std::max<int64_t>(g.P, 1)),
                     [&](int64_t p0, int64_t p1) {
          for (int64_t pl = p0; pl < p1; ++pl)
            for (int64_t o = 0; o < g.P; ++o) {
              const int32_t i = m[pl * g.P + o];
              if (i >= 0) dxp[pl * g.X + i] += dyp[pl * g.P + o];
            }
        });
        return;
      }
      parallel_for(0, g.N, 1, [&](int64_t n0, int64_t n1) {
        for (int64_t n = n0; n < n1; ++n)
          for (int64_t o = 0; o < g.P; ++o)
            for (int64_t c = 0; c < g.C; ++c) {
              const int64_t q = (n * g.P + o) * g.C + c;
              if (m[q] >= 0) dxp[(n * g.X + m[q]) * g.C + c] += dyp[q];
            }
      });
    } else {
      unsupported_dtype("max_pool_grad", dy.dtype(), "float32, float64");
    }
  });
}

void pool_max_gather(const Tensor& x0, const Tensor& mask0, bool channel_last,
                     const Tensor& out) {
  if (out.numel() == 0) return;
  const Tensor x = dense(x0), mask = dense(mask0);
  const MaskGeo g = mask_geo(x.shape(), out.shape(), channel_last);
  const int32_t* m = static_cast<const int32_t*>(mask.raw_data());
  dispatch_floating(x.dtype(), "max_pool_gather", [&](auto tag) {
    using T = decltype(tag);
    {  // a pure gather: every floating type as it is
      const T* xp = static_cast<const T*>(x.raw_data());
      T* op = static_cast<T*>(out.raw_data());
      parallel_for(0, g.N, 1, [&](int64_t n0, int64_t n1) {
        for (int64_t n = n0; n < n1; ++n)
          for (int64_t c = 0; c < g.C; ++c)
            for (int64_t o = 0; o < g.P; ++o) {
              const int64_t q = channel_last ? (n * g.P + o) * g.C + c : (n * g.C + c) * g.P + o;
              const int32_t i = m[q];
              // The mask comes from pool_max; one read from a program file may point anywhere
              // (parallel_for hands the error to the caller).
              OAR_ENFORCE(i < g.X, OutOfRange, "max_pool: mask index ", i, " is out of range for ",
                          g.X, " input positions");
              const int64_t src =
                  channel_last ? (n * g.X + i) * g.C + c : (n * g.C + c) * g.X + i;
              op[q] = i >= 0 ? xp[src] : T(0);
            }
      });
    }
  });
}

}  // namespace oar::kernels
