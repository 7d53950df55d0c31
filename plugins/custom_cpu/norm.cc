// Normalisation forwards: layer_norm_base and batch_norm_base (float32, float64).
// Contract: see kernels.h. Inputs may be any strided views (weight and bias are read in their
// row-major order); the three outputs are contiguous. The arithmetic is the host's
// (oar/kernels/cpu/norm.cc): statistics in double, the mean rounded to T before centring,
// (x - mean) * rstd [* weight] [+ bias] in T. batch_norm_base cannot update the running
// statistics: the host writes them in place, and a kernel writes only its outputs, so that
// case is UNSUPPORTED (oar raises NotImplementedError; evaluation and use_batch_stats without
// update_running run here).
#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {
namespace {

void expect_param(const std::optional<TensorDesc>& t, int32_t dtype, int64_t n, const char* role) {
  if (!t) return;
  expect_dtype(*t, dtype, role);
  if (t->numel != n) fail("'%s' has %lld elements, expected %lld", role, static_cast<long long>(t->numel),
                          static_cast<long long>(n));
}

template <typename F>
void visit_f32_f64(int32_t dtype, const char* op, F&& f) {
  if (dtype == OAR_FLOAT32) f(float{});
  else if (dtype == OAR_FLOAT64) f(double{});
  else unsupported("no %s kernel for %s (float32 and float64 have one)", op, dtype_name(dtype));
}

}  // namespace

// layer_norm_base: x, weight?, bias?; epsilon, begin_norm_axis. out (x's shape), mean and rstd
// ([rows], rows = the product of the dimensions before begin_norm_axis).
OarStatus layer_norm_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const std::optional<TensorDesc> weight = optional_input(ctx, 1, "weight"), bias = optional_input(ctx, 2, "bias");
    const TensorDesc out = output(ctx, 0), mean = output(ctx, 1), rstd = output(ctx, 2);
    const double epsilon = float_attr(ctx, "epsilon", 1e-5);
    const int64_t begin = int_attr(ctx, "begin_norm_axis", 1);
    if (begin < 0 || begin > x.ndim()) fail("begin_norm_axis %lld is out of range for %d dimensions",
                                            static_cast<long long>(begin), x.ndim());
    int64_t rows = 1, n = 1;
    for (int d = 0; d < x.ndim(); ++d) (d < begin ? rows : n) *= x.shape[d];
    expect_shape(out, x.shape, "out");
    for (const TensorDesc* t : {&out, &mean, &rstd}) {
      expect_dtype(*t, x.dtype, "out");
      expect_contiguous(*t, "out");
    }
    if (mean.numel != rows || rstd.numel != rows) fail("mean and rstd must hold %lld elements", static_cast<long long>(rows));
    expect_param(weight, x.dtype, n, "weight");
    expect_param(bias, x.dtype, n, "bias");
    visit_f32_f64(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      const Reader<T> xs(x), ws(weight), bs(bias);
      T* yp = out.as<T>();
      T* mp = mean.as<T>();
      T* rp = rstd.as<T>();
      launch(ctx, [xs, ws, bs, yp, mp, rp, rows, n, epsilon] {
        const std::vector<T> xv = xs.read(), w = ws.read(), b = bs.read();
        if (n == 0) {
          for (int64_t r = 0; r < rows; ++r) mp[r] = rp[r] = T(std::nan(""));
          return;
        }
        for (int64_t r = 0; r < rows; ++r) {
          const T* xr = xv.data() + r * n;
          T* yr = yp + r * n;
          double s = 0;
          for (int64_t i = 0; i < n; ++i) s += static_cast<double>(xr[i]);
          const double m = s / static_cast<double>(n);
          const T mt = static_cast<T>(m);
          double v = 0;
          for (int64_t i = 0; i < n; ++i) {
            const double d = static_cast<double>(xr[i] - mt);
            v += d * d;
          }
          // The mean was rounded to T: correct the variance for it (exact in exact arithmetic).
          const double dm = m - static_cast<double>(mt);
          v = v / static_cast<double>(n) - dm * dm;
          const double rs = 1.0 / std::sqrt(std::max(v, 0.0) + epsilon);
          mp[r] = mt;
          rp[r] = static_cast<T>(rs);
          const T a = static_cast<T>(rs);
          for (int64_t i = 0; i < n; ++i) {
            T y = (xr[i] - mt) * a;  // subtracting first keeps a constant row exactly 0
            if (!w.empty()) y = y * w[i];
            if (!b.empty()) y = y + b[i];
            yr[i] = y;
          }
        }
      });
    });
  });
}

