// Scans along one axis: cumsum_scan, cumprod_scan, logcumsumexp_scan, cum_extreme_scan
// (cummax / cummin with their indices).
// Contract: see kernels.h. x may be any strided view; outputs are contiguous with x's shape.
// The host's rules (oar/kernels/cpu/reduce.cc, special.cc): cumsum and cumprod convert each
// element to the output dtype first and accumulate in double (floats) or wrapping int64
// (integers); logcumsumexp adds in log space in double; cummax/cummin take the newest element
// on ties and a NaN once seen.
#include <array>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {
namespace {

// The lanes of a scan: one walk over x's shape with the axis collapsed (x's and out's offsets
// of each lane's first element), and the steps along the axis.
struct ScanPlan {
  StridedWalker<2> lanes;
  int64_t R = 1, x_step = 0, o_step = 0;
};

ScanPlan plan_scan(const OarKernelContext* ctx, const TensorDesc& x, const TensorDesc& out) {
  expect_shape(out, x.shape, "out");
  expect_contiguous(out, "out");
  const int nd = x.ndim();
  int64_t axis = int_attr(ctx, "axis", 0);
  if (nd == 0 ? (axis != 0 && axis != -1) : (axis < -nd || axis >= nd))
    fail("axis %lld is out of range for %d dimensions", static_cast<long long>(axis), nd);
  ScanPlan p;
  const std::vector<int64_t> out_strides = contiguous_strides(x.shape);
  std::vector<int64_t> lanes = x.shape;
  if (nd > 0) {
    if (axis < 0) axis += nd;
    p.R = x.shape[axis];
    p.x_step = x.strides[axis];
    p.o_step = out_strides[axis];
    lanes[axis] = 1;
  }
  p.lanes = StridedWalker<2>(lanes, {x.strides, out_strides});
  return p;
}

}  // namespace

// cumsum_scan / cumprod_scan: x; axis, reverse.
OarStatus cum_scan_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const bool is_prod = std::string_view(op_name(ctx)) == "cumprod_scan";
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    const ScanPlan plan = plan_scan(ctx, x, out);
    const bool reverse = bool_attr(ctx, "reverse", false);
    visit_math_dtype(x.dtype, [&](auto in_tag) {
      using In = decltype(in_tag);
      visit_math_dtype(out.dtype, [&](auto out_tag) {
        using Out = decltype(out_tag);
        using Acc = std::conditional_t<is_floating_v<Out>, double, int64_t>;
        const In* xp = x.as<const In>();
        Out* op = out.as<Out>();
        launch(ctx, [plan, xp, op, reverse, is_prod] {
          plan.lanes.run([&](const std::array<int64_t, 2>& off) {
            Acc acc = is_prod ? Acc(1) : Acc(0);
            for (int64_t k = 0; k < plan.R; ++k) {
              const int64_t r = reverse ? plan.R - 1 - k : k;
              const Acc v = convert<Acc>(convert<Out>(xp[off[0] + r * plan.x_step]));
              if constexpr (is_floating_v<Out>) acc = is_prod ? acc * v : acc + v;
              else acc = is_prod ? wrap_mul(acc, v) : wrap_add(acc, v);
              op[off[1] + r * plan.o_step] = convert<Out>(acc);
            }
          });
        });
      });
    });
  });
}

// logcumsumexp_scan: x (floating); axis, reverse.
OarStatus logcumsumexp_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    expect_dtype(out, x.dtype, "out");
    const ScanPlan plan = plan_scan(ctx, x, out);
    const bool reverse = bool_attr(ctx, "reverse", false);
    visit_float_dtype(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.as<const T>();
      T* op = out.as<T>();
      launch(ctx, [plan, xp, op, reverse] {
        plan.lanes.run([&](const std::array<int64_t, 2>& off) {
          double a = -INFINITY;
          for (int64_t k = 0; k < plan.R; ++k) {
            const int64_t r = reverse ? plan.R - 1 - k : k;
            const double v = convert<double>(xp[off[0] + r * plan.x_step]);
            if (std::isnan(v) || std::isnan(a)) {
              a = std::numeric_limits<double>::quiet_NaN();
            } else if (v == a) {  // equal (also both +-inf): a + log 2 (-inf stays -inf)
              a = a + 0.6931471805599453;
            } else {
              const double hi = v > a ? v : a, lo = v > a ? a : v;
              a = hi + std::log1p(std::exp(lo - hi));
            }
            op[off[1] + r * plan.o_step] = convert<T>(a);
          }
        });
      });
    });
  });
}

// cum_extreme_scan: x; axis, is_max, dtype. Outputs values (x's dtype) and indices (int32 or
// int64): the running maximum (minimum) and where it was taken.
OarStatus cum_extreme_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc values = output(ctx, 0), indices = output(ctx, 1);
    expect_dtype(values, x.dtype, "values");
    expect_shape(indices, x.shape, "indices");
    expect_contiguous(indices, "indices");
    if (indices.dtype != OAR_INT32 && indices.dtype != OAR_INT64) fail("indices must be int32 or int64");
    const ScanPlan plan = plan_scan(ctx, x, values);
    const bool is_max = bool_attr(ctx, "is_max", true);
    const bool i64 = indices.dtype == OAR_INT64;
    visit_math_dtype(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      using C = compute_t<T>;
      if constexpr (std::is_same_v<T, bool>) {
        fail("no %s kernel for bool", op_name(ctx));
      } else {
        const T* xp = x.as<const T>();
        T* vp = values.as<T>();
        char* ip = indices.data;
        launch(ctx, [plan, xp, vp, ip, i64, is_max] {
          plan.lanes.run([&](const std::array<int64_t, 2>& off) {
            C best{};
            int64_t bi = 0;
            for (int64_t r = 0; r < plan.R; ++r) {
              const C cur = static_cast<C>(xp[off[0] + r * plan.x_step]);
              bool take = r == 0;
              if constexpr (is_floating_v<T>) {
                if (cur != cur) take = true;
                else if (best == best) take = take || (is_max ? cur >= best : cur <= best);
              } else {
                take = take || (is_max ? cur >= best : cur <= best);
              }
              if (take) {
                best = cur;
                bi = r;
              }
              const int64_t o = off[1] + r * plan.o_step;
              vp[o] = convert<T>(best);
              if (i64) reinterpret_cast<int64_t*>(ip)[o] = bi;
              else reinterpret_cast<int32_t*>(ip)[o] = static_cast<int32_t>(bi);
            }
          });
        });
      }
    });
  });
}

}  // namespace oar_custom_cpu
