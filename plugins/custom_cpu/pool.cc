// Pooling over any number of spatial dimensions: pool_max (with its argmax mask), pool_avg,
// and their gradients pool_max_grad, pool_avg_grad, pool_max_gather (the adjoint of
// pool_max_grad).
// Contract: see kernels.h. Windows are the host's (oar/kernels/cpu/pool.h): output o covers
// [o * stride - pad_before, + kernel) clipped to the input, or, adaptive, [floor(o * in / out),
// ceil((o + 1) * in / out)). An average divides by the clipped window's size (exclusive, and
// always when adaptive) or by the kernel's volume; a max over an empty window is -FLT_MAX with
// mask -1; the mask holds the flat row-major spatial position of the maximum; NaN wins over
// numbers and the first maximum is kept. Operands may be any strided views; outputs are
// contiguous. The half types compute in float (sums in double), as the host does through float32.
#include <cfloat>
#include <memory>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/spatial.h"

namespace oar_custom_cpu {
namespace {

struct PoolGeom {
  ImageView in, out;
  std::vector<int64_t> kernel;               // per dimension
  std::vector<std::vector<int64_t>> b, e;    // window [b, e) per dimension and output coordinate
  int64_t kernel_volume = 1;

  // Calls f(input position) for each position of output o's window, row-major.
  template <typename F>
  void for_window(int64_t o, F&& f) const {
    const size_t nd = kernel.size();
    std::vector<int64_t> oc(nd), lo(nd), hi(nd), at(nd);
    unflatten(o, out.spatial, oc.data());
    for (size_t d = 0; d < nd; ++d) {
      lo[d] = b[d][oc[d]];
      hi[d] = e[d][oc[d]];
      if (lo[d] >= hi[d]) return;  // empty
      at[d] = lo[d];
    }
    while (true) {
      int64_t pos = 0;
      for (size_t d = 0; d < nd; ++d) pos = pos * in.spatial[d] + at[d];
      f(pos);
      size_t d = nd;
      while (d-- > 0) {
        if (++at[d] < hi[d]) break;
        at[d] = lo[d];
      }
      if (d == static_cast<size_t>(-1)) return;
    }
  }

