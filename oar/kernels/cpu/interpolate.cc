#include "oar/kernels/cpu/interpolate.h"

#include <algorithm>
#include <cmath>

#include "oar/core/error.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/half_compute.h"

namespace oar::kernels {
namespace {

// The taps of one dim: for output position o, `k` input indices and weights at [o * k, o * k + k).
template <typename T>
struct Taps {
  int64_t k = 1;
  std::vector<int64_t> idx;
  std::vector<T> w;
};

double cubic_near(double t, double a) { return ((a + 2) * t - (a + 3)) * t * t + 1; }  // |t| <= 1
double cubic_far(double t, double a) { return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a; }  // 1 < |t| < 2

template <typename T>
Taps<T> make_taps(int64_t in, int64_t out, double scale, InterpMode mode, bool align_corners,
                  int64_t align_mode) {
  Taps<T> tp;
  tp.k = mode == InterpMode::Nearest ? 1 : mode == InterpMode::Linear ? 2 : 4;
  tp.idx.resize(out * tp.k);
  tp.w.resize(out * tp.k);
  // As Paddle, the ratio and the linear/nearest source coordinates are float32 (so float64
  // results agree with Paddle's to rounding, and nearest picks the same pixels).
  float ratio;
  if (align_corners) ratio = out > 1 ? float(in - 1) / float(out - 1) : 0.0f;
  else ratio = scale > 0 ? float(1.0 / float(scale)) : float(in) / float(out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t* ix = tp.idx.data() + o * tp.k;
    T* w = tp.w.data() + o * tp.k;
    if (mode == InterpMode::Nearest) {
      ix[0] = std::min<int64_t>(static_cast<int64_t>(ratio * float(o)), in - 1);
      w[0] = T(1);
    } else if (mode == InterpMode::Linear) {
      float src = (align_corners || align_mode == 1) ? ratio * float(o)
                                                      : ratio * (float(o) + 0.5f) - 0.5f;
      src = std::max(src, 0.0f);
      const int64_t i0 = std::min<int64_t>(static_cast<int64_t>(src), in - 1);
      const float t = std::min(src - float(i0), 1.0f);
      ix[0] = i0;
      ix[1] = std::min<int64_t>(i0 + 1, in - 1);
      w[0] = T(1.0f - t);
      w[1] = T(t);
    } else {
      const double src = align_corners ? double(ratio) * o : double(ratio) * (o + 0.5) - 0.5;
      const double f = std::floor(src), t = src - f;
      const double a = -0.75;
      const double ws[4] = {cubic_far(t + 1, a), cubic_near(t, a), cubic_near(1 - t, a),
                            cubic_far(2 - t, a)};
      for (int j = 0; j < 4; ++j) {
        ix[j] = std::clamp<int64_t>(static_cast<int64_t>(f) - 1 + j, 0, in - 1);
        w[j] = T(ws[j]);
      }
    }
  }
  return tp;
}

struct Geo {
  int64_t planes = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
};

Geo geometry(const Shape& x, const Shape& y) {
  Geo g;
  const int nd = static_cast<int>(x.size()) - 2;
  g.planes = x[0] * x[1];
  for (int d = 0; d < nd; ++d) {
    g.in[3 - nd + d] = x[2 + d];
    g.out[3 - nd + d] = y[2 + d];
  }
  return g;
}

template <typename T>
std::vector<Taps<T>> all_taps(const Geo& g, int nd, const std::vector<double>& scales,
                              InterpMode mode, bool align_corners, int64_t align_mode) {
  std::vector<Taps<T>> taps(3);
  for (int d = 0; d < 3; ++d) {
    const int sd = d - (3 - nd);
    if (sd < 0) {
      taps[d] = make_taps<T>(1, 1, 0.0, InterpMode::Nearest, false, 0);
    } else {
      taps[d] = make_taps<T>(g.in[d], g.out[d], scales.empty() ? 0.0 : scales[sd], mode,
                             align_corners, align_mode);
    }
  }
  return taps;
}

// Separable by rows: for each output row (od, oh), the input rows it reads are blended into one
// row of the input's width (contiguous, vectorised), then the width taps read that row.
template <typename T>
void forward(const Geo& g, const std::vector<Taps<T>>& tp, const T* x, T* y) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  const int64_t kd = tp[0].k, kh = tp[1].k, kw = tp[2].k, W = g.in[2];
  parallel_for(0, g.planes * g.out[0] * g.out[1], std::max<int64_t>(1, 4096 / std::max<int64_t>(g.out[2], 1)),
               [&](int64_t b, int64_t e) {
    std::vector<T> blend(W);
    T* bl = blend.data();
    for (int64_t r = b; r < e; ++r) {
      const int64_t oh = r % g.out[1], od = (r / g.out[1]) % g.out[0], p = r / (g.out[0] * g.out[1]);
      const T* xp = x + p * in_plane;
      T* yp = y + p * out_plane + (od * g.out[1] + oh) * g.out[2];
      bool first = true;
      for (int64_t a = 0; a < kd; ++a)
        for (int64_t c = 0; c < kh; ++c) {
          const T wgt = tp[0].w[od * kd + a] * tp[1].w[oh * kh + c];
          const T* row = xp + (tp[0].idx[od * kd + a] * g.in[1] + tp[1].idx[oh * kh + c]) * W;
          if (first) {
            for (int64_t i = 0; i < W; ++i) bl[i] = wgt * row[i];
            first = false;
          } else {
            for (int64_t i = 0; i < W; ++i) bl[i] += wgt * row[i];
          }
        }
      const int64_t* idw = tp[2].idx.data();
      const T* ww = tp[2].w.data();
      if (kw == 1) {
        for (int64_t ow = 0; ow < g.out[2]; ++ow) yp[ow] = bl[idw[ow]];
      } else if (kw == 2) {
        for (int64_t ow = 0; ow < g.out[2]; ++ow)
          yp[ow] = ww[2 * ow] * bl[idw[2 * ow]] + ww[2 * ow + 1] * bl[idw[2 * ow + 1]];
      } else {
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          T acc = T(0);
          for (int64_t l = 0; l < kw; ++l) acc += ww[ow * kw + l] * bl[idw[ow * kw + l]];
          yp[ow] = acc;
        }
      }
    }
  });
}

