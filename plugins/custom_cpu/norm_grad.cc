// Normalisation gradients: layer_norm_grad and batch_norm_grad (float32, float64), the fused
// kernels oar's composites (oar/ops/composite/norm.cc) launch on a device instead of ~10 ops.
//
// Contract (the arguments are oar's host kernels' kernels::layer_norm_grad / batch_norm_grad,
// oar/kernels/cpu/norm.cc, and so is the arithmetic):
// - layer_norm_grad: inputs x, weight? (numel n), mean [rows], rstd [rows], out_grad (x's shape);
//   attribute begin_norm_axis (rows = the product of the dims before it, n of the rest).
//   Outputs dx (x's shape), dweight (n), dbias (n); an unwanted one is absent (ndim -1).
//   Per row, with h = (x - mean) * rstd in T: dx = rstd * (g*w - T(sum(g*w)/n) - h *
//   T(sum(g*w*h)/n)) in T (sums in double); dweight = T(sum over rows of g*h), dbias = T(sum of
//   g), accumulated in double. With no rows dweight and dbias are 0.
// - batch_norm_grad: inputs x, weight? ([C]), saved_mean [C], saved_rstd [C], out_grad (x's
//   shape); attributes use_batch_stats, channel_axis (x viewed as [outer, C, inner]).
//   Outputs dx, dweight [C], dbias [C] (unwanted ones absent). Per channel, in double: sg =
//   sum(g), sgh = sum(g * h) (h in double when inner > 1, the product in T when inner == 1, as
//   the host); dweight = T(sgh), dbias = T(sg); dx = k * (g - mg - h * mgh) in T with k =
//   T(rstd * w), and mg = T(sg / count), mgh = T(sgh / count) with use_batch_stats, else 0.
// Inputs may be any strided views (read in row-major order); outputs are contiguous.
#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {
namespace {

template <typename F>
void visit_f32_f64_grad(int32_t dtype, const char* op, F&& f) {
  if (dtype == OAR_FLOAT32) f(float{});
  else if (dtype == OAR_FLOAT64) f(double{});
  else unsupported("no %s kernel for %s (float32 and float64 have one)", op, dtype_name(dtype));
}

void expect_numel(const TensorDesc& t, int32_t dtype, int64_t n, const char* role) {
  expect_dtype(t, dtype, role);
  if (t.numel != n)
    fail("'%s' has %lld elements, expected %lld", role, static_cast<long long>(t.numel), static_cast<long long>(n));
}

// An optional output: nullopt when absent; else checked (dtype, numel, contiguous).
std::optional<TensorDesc> grad_output(const OarKernelContext* ctx, int i, int32_t dtype, int64_t n,
                                      const char* role) {
  if (i >= ctx->num_outputs || ctx->outputs == nullptr || ctx->outputs[i].ndim < 0) return std::nullopt;
  TensorDesc t = describe(ctx, ctx->outputs[i], role);
  expect_numel(t, dtype, n, role);
  expect_contiguous(t, role);
  return t;
}

template <typename T>
T* data_or_null(const std::optional<TensorDesc>& t) {
  return t ? t->as<T>() : nullptr;
}

}  // namespace

OarStatus layer_norm_grad_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const std::optional<TensorDesc> weight = optional_input(ctx, 1, "weight");
    const TensorDesc mean = input(ctx, 2, "mean"), rstd = input(ctx, 3, "rstd"), grad = input(ctx, 4, "out_grad");
    const int64_t begin = int_attr(ctx, "begin_norm_axis", 1);
    if (begin < 0 || begin > x.ndim())
      fail("begin_norm_axis %lld is out of range for %d dimensions", static_cast<long long>(begin), x.ndim());
    int64_t rows = 1, n = 1;
    for (int d = 0; d < x.ndim(); ++d) (d < begin ? rows : n) *= x.shape[d];
    expect_dtype(grad, x.dtype, "out_grad");
    expect_shape(grad, x.shape, "out_grad");
    expect_numel(mean, x.dtype, rows, "mean");
    expect_numel(rstd, x.dtype, rows, "rstd");
    if (weight) expect_numel(*weight, x.dtype, n, "weight");
    const std::optional<TensorDesc> dx = grad_output(ctx, 0, x.dtype, x.numel, "dx");
    const std::optional<TensorDesc> dw = grad_output(ctx, 1, x.dtype, n, "dweight");
    const std::optional<TensorDesc> db = grad_output(ctx, 2, x.dtype, n, "dbias");
    if (dx) expect_shape(*dx, x.shape, "dx");
    visit_f32_f64_grad(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      const Reader<T> xs(x), ws(weight), ms(mean), rs(rstd), gs(grad);
      T* dxp = data_or_null<T>(dx);
      T* dwp = data_or_null<T>(dw);
      T* dbp = data_or_null<T>(db);
      launch(ctx, [xs, ws, ms, rs, gs, dxp, dwp, dbp, rows, n] {
        const bool want_wb = dwp != nullptr || dbp != nullptr;
        std::vector<double> sw(want_wb ? static_cast<size_t>(n) : 0, 0.0), sb(sw.size(), 0.0);
        if (rows > 0 && n > 0) {
          const std::vector<T> xv = xs.read(), w = ws.read(), mv = ms.read(), rv = rs.read(), gv = gs.read();
          std::vector<T> h(static_cast<size_t>(n));
          for (int64_t r = 0; r < rows; ++r) {
            const T* xr = xv.data() + r * n;
            const T* gr = gv.data() + r * n;
            const T m = mv[r], s = rv[r];
            for (int64_t i = 0; i < n; ++i) h[i] = (xr[i] - m) * s;
            if (want_wb)
              for (int64_t i = 0; i < n; ++i) {
                sw[i] += static_cast<double>(gr[i] * h[i]);
                sb[i] += static_cast<double>(gr[i]);
              }
            if (dxp == nullptr) continue;
            double sg = 0, sgh = 0;
            for (int64_t i = 0; i < n; ++i) {
              const double g = static_cast<double>(w.empty() ? gr[i] : gr[i] * w[i]);
              sg += g;
              sgh += g * static_cast<double>(h[i]);
            }
            const T a = static_cast<T>(sg / static_cast<double>(n));
            const T bb = static_cast<T>(sgh / static_cast<double>(n));
            T* dr = dxp + r * n;
            for (int64_t i = 0; i < n; ++i) dr[i] = s * ((w.empty() ? gr[i] : gr[i] * w[i]) - a - h[i] * bb);
          }
        }
        for (int64_t i = 0; i < n && want_wb; ++i) {
          if (dwp) dwp[i] = static_cast<T>(sw[i]);
          if (dbp) dbp[i] = static_cast<T>(sb[i]);
        }
      });
    });
  });
}

