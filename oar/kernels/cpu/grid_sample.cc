#include "oar/kernels/cpu/grid_sample.h"

#include <algorithm>
#include <cmath>

#include "oar/core/error.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/ops/infer_meta/vision.h"
#include "oar/ops/infer_meta/meta.h"

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

// in = {D, H, W} (D = 1 for a 4-D x); positions: the number of output positions per image.
struct Geo {
  int64_t N = 0, C = 0;
  int64_t in[3] = {1, 1, 1};
  int64_t positions = 0;
  int64_t plane() const { return in[0] * in[1] * in[2]; }
};

// The corners of one grid point g (ND values: x, y[, z]): offsets within the image plane,
// weights, each weight's derivative along each coordinate, and d(coordinate)/d(grid value).
// Corners outside the input get weight 0 (offset 0).
template <typename T, int ND, bool kDerivatives = true>
void corners(const Geo& s, const T* g, bool nearest, Pad pad, bool ac, int64_t* off, T* w,
             T (*dw)[1 << ND], double* ds) {
  constexpr int K = 1 << ND;
  double c[ND];
  int64_t size[ND], stride[ND];
  for (int k = 0; k < ND; ++k) {
    size[k] = s.in[2 - k];
    stride[k] = k == 0 ? 1 : k == 1 ? s.in[2] : s.in[1] * s.in[2];
    c[k] = source(double(g[k]), size[k], pad, ac, ds[k]);
  }
  if (nearest) {
    bool in = true;
    int64_t o = 0;
    for (int k = 0; k < ND; ++k) {
      const double r = std::nearbyint(c[k]);
      in = in && r >= 0 && r < size[k];
      o += (in ? static_cast<int64_t>(r) : 0) * stride[k];
    }
    for (int j = 0; j < K; ++j) {
      off[j] = 0;
      w[j] = T(0);
      if constexpr (kDerivatives)
        for (int k = 0; k < ND; ++k) dw[k][j] = T(0);
    }
    if (in) {
      off[0] = o;
      w[0] = T(1);
    }
    return;
  }
  int64_t lo[ND];
  double t[ND];
  for (int k = 0; k < ND; ++k) {
    const double f = std::floor(c[k]);
    lo[k] = static_cast<int64_t>(f);
    t[k] = c[k] - f;
  }
  for (int j = 0; j < K; ++j) {
    bool in = true;
    int64_t o = 0;
    double wt = 1;
    for (int k = 0; k < ND; ++k) {
      const int bit = (j >> k) & 1;
      const int64_t idx = lo[k] + bit;
      in = in && idx >= 0 && idx < size[k];
      o += idx * stride[k];
      wt *= bit ? t[k] : 1 - t[k];
    }
    off[j] = in ? o : 0;
    w[j] = in ? T(wt) : T(0);
    if constexpr (!kDerivatives) continue;
    for (int k = 0; k < ND; ++k) {
      double d = (j >> k) & 1 ? 1.0 : -1.0;
      for (int m = 0; m < ND; ++m)
        if (m != k) d *= (j >> m) & 1 ? t[m] : 1 - t[m];
      dw[k][j] = in ? T(d) : T(0);
    }
  }
}

template <typename T, int ND>
void fwd(const Geo& s, const T* x, const T* grid, T* out, bool nearest, Pad pad, bool ac) {
  constexpr int K = 1 << ND;
  const int64_t P = s.plane(), Po = s.positions;
  parallel_for(0, s.N * Po, 256, [&](int64_t b, int64_t e) {
    int64_t off[K];
    T w[K], dw[ND][K];
    double ds[ND];
    for (int64_t r = b; r < e; ++r) {
      const int64_t n = r / Po, pos = r % Po;
      corners<T, ND, false>(s, grid + r * ND, nearest, pad, ac, off, w, dw, ds);
      const T* xn = x + n * s.C * P;
      T* on = out + n * s.C * Po + pos;
      const int kn = nearest ? 1 : K;
      for (int64_t c = 0; c < s.C; ++c) {
        const T* xc = xn + c * P;
        T acc = T(0);
        for (int j = 0; j < kn; ++j) acc += w[j] * xc[off[j]];
        on[c * Po] = acc;
      }
    }
  });
}

