#include "oar/kernels/cpu/grid_sample.h"

#include <algorithm>
#include <cmath>

#include "oar/core/error.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"

namespace oar::kernels {
namespace {

enum class Pad { Zeros, Border, Reflection };

Pad pad_of(const std::string& p) {
  if (p == "border") return Pad::Border;
  if (p == "reflection") return Pad::Reflection;
  return Pad::Zeros;
}

// Clip to [0, hi]; d *= the derivative.
double clip(double v, double hi, double& d) {
  if (v <= 0) { d = 0; return 0; }
  if (v >= hi) { d = 0; return hi; }
  return v;
}

// Reflect v about lo and hi (given doubled, as integers); d *= the derivative's sign.
double reflect(double v, int64_t twice_lo, int64_t twice_hi, double& d) {
  if (twice_lo == twice_hi) { d = 0; return 0; }
  const double lo = twice_lo / 2.0, span = (twice_hi - twice_lo) / 2.0;
  double s = 1;
  v -= lo;
  if (v < 0) { v = -v; s = -1; }
  const double extra = std::fmod(v, span);
  const int64_t flips = static_cast<int64_t>(std::floor(v / span));
  if (flips % 2 == 0) { d *= s; return extra + lo; }
  d *= -s;
  return span - extra + lo;
}

// The pixel coordinate of grid value g along a dim of size S, and d(coordinate)/dg.
double source(double g, int64_t S, Pad pad, bool ac, double& d) {
  double v;
  if (ac) { v = (g + 1) / 2 * double(S - 1); d = double(S - 1) / 2; }
  else { v = ((g + 1) * double(S) - 1) / 2; d = double(S) / 2; }
  if (pad == Pad::Border) {
    v = clip(v, double(S - 1), d);
  } else if (pad == Pad::Reflection) {
    v = ac ? reflect(v, 0, 2 * (S - 1), d) : reflect(v, -1, 2 * S - 1, d);
    v = clip(v, double(S - 1), d);
  }
  return v;
}

struct Geo {
  int64_t N, C, H, W, Ho, Wo;
};

template <typename T>
void fwd(const Geo& s, const T* x, const T* grid, T* out, bool nearest, Pad pad, bool ac) {
  const int64_t HW = s.H * s.W, HWo = s.Ho * s.Wo;
  parallel_for(0, s.N * HWo, 256, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t n = r / HWo, pos = r % HWo;
      double dx, dy;
      const double ix = source(double(grid[r * 2]), s.W, pad, ac, dx);
      const double iy = source(double(grid[r * 2 + 1]), s.H, pad, ac, dy);
      const T* xn = x + n * s.C * HW;
      T* on = out + n * s.C * HWo + pos;
      if (nearest) {
        const double rx = std::nearbyint(ix), ry = std::nearbyint(iy);
        const bool in = rx >= 0 && rx < s.W && ry >= 0 && ry < s.H;
        const int64_t off = in ? static_cast<int64_t>(ry) * s.W + static_cast<int64_t>(rx) : 0;
        for (int64_t c = 0; c < s.C; ++c) on[c * HWo] = in ? xn[c * HW + off] : T(0);
        continue;
      }
      const double fx = std::floor(ix), fy = std::floor(iy);
      const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
      const double tx = ix - fx, ty = iy - fy;
      const double w[4] = {(1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty};
      int64_t off[4];
      T wt[4];
      int k = 0;
      for (int j = 0; j < 4; ++j) {
        const int64_t xx = x0 + (j & 1), yy = y0 + (j >> 1);
        if (xx >= 0 && xx < s.W && yy >= 0 && yy < s.H) { off[k] = yy * s.W + xx; wt[k++] = T(w[j]); }
      }
      for (int64_t c = 0; c < s.C; ++c) {
        const T* xc = xn + c * HW;
        T acc = T(0);
        for (int j = 0; j < k; ++j) acc += wt[j] * xc[off[j]];
        on[c * HWo] = acc;
      }
    }
  });
}

// Per image: the corners and weights of every output position are tabulated once, then each
// channel plane is walked in turn (dx scattered, the grid's gradient accumulated over channels).
template <typename T>
void bwd(const Geo& s, const T* x, const T* grid, const T* dout, T* dx, T* dgrid, bool nearest,
         Pad pad, bool ac) {
  const int64_t HW = s.H * s.W, HWo = s.Ho * s.Wo;
  parallel_for(0, s.N, 1, [&](int64_t b, int64_t e) {
    std::vector<int64_t> off(HWo * 4);
    std::vector<T> w(HWo * 4), wx(HWo * 4), wy(HWo * 4);
    std::vector<double> dsx(HWo), dsy(HWo), gix(HWo), giy(HWo);
    for (int64_t n = b; n < e; ++n) {
      for (int64_t pos = 0; pos < HWo; ++pos) {
        const int64_t r = n * HWo + pos;
        const double ix = source(double(grid[r * 2]), s.W, pad, ac, dsx[pos]);
        const double iy = source(double(grid[r * 2 + 1]), s.H, pad, ac, dsy[pos]);
        int64_t* o = off.data() + pos * 4;
        T *pw = w.data() + pos * 4, *px = wx.data() + pos * 4, *py = wy.data() + pos * 4;
        if (nearest) {
          const double rx = std::nearbyint(ix), ry = std::nearbyint(iy);
          const bool in = rx >= 0 && rx < s.W && ry >= 0 && ry < s.H;
          for (int j = 0; j < 4; ++j) { o[j] = 0; pw[j] = px[j] = py[j] = T(0); }
          if (in) {
            o[0] = static_cast<int64_t>(ry) * s.W + static_cast<int64_t>(rx);
            pw[0] = T(1);
          }
          continue;
        }
        const double fx = std::floor(ix), fy = std::floor(iy);
        const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
        const double tx = ix - fx, ty = iy - fy;
        const double cw[4] = {(1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty};
        const double cx[4] = {-(1 - ty), (1 - ty), -ty, ty};  // dw/dix
        const double cy[4] = {-(1 - tx), -tx, (1 - tx), tx};  // dw/diy
        for (int j = 0; j < 4; ++j) {
          const int64_t xx = x0 + (j & 1), yy = y0 + (j >> 1);
          const bool in = xx >= 0 && xx < s.W && yy >= 0 && yy < s.H;
          o[j] = in ? yy * s.W + xx : 0;
          pw[j] = in ? T(cw[j]) : T(0);
          px[j] = in ? T(cx[j]) : T(0);
          py[j] = in ? T(cy[j]) : T(0);
        }
      }
      std::fill(gix.begin(), gix.end(), 0.0);
      std::fill(giy.begin(), giy.end(), 0.0);
      for (int64_t c = 0; c < s.C; ++c) {
        const T* go = dout + (n * s.C + c) * HWo;
        const T* xc = x + (n * s.C + c) * HW;
        T* dxc = dx ? dx + (n * s.C + c) * HW : nullptr;
        if (dxc) {
          std::fill(dxc, dxc + HW, T(0));
          for (int64_t pos = 0; pos < HWo; ++pos) {
            const T gv = go[pos];
            for (int j = 0; j < 4; ++j) dxc[off[pos * 4 + j]] += w[pos * 4 + j] * gv;
          }
        }
        if (dgrid && !nearest) {
          for (int64_t pos = 0; pos < HWo; ++pos) {
            const T gv = go[pos];
            T ax = T(0), ay = T(0);
            for (int j = 0; j < 4; ++j) {
              const T xv = xc[off[pos * 4 + j]];
              ax += wx[pos * 4 + j] * xv;
              ay += wy[pos * 4 + j] * xv;
            }
            gix[pos] += double(gv * ax);
            giy[pos] += double(gv * ay);
          }
        }
      }
      if (dgrid)
        for (int64_t pos = 0; pos < HWo; ++pos) {
          const int64_t r = n * HWo + pos;
          dgrid[r * 2] = T(gix[pos] * dsx[pos]);
          dgrid[r * 2 + 1] = T(giy[pos] * dsy[pos]);
        }
    }
  });
}

Geo geo(const Tensor& x, const Tensor& grid) {
  return Geo{x.shape()[0], x.shape()[1], x.shape()[2], x.shape()[3], grid.shape()[1],
             grid.shape()[2]};
}

}  // namespace

void grid_sample(const Tensor& x0, const Tensor& grid0, const std::string& mode,
                 const std::string& padding_mode, bool align_corners, const Tensor& out) {
  if (out.numel() == 0) return;
  const Tensor x = x0.contiguous(), grid = grid0.contiguous();
  dispatch_floating(x.dtype(), "grid_sample", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      fwd<T>(geo(x, grid), static_cast<const T*>(x.raw_data()),
             static_cast<const T*>(grid.raw_data()), static_cast<T*>(out.raw_data()),
             mode == "nearest", pad_of(padding_mode), align_corners);
    } else {
      unsupported_dtype("grid_sample", x.dtype(), "float32, float64");
    }
  });
}