OarStatus batch_norm_grad_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const std::optional<TensorDesc> weight = optional_input(ctx, 1, "weight");
    const TensorDesc smean = input(ctx, 2, "saved_mean"), srstd = input(ctx, 3, "saved_rstd"),
                     grad = input(ctx, 4, "out_grad");
    const bool use_batch_stats = bool_attr(ctx, "use_batch_stats", true);
    const int nd = x.ndim();
    int64_t axis = int_attr(ctx, "channel_axis", 1);
    if (nd < 1 || axis < -nd || axis >= nd)
      fail("channel_axis %lld does not fit x %s", static_cast<long long>(axis), shape_str(x.shape).c_str());
    if (axis < 0) axis += nd;
    int64_t outer = 1, C = x.shape[axis], inner = 1;
    for (int d = 0; d < nd; ++d) {
      if (d < axis) outer *= x.shape[d];
      else if (d > axis) inner *= x.shape[d];
    }
    expect_dtype(grad, x.dtype, "out_grad");
    expect_shape(grad, x.shape, "out_grad");
    expect_numel(smean, x.dtype, C, "saved_mean");
    expect_numel(srstd, x.dtype, C, "saved_rstd");
    if (weight) expect_numel(*weight, x.dtype, C, "weight");
    const std::optional<TensorDesc> dx = grad_output(ctx, 0, x.dtype, x.numel, "dx");
    const std::optional<TensorDesc> dw = grad_output(ctx, 1, x.dtype, C, "dweight");
    const std::optional<TensorDesc> db = grad_output(ctx, 2, x.dtype, C, "dbias");
    if (dx) expect_shape(*dx, x.shape, "dx");
    visit_f32_f64_grad(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      const Reader<T> xs(x), ws(weight), ms(smean), rs(srstd), gs(grad);
      T* dxp = data_or_null<T>(dx);
      T* dwp = data_or_null<T>(dw);
      T* dbp = data_or_null<T>(db);
      launch(ctx, [xs, ws, ms, rs, gs, dxp, dwp, dbp, outer, C, inner, use_batch_stats] {
        const std::vector<T> xv = xs.read(), w = ws.read(), mp = ms.read(), rp = rs.read(), gv = gs.read();
        const int64_t count = outer * inner;
        std::vector<double> sg(static_cast<size_t>(C), 0.0), sgh(static_cast<size_t>(C), 0.0);
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t c = 0; c < C; ++c) {
            const int64_t base = (o * C + c) * inner;
            if (inner == 1) {  // the host's channel-last sums: the product in T
              sg[c] += static_cast<double>(gv[base]);
              sgh[c] += static_cast<double>(gv[base] * ((xv[base] - mp[c]) * rp[c]));
              continue;
            }
            const double m = static_cast<double>(mp[c]), r = static_cast<double>(rp[c]);
            for (int64_t i = 0; i < inner; ++i) {
              const double g = static_cast<double>(gv[base + i]);
              sg[c] += g;
              sgh[c] += g * ((static_cast<double>(xv[base + i]) - m) * r);
            }
          }
        for (int64_t c = 0; c < C; ++c) {
          if (dwp) dwp[c] = static_cast<T>(sgh[c]);
          if (dbp) dbp[c] = static_cast<T>(sg[c]);
        }
        if (dxp == nullptr) return;
        for (int64_t c = 0; c < C; ++c) {
          const T k = static_cast<T>(static_cast<double>(rp[c]) * (w.empty() ? 1.0 : static_cast<double>(w[c])));
          const T mg = use_batch_stats ? static_cast<T>(sg[c] / static_cast<double>(count)) : T(0);
          const T mgh = use_batch_stats ? static_cast<T>(sgh[c] / static_cast<double>(count)) : T(0);
          for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i) {
              const int64_t j = (o * C + c) * inner + i;
              const T h = (xv[j] - mp[c]) * rp[c];
              dxp[j] = k * (gv[j] - mg - h * mgh);
            }
        }
      });
    });
  });
}

}  // namespace oar_custom_cpu