// Per image: the corners and weights of every output position are tabulated once, then each
// channel plane is walked in turn (dx scattered, the grid's gradient accumulated over channels).
template <typename T, int ND>
void bwd(const Geo& s, const T* x, const T* grid, const T* dout, T* dx, T* dgrid, bool nearest,
         Pad pad, bool ac) {
  constexpr int K = 1 << ND;
  const int64_t P = s.plane(), Po = s.positions;
  parallel_for(0, s.N, 1, [&](int64_t b, int64_t e) {
    std::vector<int64_t> off(Po * K);
    std::vector<T> w(Po * K), dw(Po * K * ND);
    std::vector<double> ds(Po * ND), gi(Po * ND);
    for (int64_t n = b; n < e; ++n) {
      for (int64_t pos = 0; pos < Po; ++pos) {
        T dwl[ND][K];
        corners<T, ND>(s, grid + (n * Po + pos) * ND, nearest, pad, ac, off.data() + pos * K,
                       w.data() + pos * K, dwl, ds.data() + pos * ND);
        for (int k = 0; k < ND; ++k)
          for (int j = 0; j < K; ++j) dw[(pos * ND + k) * K + j] = dwl[k][j];
      }
      std::fill(gi.begin(), gi.end(), 0.0);
      for (int64_t c = 0; c < s.C; ++c) {
        const T* go = dout + (n * s.C + c) * Po;
        const T* xc = x + (n * s.C + c) * P;
        if (dx) {
          T* dxc = dx + (n * s.C + c) * P;
          std::fill(dxc, dxc + P, T(0));
          for (int64_t pos = 0; pos < Po; ++pos) {
            const T gv = go[pos];
            for (int j = 0; j < K; ++j) dxc[off[pos * K + j]] += w[pos * K + j] * gv;
          }
        }
        if (dgrid && !nearest) {
          for (int64_t pos = 0; pos < Po; ++pos) {
            const T gv = go[pos];
            for (int k = 0; k < ND; ++k) {
              const T* d = dw.data() + (pos * ND + k) * K;
              T a = T(0);
              for (int j = 0; j < K; ++j) a += d[j] * xc[off[pos * K + j]];
              gi[pos * ND + k] += double(gv * a);
            }
          }
        }
      }
      if (dgrid)
        for (int64_t pos = 0; pos < Po; ++pos)
          for (int k = 0; k < ND; ++k)
            dgrid[(n * Po + pos) * ND + k] = T(gi[pos * ND + k] * ds[pos * ND + k]);
    }
  });
}

Geo geo(const Tensor& x, const Tensor& grid) {
  Geo g;
  const int64_t nd = x.ndim() - 2;
  g.N = x.shape()[0];
  g.C = x.shape()[1];
  for (int64_t d = 0; d < nd; ++d) g.in[3 - nd + d] = x.shape()[2 + d];
  g.positions = 1;
  for (int64_t d = 1; d + 1 < grid.ndim(); ++d) g.positions *= grid.shape()[d];
  return g;
}

}  // namespace

void grid_sample(const Tensor& x0, const Tensor& grid0, const std::string& mode,
                 const std::string& padding_mode, bool align_corners, const Tensor& out) {
  if (out.numel() == 0) return;
  const Tensor x = x0.contiguous(), grid = grid0.contiguous();
  dispatch_floating(x.dtype(), "grid_sample", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const Geo g = geo(x, grid);
      const T* xp = static_cast<const T*>(x.raw_data());
      const T* gp = static_cast<const T*>(grid.raw_data());
      T* op = static_cast<T*>(out.raw_data());
      if (x.ndim() == 5) fwd<T, 3>(g, xp, gp, op, mode == "nearest", pad_of(padding_mode), align_corners);
      else fwd<T, 2>(g, xp, gp, op, mode == "nearest", pad_of(padding_mode), align_corners);
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
      const Geo g = geo(x, grid);
      const T* xp = static_cast<const T*>(x.raw_data());
      const T* gp = static_cast<const T*>(grid.raw_data());
      const T* dp = static_cast<const T*>(dout.raw_data());
      T* dxp = dx.defined() ? static_cast<T*>(dx.raw_data()) : nullptr;
      T* dgp = dgrid.defined() ? static_cast<T*>(dgrid.raw_data()) : nullptr;
      if (x.ndim() == 5) bwd<T, 3>(g, xp, gp, dp, dxp, dgp, mode == "nearest", pad_of(padding_mode), align_corners);
      else bwd<T, 2>(g, xp, gp, dp, dxp, dgp, mode == "nearest", pad_of(padding_mode), align_corners);
    } else {
      unsupported_dtype("grid_sample_grad", x.dtype(), "float32, float64");
    }
  });
}

std::vector<Tensor> grid_sample_grad(const Tensor& x, const Tensor& grid, const Tensor& out_grad,
                                     const std::string& mode, const std::string& padding_mode,
                                     bool align_corners) {
  const Meta out = infer_meta::grid_sample("grid_sample_grad", {x, grid}, mode, padding_mode, align_corners);
  check_same_meta("grid_sample_grad", "out_grad", out_grad, out.shape, out.dtype);
  Tensor dx = Tensor::make(x.shape(), x.dtype()), dgrid = Tensor::make(grid.shape(), grid.dtype());
  grid_sample_grad(x, grid, out_grad, mode, padding_mode, align_corners, dx, dgrid);
  return {dx, dgrid};
}

void affine_grid_base(int64_t D, int64_t H, int64_t W, bool align_corners, const Tensor& base) {
  if (base.numel() == 0) return;  // the loops below walk D x H even when W is 0
  dispatch_floating(base.dtype(), "affine_grid", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      T* p = static_cast<T*>(base.raw_data());
      auto lin = [&](int64_t i, int64_t S) {
        if (S <= 1) return align_corners ? -1.0 : 0.0;
        const double v = -1.0 + 2.0 * double(i) / double(S - 1);
        return align_corners ? v : v * double(S - 1) / double(S);
      };
      const int64_t row = D > 0 ? 4 : 3;
      for (int64_t d = 0; d < std::max<int64_t>(D, 1); ++d)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t w = 0; w < W; ++w) {
            T* q = p + ((d * H + h) * W + w) * row;
            q[0] = T(lin(w, W));
            q[1] = T(lin(h, H));
            if (D > 0) q[2] = T(lin(d, D));
            q[row - 1] = T(1);
          }
    } else {
      unsupported_dtype("affine_grid", base.dtype(), "float32, float64");
    }
  });
}

}  // namespace oar::kernels