void grid_sample_grad(const Tensor& x0, const Tensor& grid0, const Tensor& dout0,
                      const std::string& mode, const std::string& padding_mode,
                      bool align_corners, const Tensor& dx, const Tensor& dgrid) {
  const Tensor x = x0.contiguous(), grid = grid0.contiguous(), dout = dout0.contiguous();
  if (x.numel() == 0 || grid.numel() == 0) {
    dispatch_floating(x.dtype(), "grid_sample_grad", [&](auto tag) {
      using T = decltype(tag);
      for (const Tensor* t : {&dx, &dgrid})
        if (t->defined()) std::fill(static_cast<T*>(t->raw_data()), static_cast<T*>(t->raw_data()) + t->numel(), T(0));
    });
    return;
  }
  dispatch_floating(x.dtype(), "grid_sample_grad", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      bwd<T>(geo(x, grid), static_cast<const T*>(x.raw_data()),
             static_cast<const T*>(grid.raw_data()), static_cast<const T*>(dout.raw_data()),
             dx.defined() ? static_cast<T*>(dx.raw_data()) : nullptr,
             dgrid.defined() ? static_cast<T*>(dgrid.raw_data()) : nullptr, mode == "nearest",
             pad_of(padding_mode), align_corners);
    } else {
      unsupported_dtype("grid_sample_grad", x.dtype(), "float32, float64");
    }
  });
}

