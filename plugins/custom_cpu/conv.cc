// Convolutions over any number of spatial dimensions: convolution (forward),
// convolution_input_grad and convolution_weight_grad (its gradients, and the transposed
// convolution oar builds on the input gradient).
// Contract: see kernels.h. x [N, C, S...] (or [N, S..., C] with channel_last), weight
// [M, C / groups, K...], bias? [M]; attrs stride (nd), padding (2 nd: before/after per
// dimension), dilation (nd), groups, channel_last. Operands may be any strided views; the
// output is contiguous. A direct loop with double accumulation: correctness over speed. The
// geometry is one table: for each output position and kernel tap, the input position it reads
// (or -1 in the padding), so the three kernels are the same loop read in three directions.
#include <memory>
#include <optional>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/spatial.h"

namespace oar_custom_cpu {
namespace {

struct ConvGeom {
  int64_t N = 0, C = 0, M = 0, G = 1, Cg = 0, Mg = 0, K = 1, O = 0;
  ImageView in, out;              // the input side (x or dx) and the output side (y or dy)
  int64_t w_m = 0, w_c = 0;       // weight strides over filters and input channels
  std::vector<int64_t> w_tap;     // weight offset of each kernel tap
  std::vector<int64_t> tap;       // [O * K]: input position read by output o through tap k, or -1
};

// The geometry of a convolution from `in` to `out` by weight (shape, strides).
ConvGeom conv_geom(const OarKernelContext* ctx, ImageView in, ImageView out, const std::vector<int64_t>& w_shape,
                   const std::vector<int64_t>& w_strides) {
  const size_t nd = in.spatial.size();
  if (out.spatial.size() != nd || w_shape.size() != nd + 2)
    fail("x, weight and out must have the same number of dimensions");
  const std::vector<int64_t> stride = ints_attr_n(ctx, "stride", nd), padding = ints_attr_n(ctx, "padding", 2 * nd),
                             dilation = ints_attr_n(ctx, "dilation", nd);
  ConvGeom g;
  g.G = int_attr(ctx, "groups", 1);
  g.N = in.N;
  g.C = in.C;
  g.M = w_shape[0];
  g.Cg = w_shape[1];
  if (g.G < 1 || g.C != g.Cg * g.G || g.M % g.G != 0 || out.C != g.M || out.N != g.N)
    fail("x (%lld channels), weight %s and out (%lld channels) do not match with groups = %lld",
         static_cast<long long>(g.C), shape_str(w_shape).c_str(), static_cast<long long>(out.C),
         static_cast<long long>(g.G));
  g.Mg = g.M / g.G;
  const std::vector<int64_t> ks(w_shape.begin() + 2, w_shape.end());
  for (size_t d = 0; d < nd; ++d) {
    if (stride[d] < 1 || dilation[d] < 1) fail("stride and dilation must be positive");
    const int64_t span = in.spatial[d] + padding[2 * d] + padding[2 * d + 1] - dilation[d] * (ks[d] - 1) - 1;
    const int64_t want = span < 0 ? 0 : span / stride[d] + 1;
    if (out.spatial[d] != want)
      fail("spatial dimension %zu: out has %lld positions, the convolution gives %lld", d,
           static_cast<long long>(out.spatial[d]), static_cast<long long>(want));
  }
  g.K = shape_numel(ks);
  g.O = out.positions();
  g.w_m = w_strides[0];
  g.w_c = w_strides[1];
  g.w_tap.resize(static_cast<size_t>(g.K));
  g.tap.assign(static_cast<size_t>(g.O * g.K), -1);
  std::vector<int64_t> kc(nd), oc(nd);
  for (int64_t k = 0; k < g.K; ++k) {
    unflatten(k, ks, kc.data());
    int64_t off = 0;
    for (size_t d = 0; d < nd; ++d) off += kc[d] * w_strides[2 + d];
    g.w_tap[k] = off;
  }
  for (int64_t o = 0; o < g.O; ++o) {
    unflatten(o, out.spatial, oc.data());
    for (int64_t k = 0; k < g.K; ++k) {
      unflatten(k, ks, kc.data());
      int64_t pos = 0;
      bool inside = true;
      for (size_t d = 0; d < nd && inside; ++d) {
        const int64_t i = oc[d] * stride[d] - padding[2 * d] + kc[d] * dilation[d];
        inside = i >= 0 && i < in.spatial[d];
        pos = pos * in.spatial[d] + i;
      }
      if (inside) g.tap[o * g.K + k] = pos;
    }
  }
  g.in = std::move(in);
  g.out = std::move(out);
  return g;
}

bool channel_last_attr(const OarKernelContext* ctx) { return bool_attr(ctx, "channel_last", false); }

}  // namespace

// convolution: x, weight, bias?; out[n, m, o] = bias[m] + sum over the group's channels and the
// taps of x * weight.
OarStatus convolution_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x"), weight = input(ctx, 1, "weight");
    const bool has_bias = ctx->num_inputs > 2 && ctx->inputs != nullptr && ctx->inputs[2].ndim >= 0;
    const TensorDesc bias = has_bias ? input(ctx, 2, "bias") : TensorDesc{};
    const TensorDesc out = output(ctx);
    expect_dtype(weight, x.dtype, "weight");
    expect_dtype(out, x.dtype, "out");
    expect_contiguous(out, "out");
    const bool cl = channel_last_attr(ctx);
    auto g = std::make_shared<const ConvGeom>(
        conv_geom(ctx, image_view(x, cl, "x"), image_view(out, cl, "out"), weight.shape, weight.strides));
    if (has_bias) {
      expect_dtype(bias, x.dtype, "bias");
      expect_shape(bias, {g->M}, "bias");
    }
    const int64_t b_stride = has_bias ? bias.strides[0] : 0;
    visit_float_dtype(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.as<const T>();
      const T* wp = weight.as<const T>();
      const T* bp = has_bias ? bias.as<const T>() : nullptr;
      T* yp = out.as<T>();
      launch(ctx, [g, xp, wp, bp, b_stride, yp] {
        for (int64_t n = 0; n < g->N; ++n)
          for (int64_t m = 0; m < g->M; ++m) {
            const int64_t c0 = (m / g->Mg) * g->Cg;
            const double b = bp ? convert<double>(bp[m * b_stride]) : 0.0;
            for (int64_t o = 0; o < g->O; ++o) {
              double acc = b;
              const int64_t* tap = g->tap.data() + o * g->K;
              for (int64_t cg = 0; cg < g->Cg; ++cg) {
                const int64_t xb = n * g->in.n_stride + (c0 + cg) * g->in.c_stride;
                const int64_t wb = m * g->w_m + cg * g->w_c;
                for (int64_t k = 0; k < g->K; ++k)
                  if (tap[k] >= 0)
                    acc += convert<double>(xp[xb + g->in.pos_offset[tap[k]]]) * convert<double>(wp[wb + g->w_tap[k]]);
              }
              yp[g->out.at(n, m, o)] = convert<T>(acc);
            }
          }
      });
    });
  });
}