// batch_norm_base: x, running_mean, running_var, weight?, bias?; use_batch_stats,
// update_running, momentum, epsilon, channel_axis. out (x's shape), saved_mean and saved_rstd
// ([C]): the batch's statistics over every dimension but the channel one, or the running ones.
OarStatus batch_norm_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const std::optional<TensorDesc> rmean = optional_input(ctx, 1, "running_mean"),
                                    rvar = optional_input(ctx, 2, "running_var"),
                                    weight = optional_input(ctx, 3, "weight"), bias = optional_input(ctx, 4, "bias");
    const TensorDesc out = output(ctx, 0), smean = output(ctx, 1), srstd = output(ctx, 2);
    const bool use_batch_stats = bool_attr(ctx, "use_batch_stats", true);
    const bool update_running = bool_attr(ctx, "update_running", false);
    const double epsilon = float_attr(ctx, "epsilon", 1e-5);
    const int nd = x.ndim();
    int64_t axis = int_attr(ctx, "channel_axis", 1);
    if (nd < 2 || axis < -nd || axis >= nd) fail("channel_axis %lld does not fit x %s", static_cast<long long>(axis),
                                                 shape_str(x.shape).c_str());
    if (axis < 0) axis += nd;
    if (use_batch_stats && update_running && rmean)
      unsupported("batch_norm_base updates the running statistics in place; a kernel writes only its outputs");
    if (!use_batch_stats && (!rmean || !rvar)) fail("evaluation needs running_mean and running_var");
    int64_t outer = 1, C = x.shape[axis], inner = 1;
    for (int d = 0; d < nd; ++d) {
      if (d < axis) outer *= x.shape[d];
      else if (d > axis) inner *= x.shape[d];
    }
    expect_shape(out, x.shape, "out");
    for (const TensorDesc* t : {&out, &smean, &srstd}) {
      expect_dtype(*t, x.dtype, "out");
      expect_contiguous(*t, "out");
    }
    if (smean.numel != C || srstd.numel != C) fail("saved_mean and saved_rstd must hold %lld elements", static_cast<long long>(C));
    for (const auto* p : {&rmean, &rvar, &weight, &bias}) expect_param(*p, x.dtype, C, "parameter");
    visit_f32_f64(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      const Reader<T> xs(x), rms(use_batch_stats ? std::nullopt : rmean), rvs(use_batch_stats ? std::nullopt : rvar),
          ws(weight), bs(bias);
      T* yp = out.as<T>();
      T* sm = smean.as<T>();
      T* sr = srstd.as<T>();
      launch(ctx, [xs, rms, rvs, ws, bs, yp, sm, sr, outer, C, inner, epsilon, use_batch_stats] {
        const std::vector<T> xv = xs.read(), w = ws.read(), b = bs.read();
        const int64_t count = outer * inner;
        auto at = [&](int64_t o, int64_t c, int64_t i) { return (o * C + c) * inner + i; };
        std::vector<double> mean(static_cast<size_t>(C)), var(static_cast<size_t>(C));
        if (use_batch_stats) {
          for (int64_t c = 0; c < C; ++c) {
            double s = 0;
            for (int64_t o = 0; o < outer; ++o)
              for (int64_t i = 0; i < inner; ++i) s += static_cast<double>(xv[at(o, c, i)]);
            const double m = s / static_cast<double>(count);
            double q = 0;
            for (int64_t o = 0; o < outer; ++o)
              for (int64_t i = 0; i < inner; ++i) {
                const double d = static_cast<double>(xv[at(o, c, i)]) - m;
                q += d * d;
              }
            mean[c] = m;
            var[c] = q / static_cast<double>(count);
          }
        } else {
          const std::vector<T> rm = rms.read(), rv = rvs.read();
          for (int64_t c = 0; c < C; ++c) {
            mean[c] = static_cast<double>(rm[c]);
            var[c] = static_cast<double>(rv[c]);
          }
        }
        for (int64_t c = 0; c < C; ++c) {
          const double rs = 1.0 / std::sqrt(var[c] + epsilon);
          sm[c] = static_cast<T>(mean[c]);
          sr[c] = static_cast<T>(rs);
          // y = (x - mean) * a + s (subtracting first keeps a constant channel exactly its bias)
          const T a = static_cast<T>(rs * (w.empty() ? 1.0 : static_cast<double>(w[c])));
          const T s = b.empty() ? T(0) : b[c];
          const T mt = sm[c];
          for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i) {
              const int64_t k = at(o, c, i);
              yp[k] = (xv[k] - mt) * a + s;
            }
        }
      });
    });
  });
}

}  // namespace oar_custom_cpu