  int64_t window_size(int64_t o) const {
    const size_t nd = kernel.size();
    std::vector<int64_t> oc(nd);
    unflatten(o, out.spatial, oc.data());
    int64_t n = 1;
    for (size_t d = 0; d < nd; ++d) n *= e[d][oc[d]] - b[d][oc[d]];
    return n;
  }
};

PoolGeom pool_geom(const OarKernelContext* ctx, ImageView in, ImageView out) {
  const size_t nd = in.spatial.size();
  if (out.spatial.size() != nd || out.N != in.N || out.C != in.C)
    fail("x and out do not match (batch %lld / %lld, channels %lld / %lld)", static_cast<long long>(in.N),
         static_cast<long long>(out.N), static_cast<long long>(in.C), static_cast<long long>(out.C));
  const bool adaptive = bool_attr(ctx, "adaptive", false);
  PoolGeom g;
  g.kernel = ints_attr_n(ctx, "kernel_size", nd);
  const std::vector<int64_t> stride = adaptive ? std::vector<int64_t>() : ints_attr_n(ctx, "stride", nd);
  const std::vector<int64_t> padding = adaptive ? std::vector<int64_t>() : ints_attr_n(ctx, "padding", 2 * nd);
  g.b.resize(nd);
  g.e.resize(nd);
  for (size_t d = 0; d < nd; ++d) {
    const int64_t I = in.spatial[d], O = out.spatial[d];
    if (g.kernel[d] < 1 || (!adaptive && stride[d] < 1)) fail("kernel sizes and strides must be positive");
    g.kernel_volume *= g.kernel[d];
    for (int64_t o = 0; o < O; ++o) {
      int64_t lo, hi;
      if (adaptive) {
        lo = o * I / O;
        hi = ((o + 1) * I + O - 1) / O;
      } else {
        lo = o * stride[d] - padding[2 * d];
        hi = std::min(lo + g.kernel[d], I);
        lo = std::max<int64_t>(lo, 0);
        hi = std::max(hi, lo);  // a window past the input (ceil_mode) is empty
      }
      g.b[d].push_back(lo);
      g.e[d].push_back(hi);
    }
  }
  g.in = std::move(in);
  g.out = std::move(out);
  return g;
}

bool channel_last_attr(const OarKernelContext* ctx) { return bool_attr(ctx, "channel_last", false); }

// The geometry of a mask pair: `in` the input side, `out` the mask's side.
void expect_mask(const TensorDesc& mask, const std::vector<int64_t>& shape) {
  expect_dtype(mask, OAR_INT32, "mask");
  expect_shape(mask, shape, "mask");
}

}  // namespace

// pool_max: x; kernel_size, stride, padding, ceil_mode, adaptive, channel_last. Outputs out and
// mask (int32).
OarStatus pool_max_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx, 0), mask = output(ctx, 1);
    expect_dtype(out, x.dtype, "out");
    expect_contiguous(out, "out");
    expect_mask(mask, out.shape);
    expect_contiguous(mask, "mask");
    const bool cl = channel_last_attr(ctx);
    auto g = std::make_shared<const PoolGeom>(pool_geom(ctx, image_view(x, cl, "x"), image_view(out, cl, "out")));
    const ImageView mv = image_view(mask, cl, "mask");
    visit_float_dtype(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      using C = compute_t<T>;
      const T* xp = x.as<const T>();
      T* yp = out.as<T>();
      int32_t* mp = mask.as<int32_t>();
      launch(ctx, [g, mv, xp, yp, mp] {
        for (int64_t n = 0; n < g->in.N; ++n)
          for (int64_t c = 0; c < g->in.C; ++c)
            for (int64_t o = 0; o < g->out.positions(); ++o) {
              C best = static_cast<C>(-FLT_MAX);
              int64_t arg = -1;
              g->for_window(o, [&](int64_t pos) {
                const C v = static_cast<C>(xp[g->in.at(n, c, pos)]);
                if (arg < 0 || v > best || (v != v && best == best)) {
                  best = v;
                  arg = pos;
                }
              });
              yp[g->out.at(n, c, o)] = convert<T>(best);
              mp[mv.at(n, c, o)] = static_cast<int32_t>(arg);
            }
      });
    });
  });
}

// pool_avg: x; kernel_size, stride, padding, ceil_mode, exclusive, adaptive, channel_last.
OarStatus pool_avg_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    expect_dtype(out, x.dtype, "out");
    expect_contiguous(out, "out");
    const bool cl = channel_last_attr(ctx);
    const bool by_window = bool_attr(ctx, "exclusive", true) || bool_attr(ctx, "adaptive", false);
    auto g = std::make_shared<const PoolGeom>(pool_geom(ctx, image_view(x, cl, "x"), image_view(out, cl, "out")));
    visit_float_dtype(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.as<const T>();
      T* yp = out.as<T>();
      launch(ctx, [g, by_window, xp, yp] {
        for (int64_t o = 0; o < g->out.positions(); ++o) {
          const double div = static_cast<double>(by_window ? g->window_size(o) : g->kernel_volume);
          for (int64_t n = 0; n < g->in.N; ++n)
            for (int64_t c = 0; c < g->in.C; ++c) {
              double sum = 0;
              g->for_window(o, [&](int64_t pos) { sum += convert<double>(xp[g->in.at(n, c, pos)]); });
              yp[g->out.at(n, c, o)] = convert<T>(sum / div);
            }
        }
      });
    });
  });
}

