// Interpolation: interp (nearest, linear/bilinear/trilinear, bicubic over 1 to 3 channel-first
// spatial dimensions) and interp_grad (its adjoint).
// Contract: see kernels.h. A port of oar/kernels/cpu/interpolate.cc: the taps (indices and
// weights per output position and dimension) are computed the same way, with the ratio and the
// nearest/linear source coordinates in float32 as Paddle does, and the sums run in the same
// order (blend the input rows an output row reads, then the width taps) in the compute type
// (float for float32 and the half types, double for float64). x may be any strided view; the
// output is contiguous. attrs: out_size (interp's out shape says it), mode, align_corners,
// align_mode, scale_0..scale_2 (0: none given).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/spatial.h"

namespace oar_custom_cpu {
namespace {

enum class Mode { Nearest, Linear, Cubic };

Mode parse_mode(const OarKernelContext* ctx) {
  const OarAttr* a = find_attr(ctx, "mode");
  const std::string m = a != nullptr && a->kind == OAR_ATTR_STRING && a->s != nullptr ? a->s : "nearest";
  if (m == "nearest") return Mode::Nearest;
  if (m == "linear" || m == "bilinear" || m == "trilinear") return Mode::Linear;
  if (m == "bicubic") return Mode::Cubic;
  fail("mode must be 'nearest', 'linear', 'bilinear', 'trilinear' or 'bicubic', got '%s'", m.c_str());
}

// The taps of one dimension: for output position o, k input indices and weights at [o k, o k + k).
template <typename C>
struct Taps {
  int64_t k = 1;
  std::vector<int64_t> idx;
  std::vector<C> w;
};

double cubic_near(double t, double a) { return ((a + 2) * t - (a + 3)) * t * t + 1; }         // |t| <= 1
double cubic_far(double t, double a) { return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a; }  // 1 < |t| < 2

template <typename C>
Taps<C> make_taps(int64_t in, int64_t out, double scale, Mode mode, bool align_corners, int64_t align_mode) {
  Taps<C> tp;
  tp.k = mode == Mode::Nearest ? 1 : mode == Mode::Linear ? 2 : 4;
  tp.idx.resize(static_cast<size_t>(out * tp.k));
  tp.w.resize(static_cast<size_t>(out * tp.k));
  float ratio;
  if (align_corners) ratio = out > 1 ? float(in - 1) / float(out - 1) : 0.0f;
  else ratio = scale > 0 ? float(1.0 / float(scale)) : float(in) / float(out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t* ix = tp.idx.data() + o * tp.k;
    C* w = tp.w.data() + o * tp.k;
    if (mode == Mode::Nearest) {
      ix[0] = std::min<int64_t>(static_cast<int64_t>(ratio * float(o)), in - 1);
      w[0] = C(1);
    } else if (mode == Mode::Linear) {
      float src = (align_corners || align_mode == 1) ? ratio * float(o) : ratio * (float(o) + 0.5f) - 0.5f;
      src = std::max(src, 0.0f);
      const int64_t i0 = std::min<int64_t>(static_cast<int64_t>(src), in - 1);
      const float t = std::min(src - float(i0), 1.0f);
      ix[0] = i0;
      ix[1] = std::min<int64_t>(i0 + 1, in - 1);
      w[0] = C(1.0f - t);
      w[1] = C(t);
    } else {
      const double src = align_corners ? double(ratio) * o : double(ratio) * (o + 0.5) - 0.5;
      const double f = std::floor(src), t = src - f;
      const double a = -0.75;
      const double ws[4] = {cubic_far(t + 1, a), cubic_near(t, a), cubic_near(1 - t, a), cubic_far(2 - t, a)};
      for (int j = 0; j < 4; ++j) {
        ix[j] = std::clamp<int64_t>(static_cast<int64_t>(f) - 1 + j, 0, in - 1);
        w[j] = C(ws[j]);
      }
    }
  }
  return tp;
}

// The geometry, 3-d normalised (leading unit spatial dimensions) as on the host.
template <typename C>
struct InterpGeom {
  ImageView in, out;        // in: x (or dx), out: y (or dy)
  int64_t I[3] = {1, 1, 1}, O[3] = {1, 1, 1};
  Taps<C> taps[3];
};

template <typename C>
std::shared_ptr<const InterpGeom<C>> interp_geom(const OarKernelContext* ctx, ImageView in, ImageView out) {
  const int nd = static_cast<int>(in.spatial.size());
  if (nd < 1 || nd > 3 || out.spatial.size() != in.spatial.size() || in.N != out.N || in.C != out.C)
    fail("x and out must be [N, C, 1 to 3 spatial dims] with the same N and C");
  const Mode mode = parse_mode(ctx);
  const bool align_corners = bool_attr(ctx, "align_corners", false);
  const int64_t align_mode = int_attr(ctx, "align_mode", 0);
  const double scales[3] = {float_attr(ctx, "scale_0", 0.0), float_attr(ctx, "scale_1", 0.0),
                            float_attr(ctx, "scale_2", 0.0)};
  auto g = std::make_shared<InterpGeom<C>>();
  for (int d = 0; d < 3; ++d) {
    const int sd = d - (3 - nd);
    if (sd < 0) {
      g->taps[d] = make_taps<C>(1, 1, 0.0, Mode::Nearest, false, 0);
      continue;
    }
    g->I[d] = in.spatial[sd];
    g->O[d] = out.spatial[sd];
    if (g->I[d] < 1) fail("cannot interpolate an empty spatial dimension");
    g->taps[d] = make_taps<C>(g->I[d], g->O[d], scales[sd], mode, align_corners, align_mode);
  }
  g->in = std::move(in);
  g->out = std::move(out);
  return g;
}

}  // namespace

// interp: x; out_size, mode, align_corners, align_mode, scale_0..2.
OarStatus interp_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    expect_dtype(out, x.dtype, "out");
    expect_contiguous(out, "out");
    visit_float_dtype(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      using C = compute_t<T>;
      const auto g = interp_geom<C>(ctx, image_view(x, false, "x"), image_view(out, false, "out"));
      const T* xp = x.as<const T>();
      T* yp = out.as<T>();
      launch(ctx, [g, xp, yp] {
        const Taps<C>* tp = g->taps;
        const int64_t kd = tp[0].k, kh = tp[1].k, kw = tp[2].k, W = g->I[2];
        std::vector<C> bl(static_cast<size_t>(W));
        for (int64_t n = 0; n < g->in.N; ++n)
          for (int64_t c = 0; c < g->in.C; ++c)
            for (int64_t od = 0; od < g->O[0]; ++od)
              for (int64_t oh = 0; oh < g->O[1]; ++oh) {
                bool first = true;
                for (int64_t a = 0; a < kd; ++a)
                  for (int64_t b = 0; b < kh; ++b) {
                    const C wgt = tp[0].w[od * kd + a] * tp[1].w[oh * kh + b];
                    const int64_t row = (tp[0].idx[od * kd + a] * g->I[1] + tp[1].idx[oh * kh + b]) * W;
                    for (int64_t i = 0; i < W; ++i) {
                      const C v = wgt * static_cast<C>(xp[g->in.at(n, c, row + i)]);
                      bl[i] = first ? v : bl[i] + v;
                    }
                    first = false;
                  }
                const int64_t orow = (od * g->O[1] + oh) * g->O[2];
                for (int64_t ow = 0; ow < g->O[2]; ++ow) {
                  C acc = C(0);
                  for (int64_t l = 0; l < kw; ++l) acc += tp[2].w[ow * kw + l] * bl[tp[2].idx[ow * kw + l]];
                  yp[g->out.at(n, c, orow + ow)] = T(acc);
                }
              }
      });
    });
  });
}