// The adjoint, by rows: an output row's gradient is scattered along the width into one row of
// the input's width, which is then added (weighted) to the input rows it came from.
template <typename T>
void backward(const Geo& g, const std::vector<Taps<T>>& tp, const T* dy, T* dx) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  const int64_t kd = tp[0].k, kh = tp[1].k, kw = tp[2].k, W = g.in[2];
  parallel_for(0, g.planes, 1, [&](int64_t b, int64_t e) {
    std::vector<T> blend(W);
    T* bl = blend.data();
    for (int64_t p = b; p < e; ++p) {
      T* xp = dx + p * in_plane;
      std::fill(xp, xp + in_plane, T(0));
      const T* yp = dy + p * out_plane;
      for (int64_t od = 0; od < g.out[0]; ++od)
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          const T* gr = yp + (od * g.out[1] + oh) * g.out[2];
          std::fill(bl, bl + W, T(0));
          for (int64_t ow = 0; ow < g.out[2]; ++ow)
            for (int64_t l = 0; l < kw; ++l) bl[tp[2].idx[ow * kw + l]] += tp[2].w[ow * kw + l] * gr[ow];
          for (int64_t a = 0; a < kd; ++a)
            for (int64_t c = 0; c < kh; ++c) {
              const T wgt = tp[0].w[od * kd + a] * tp[1].w[oh * kh + c];
              T* row = xp + (tp[0].idx[od * kd + a] * g.in[1] + tp[1].idx[oh * kh + c]) * W;
              for (int64_t i = 0; i < W; ++i) row[i] += wgt * bl[i];
            }
        }
    }
  });
}

}  // namespace

InterpMode interp_mode(const std::string& mode, const char* op) {
  if (mode == "nearest") return InterpMode::Nearest;
  if (mode == "linear" || mode == "bilinear" || mode == "trilinear") return InterpMode::Linear;
  if (mode == "bicubic") return InterpMode::Cubic;
  OAR_ENFORCE_ARG(false, op, ": the mode should be 'nearest', 'linear', 'bilinear', 'trilinear' "
                  "or 'bicubic', but received '", mode, "'");
  return InterpMode::Nearest;
}

void interp(const Tensor& x0, const std::vector<double>& scales, InterpMode mode,
            bool align_corners, int64_t align_mode, const Tensor& out) {
  if (out.numel() == 0) return;
  if (is_half_dtype(x0.dtype())) {
    Tensor o32 = float32_like(out);
    interp(to_float32(x0), scales, mode, align_corners, align_mode, o32);
    return copy(o32, out);
  }
  const Tensor x = x0.contiguous();
  const Geo g = geometry(x.shape(), out.shape());
  const int nd = static_cast<int>(x.ndim()) - 2;
  dispatch_floating(x.dtype(), "interpolate", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const auto tp = all_taps<T>(g, nd, scales, mode, align_corners, align_mode);
      forward<T>(g, tp, static_cast<const T*>(x.raw_data()), static_cast<T*>(out.raw_data()));
    } else {
      unsupported_dtype("interpolate", x.dtype(), "float32, float64");
    }
  });
}

void interp_grad(const Tensor& dy0, const std::vector<double>& scales, InterpMode mode,
                 bool align_corners, int64_t align_mode, const Tensor& dx) {
  if (dx.numel() == 0) return;
  if (is_half_dtype(dy0.dtype())) {
    Tensor d32 = float32_like(dx);
    interp_grad(to_float32(dy0), scales, mode, align_corners, align_mode, d32);
    return copy(d32, dx);
  }
  const Tensor dy = dy0.contiguous();
  const Geo g = geometry(dx.shape(), dy.shape());
  const int nd = static_cast<int>(dx.ndim()) - 2;
  dispatch_floating(dy.dtype(), "interpolate_grad", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const auto tp = all_taps<T>(g, nd, scales, mode, align_corners, align_mode);
      backward<T>(g, tp, static_cast<const T*>(dy.raw_data()), static_cast<T*>(dx.raw_data()));
    } else {
      unsupported_dtype("interpolate_grad", dy.dtype(), "float32, float64");
    }
  });
}

}  // namespace oar::kernels
