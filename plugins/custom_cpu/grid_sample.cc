// Sampling grids: grid_sample_base (the forward of grid_sample, 4-d and 5-d) and
// affine_grid_base (affine_grid's base grid).
// Contract: see kernels.h. A port of oar/kernels/cpu/grid_sample.cc: x [N, C, (D,) H, W], grid
// [N, (Do,) Ho, Wo, ND] holding (x, y[, z]) in [-1, 1]; a grid value maps to a pixel coordinate
// (align_corners: (g + 1) / 2 (S - 1), else ((g + 1) S - 1) / 2), then padding_mode clips
// ("border"), reflects and clips ("reflection") or reads 0 outside ("zeros"); "bilinear" weighs
// the 2^ND neighbours, "nearest" reads the nearest (halves to even). Coordinates and weights in
// double, the sum in T, as the host. x and grid may be any strided views; out is contiguous.
// (grid_sample's gradient makes its own outputs, which no device kernel can.)
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/spatial.h"

namespace oar_custom_cpu {
namespace {

enum class Pad { Zeros, Border, Reflection };

std::string string_attr(const OarKernelContext* ctx, const char* name, const char* fallback) {
  const OarAttr* a = find_attr(ctx, name);
  if (a == nullptr) return fallback;
  if (a->kind != OAR_ATTR_STRING || a->s == nullptr) fail("attribute '%s' is not a string", name);
  return a->s;
}

double clip(double v, double hi) { return v <= 0 ? 0 : (v >= hi ? hi : v); }

// Reflect v about lo and hi (given doubled, as integers).
double reflect(double v, int64_t twice_lo, int64_t twice_hi) {
  if (twice_lo == twice_hi) return 0;
  const double lo = twice_lo / 2.0, span = (twice_hi - twice_lo) / 2.0;
  v -= lo;
  if (v < 0) v = -v;
  const double extra = std::fmod(v, span);
  const int64_t flips = static_cast<int64_t>(std::floor(v / span));
  if (flips % 2 == 0) return extra + lo;
  return span - extra + lo;
}

double source(double g, int64_t S, Pad pad, bool ac) {
  double v = ac ? (g + 1) / 2 * double(S - 1) : ((g + 1) * double(S) - 1) / 2;
  if (pad == Pad::Border) {
    v = clip(v, double(S - 1));
  } else if (pad == Pad::Reflection) {
    v = ac ? reflect(v, 0, 2 * (S - 1)) : reflect(v, -1, 2 * S - 1);
    v = clip(v, double(S - 1));
  }
  return v;
}

}  // namespace

// grid_sample_base: inputs = {x, grid} (inputs_count 2); mode, padding_mode, align_corners.
OarStatus grid_sample_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x"), grid = input(ctx, 1, "grid");
    const TensorDesc out = output(ctx);
    expect_dtype(grid, x.dtype, "grid");
    expect_dtype(out, x.dtype, "out");
    expect_contiguous(out, "out");
    const std::string mode = string_attr(ctx, "mode", "bilinear"), padding = string_attr(ctx, "padding_mode", "zeros");
    if (mode != "bilinear" && mode != "nearest") fail("mode must be 'bilinear' or 'nearest', got '%s'", mode.c_str());
    if (padding != "zeros" && padding != "border" && padding != "reflection")
      fail("padding_mode must be 'zeros', 'border' or 'reflection', got '%s'", padding.c_str());
    const Pad pad = padding == "border" ? Pad::Border : padding == "reflection" ? Pad::Reflection : Pad::Zeros;
    const bool nearest = mode == "nearest", ac = bool_attr(ctx, "align_corners", true);
    const int nd = x.ndim() - 2;  // spatial dims = the grid's last extent
    if ((nd != 2 && nd != 3) || grid.ndim() != nd + 2 || grid.shape.back() != nd || grid.shape[0] != x.shape[0])
      fail("x %s and grid %s do not fit", shape_str(x.shape).c_str(), shape_str(grid.shape).c_str());
    std::vector<int64_t> want{x.shape[0], x.shape[1]};
    want.insert(want.end(), grid.shape.begin() + 1, grid.shape.end() - 1);
    expect_shape(out, want, "out");
    const ImageView xv = image_view(x, false, "x"), ov = image_view(out, false, "out");
    // The grid as [N, positions, ND] offsets.
    const std::vector<int64_t> gpos_shape(grid.shape.begin() + 1, grid.shape.end() - 1);
    const std::vector<int64_t> gpos_strides(grid.strides.begin() + 1, grid.strides.end() - 1);
    const ImageView gv = image_view([&] {
      std::vector<int64_t> s{grid.shape[0], nd};
      s.insert(s.end(), gpos_shape.begin(), gpos_shape.end());
      return s;
    }(), [&] {
      std::vector<int64_t> s{grid.strides[0], grid.strides.back()};
      s.insert(s.end(), gpos_strides.begin(), gpos_strides.end());
      return s;
    }(), false, "grid");
    visit_float_dtype(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      using C = compute_t<T>;
      const T* xp = x.as<const T>();
      const T* gp = grid.as<const T>();
      T* op = out.as<T>();
      launch(ctx, [xv, ov, gv, xp, gp, op, nd, nearest, pad, ac] {
        const int K = 1 << nd;
        // Extents and flat-position strides of the input, x first (the grid's order).
        int64_t size[3], stride[3];
        for (int k = 0; k < nd; ++k) {
          size[k] = xv.spatial[nd - 1 - k];
          stride[k] = 1;
          for (int m = nd - k; m < nd; ++m) stride[k] *= xv.spatial[m];
        }
        for (int64_t n = 0; n < xv.N; ++n)
          for (int64_t pos = 0; pos < ov.positions(); ++pos) {
            double c[3];
            for (int k = 0; k < nd; ++k) c[k] = source(convert<double>(gp[gv.at(n, k, pos)]), size[k], pad, ac);
            int64_t off[8] = {0};
            C w[8] = {};
            int taps = K;
            if (nearest) {
              taps = 1;
              bool in = true;
              int64_t o = 0;
              for (int k = 0; k < nd; ++k) {
                const double r = std::nearbyint(c[k]);
                in = in && r >= 0 && r < size[k];
                o += (in ? static_cast<int64_t>(r) : 0) * stride[k];
              }
              off[0] = in ? o : 0;
              w[0] = in ? C(1) : C(0);
            } else {
              int64_t lo[3];
              double t[3];
              for (int k = 0; k < nd; ++k) {
                const double f = std::floor(c[k]);
                lo[k] = static_cast<int64_t>(f);
                t[k] = c[k] - f;
              }
              for (int j = 0; j < K; ++j) {
                bool in = true;
                int64_t o = 0;
                double wt = 1;
                for (int k = 0; k < nd; ++k) {
                  const int bit = (j >> k) & 1;
                  const int64_t idx = lo[k] + bit;
                  in = in && idx >= 0 && idx < size[k];
                  o += idx * stride[k];
                  wt *= bit ? t[k] : 1 - t[k];
                }
                off[j] = in ? o : 0;
                w[j] = in ? C(wt) : C(0);
              }
            }
            for (int64_t ch = 0; ch < xv.C; ++ch) {
              C acc = C(0);
              for (int j = 0; j < taps; ++j) acc += w[j] * static_cast<C>(xp[xv.at(n, ch, off[j])]);
              op[ov.at(n, ch, pos)] = T(acc);
            }
          }
      });
    });
  });
}