std::vector<Tensor> grid_sample_grad(const Tensor& x, const Tensor& grid, const Tensor& out_grad,
                                     const std::string& mode, const std::string& padding_mode,
                                     bool align_corners) {
  Tensor dx = Tensor::make(x.shape(), x.dtype()), dgrid = Tensor::make(grid.shape(), grid.dtype());
  grid_sample_grad(x, grid, out_grad, mode, padding_mode, align_corners, dx, dgrid);
  return {dx, dgrid};
}

void affine_grid_base(int64_t H, int64_t W, bool align_corners, const Tensor& base) {
  dispatch_floating(base.dtype(), "affine_grid", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      T* p = static_cast<T*>(base.raw_data());
      auto lin = [&](int64_t i, int64_t S) {
        if (S <= 1) return align_corners ? -1.0 : 0.0;
        const double v = -1.0 + 2.0 * double(i) / double(S - 1);
        return align_corners ? v : v * double(S - 1) / double(S);
      };
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) {
          T* q = p + (h * W + w) * 3;
          q[0] = T(lin(w, W));
          q[1] = T(lin(h, H));
          q[2] = T(1);
        }
    } else {
      unsupported_dtype("affine_grid", base.dtype(), "float32, float64");
    }
  });
}

}  // namespace oar::kernels