// interp_grad: out_grad; input_shape (out's shape) and interp's attributes.
OarStatus interp_grad_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc dy = input(ctx, 0, "out_grad");
    const TensorDesc dx = output(ctx);
    expect_dtype(dx, dy.dtype, "out");
    expect_contiguous(dx, "out");
    visit_float_dtype(dy.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      using C = compute_t<T>;
      const auto g = interp_geom<C>(ctx, image_view(dx, false, "out"), image_view(dy, false, "out_grad"));
      const T* gp = dy.as<const T>();
      T* dp = dx.as<T>();
      launch(ctx, [g, gp, dp] {
        const Taps<C>* tp = g->taps;
        const int64_t kd = tp[0].k, kh = tp[1].k, kw = tp[2].k, W = g->I[2];
        const int64_t plane = g->I[0] * g->I[1] * W;
        std::vector<C> acc(static_cast<size_t>(plane)), bl(static_cast<size_t>(W));
        for (int64_t n = 0; n < g->in.N; ++n)
          for (int64_t c = 0; c < g->in.C; ++c) {
            std::fill(acc.begin(), acc.end(), C(0));
            for (int64_t od = 0; od < g->O[0]; ++od)
              for (int64_t oh = 0; oh < g->O[1]; ++oh) {
                const int64_t orow = (od * g->O[1] + oh) * g->O[2];
                std::fill(bl.begin(), bl.end(), C(0));
                for (int64_t ow = 0; ow < g->O[2]; ++ow) {
                  const C gy = static_cast<C>(gp[g->out.at(n, c, orow + ow)]);
                  for (int64_t l = 0; l < kw; ++l) bl[tp[2].idx[ow * kw + l]] += tp[2].w[ow * kw + l] * gy;
                }
                for (int64_t a = 0; a < kd; ++a)
                  for (int64_t b = 0; b < kh; ++b) {
                    const C wgt = tp[0].w[od * kd + a] * tp[1].w[oh * kh + b];
                    C* row = acc.data() + (tp[0].idx[od * kd + a] * g->I[1] + tp[1].idx[oh * kh + b]) * W;
                    for (int64_t i = 0; i < W; ++i) row[i] += wgt * bl[i];
                  }
              }
            for (int64_t i = 0; i < plane; ++i) dp[g->in.at(n, c, i)] = T(acc[i]);
          }
      });
    });
  });
}

}  // namespace oar_custom_cpu