// affine_grid_base: no inputs; depth, height, width, align_corners, dtype. out [H, W, 3] rows
// (x, y, 1) (depth 0) or [D, H, W, 4] rows (x, y, z, 1), evenly spaced over [-1, 1]
// (align_corners) or at the pixel centres.
OarStatus affine_grid_base_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc out = output(ctx);
    expect_contiguous(out, "out");
    const int64_t D = int_attr(ctx, "depth", 0), H = int_attr(ctx, "height", 1), W = int_attr(ctx, "width", 1);
    const bool ac = bool_attr(ctx, "align_corners", true);
    const int64_t row = D > 0 ? 4 : 3;
    if (out.numel != std::max<int64_t>(D, 1) * H * W * row) fail("out %s does not fit the grid", shape_str(out.shape).c_str());
    visit_float_dtype(out.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      T* p = out.as<T>();
      launch(ctx, [p, D, H, W, ac, row] {
        auto lin = [&](int64_t i, int64_t S) {
          if (S <= 1) return ac ? -1.0 : 0.0;
          const double v = -1.0 + 2.0 * double(i) / double(S - 1);
          return ac ? v : v * double(S - 1) / double(S);
        };
        for (int64_t d = 0; d < std::max<int64_t>(D, 1); ++d)
          for (int64_t h = 0; h < H; ++h)
            for (int64_t w = 0; w < W; ++w) {
              T* q = p + ((d * H + h) * W + w) * row;
              q[0] = convert<T>(lin(w, W));
              q[1] = convert<T>(lin(h, H));
              if (D > 0) q[2] = convert<T>(lin(d, D));
              q[row - 1] = convert<T>(1.0);
            }
      });
    });
  });
}

}  // namespace oar_custom_cpu