// pool_avg_grad: out_grad; input_shape (out's shape) and pool_avg's attributes. Each output's
// gradient is spread evenly over its window.
OarStatus pool_avg_grad_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc dy = input(ctx, 0, "out_grad");
    const TensorDesc dx = output(ctx);
    expect_dtype(dx, dy.dtype, "out");
    expect_contiguous(dx, "out");
    const bool cl = channel_last_attr(ctx);
    const bool by_window = bool_attr(ctx, "exclusive", true) || bool_attr(ctx, "adaptive", false);
    auto g = std::make_shared<const PoolGeom>(pool_geom(ctx, image_view(dx, cl, "out"), image_view(dy, cl, "out_grad")));
    visit_float_dtype(dy.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      const T* gp = dy.as<const T>();
      T* dp = dx.as<T>();
      launch(ctx, [g, by_window, gp, dp] {
        const int64_t I = g->in.positions();
        std::vector<double> acc(static_cast<size_t>(g->in.N * g->in.C * I), 0.0);
        for (int64_t o = 0; o < g->out.positions(); ++o) {
          const double div = static_cast<double>(by_window ? g->window_size(o) : g->kernel_volume);
          for (int64_t n = 0; n < g->in.N; ++n)
            for (int64_t c = 0; c < g->in.C; ++c) {
              const double share = convert<double>(gp[g->out.at(n, c, o)]) / div;
              double* a = acc.data() + (n * g->in.C + c) * I;
              g->for_window(o, [&](int64_t pos) { a[pos] += share; });
            }
        }
        for (int64_t n = 0; n < g->in.N; ++n)
          for (int64_t c = 0; c < g->in.C; ++c)
            for (int64_t i = 0; i < I; ++i) dp[g->in.at(n, c, i)] = convert<T>(acc[(n * g->in.C + c) * I + i]);
      });
    });
  });
}

// pool_max_grad: out_grad, mask; input_shape (out's shape), channel_last. out[n, c, mask[o]] +=
// out_grad[n, c, o] (overlapping windows add up).
OarStatus pool_max_grad_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc dy = input(ctx, 0, "out_grad"), mask = input(ctx, 1, "mask");
    const TensorDesc dx = output(ctx);
    expect_dtype(dx, dy.dtype, "out");
    expect_contiguous(dx, "out");
    expect_mask(mask, dy.shape);
    const bool cl = channel_last_attr(ctx);
    const ImageView in = image_view(dx, cl, "out"), gv = image_view(dy, cl, "out_grad"), mv = image_view(mask, cl, "mask");
    if (in.N != gv.N || in.C != gv.C || in.spatial.size() != gv.spatial.size()) fail("out_grad and out do not match");
    visit_float_dtype(dy.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      const T* gp = dy.as<const T>();
      const int32_t* mp = mask.as<const int32_t>();
      T* dp = dx.as<T>();
      launch(ctx, [in, gv, mv, gp, mp, dp] {
        const int64_t I = in.positions();
        std::vector<double> acc(static_cast<size_t>(in.N * in.C * I), 0.0);
        for (int64_t n = 0; n < in.N; ++n)
          for (int64_t c = 0; c < in.C; ++c)
            for (int64_t o = 0; o < gv.positions(); ++o) {
              const int32_t i = mp[mv.at(n, c, o)];
              if (i >= 0 && i < I) acc[(n * in.C + c) * I + i] += convert<double>(gp[gv.at(n, c, o)]);
            }
        for (int64_t n = 0; n < in.N; ++n)
          for (int64_t c = 0; c < in.C; ++c)
            for (int64_t i = 0; i < I; ++i) dp[in.at(n, c, i)] = convert<T>(acc[(n * in.C + c) * I + i]);
      });
    });
  });
}

// pool_max_gather: x, mask; channel_last. out (mask's shape) = x[n, c, mask[o]], 0 where the
// mask is -1.
OarStatus pool_max_gather_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x"), mask = input(ctx, 1, "mask");
    const TensorDesc out = output(ctx);
    expect_dtype(out, x.dtype, "out");
    expect_contiguous(out, "out");
    expect_mask(mask, out.shape);
    const bool cl = channel_last_attr(ctx);
    const ImageView xv = image_view(x, cl, "x"), ov = image_view(out, cl, "out"), mv = image_view(mask, cl, "mask");
    if (xv.N != ov.N || xv.C != ov.C) fail("x and mask do not match");
    visit_float_dtype(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.as<const T>();
      const int32_t* mp = mask.as<const int32_t>();
      T* op = out.as<T>();
      launch(ctx, [xv, ov, mv, xp, mp, op] {
        const int64_t I = xv.positions();
        for (int64_t n = 0; n < ov.N; ++n)
          for (int64_t c = 0; c < ov.C; ++c)
            for (int64_t o = 0; o < ov.positions(); ++o) {
              const int32_t i = mp[mv.at(n, c, o)];
              op[ov.at(n, c, o)] = i >= 0 && i < I ? xp[xv.at(n, c, i)] : convert<T>(0);
            }
      });
    });
  });
}

}  // namespace oar_custom_cpu