// convolution_input_grad: out_grad, weight; input_shape (out's shape), stride, padding,
// dilation, groups, channel_last. out = the gradient of the convolution with respect to x.
OarStatus convolution_input_grad_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc dy = input(ctx, 0, "out_grad"), weight = input(ctx, 1, "weight");
    const TensorDesc dx = output(ctx);
    expect_dtype(weight, dy.dtype, "weight");
    expect_dtype(dx, dy.dtype, "out");
    expect_contiguous(dx, "out");
    const bool cl = channel_last_attr(ctx);
    auto g = std::make_shared<const ConvGeom>(
        conv_geom(ctx, image_view(dx, cl, "out"), image_view(dy, cl, "out_grad"), weight.shape, weight.strides));
    visit_float_dtype(dy.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      const T* gp = dy.as<const T>();
      const T* wp = weight.as<const T>();
      T* dp = dx.as<T>();
      launch(ctx, [g, gp, wp, dp] {
        const int64_t I = g->in.positions();
        std::vector<double> acc(static_cast<size_t>(g->N * g->C * I), 0.0);  // [n, c, input position]
        for (int64_t n = 0; n < g->N; ++n)
          for (int64_t m = 0; m < g->M; ++m) {
            const int64_t c0 = (m / g->Mg) * g->Cg;
            for (int64_t o = 0; o < g->O; ++o) {
              const double gy = convert<double>(gp[g->out.at(n, m, o)]);
              const int64_t* tap = g->tap.data() + o * g->K;
              for (int64_t cg = 0; cg < g->Cg; ++cg) {
                double* a = acc.data() + (n * g->C + c0 + cg) * I;
                const int64_t wb = m * g->w_m + cg * g->w_c;
                for (int64_t k = 0; k < g->K; ++k)
                  if (tap[k] >= 0) a[tap[k]] += gy * convert<double>(wp[wb + g->w_tap[k]]);
              }
            }
          }
        for (int64_t n = 0; n < g->N; ++n)
          for (int64_t c = 0; c < g->C; ++c)
            for (int64_t i = 0; i < I; ++i) dp[g->in.at(n, c, i)] = convert<T>(acc[(n * g->C + c) * I + i]);
      });
    });
  });
}

// convolution_weight_grad: x, out_grad; weight_shape (out's shape), stride, padding, dilation,
// groups, channel_last. out = the gradient of the convolution with respect to weight.
OarStatus convolution_weight_grad_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x"), dy = input(ctx, 1, "out_grad");
    const TensorDesc dw = output(ctx);
    expect_dtype(dy, x.dtype, "out_grad");
    expect_dtype(dw, x.dtype, "out");
    expect_contiguous(dw, "out");
    const bool cl = channel_last_attr(ctx);
    auto g = std::make_shared<const ConvGeom>(
        conv_geom(ctx, image_view(x, cl, "x"), image_view(dy, cl, "out_grad"), dw.shape, dw.strides));
    visit_float_dtype(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.as<const T>();
      const T* gp = dy.as<const T>();
      T* dp = dw.as<T>();
      launch(ctx, [g, xp, gp, dp] {
        std::vector<double> acc(static_cast<size_t>(g->K));
        for (int64_t m = 0; m < g->M; ++m) {
          const int64_t c0 = (m / g->Mg) * g->Cg;
          for (int64_t cg = 0; cg < g->Cg; ++cg) {
            std::fill(acc.begin(), acc.end(), 0.0);
            for (int64_t n = 0; n < g->N; ++n) {
              const int64_t xb = n * g->in.n_stride + (c0 + cg) * g->in.c_stride;
              for (int64_t o = 0; o < g->O; ++o) {
                const double gy = convert<double>(gp[g->out.at(n, m, o)]);
                const int64_t* tap = g->tap.data() + o * g->K;
                for (int64_t k = 0; k < g->K; ++k)
                  if (tap[k] >= 0) acc[k] += gy * convert<double>(xp[xb + g->in.pos_offset[tap[k]]]);
              }
            }
            for (int64_t k = 0; k < g->K; ++k) dp[m * g->w_m + cg * g->w_c + g->w_tap[k]] = convert<T>(acc[k]);
          }
        }
      });
    });
  });
}

}  // namespace oar_custom_cpu
