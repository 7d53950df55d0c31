// Reductions: sum, mean, max, min over a set of axes.
// Contract: see kernels.h. One pass over x's elements with the StridedWalker, each element
// accumulated into its output slot (the reduced axes have output stride 0). Accumulators:
// double for float outputs, wrapping int64 for integer and bool outputs; sum converts each
// element to the output dtype first (sum(bool) counts into int64 when out is int64). mean
// divides by the number of reduced elements (integers truncate toward zero, a bool mean is
// any(x), an empty float mean is NaN); max and min propagate NaN and refuse an empty set.
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {
namespace {

struct ReducePlan {
  StridedWalker<2> walk;  // over x: x's offset, the output slot's index
  int64_t count = 1;      // reduced elements per output slot
  int64_t slots = 1;      // output elements
};

ReducePlan plan_reduce(const OarKernelContext* ctx, const TensorDesc& x, const TensorDesc& out) {
  const int nd = x.ndim();
  const std::vector<int64_t> axes = ints_attr(ctx, "axis");
  const bool keepdim = bool_attr(ctx, "keepdim", false);
  std::vector<bool> reduced(nd, axes.empty());
  for (int64_t a : axes) {
    if (nd == 0 && (a == 0 || a == -1)) continue;  // a 0-d tensor accepts axis 0 / -1
    if (a < -nd || a >= nd) fail("axis %lld is out of range for x with %d dimensions", static_cast<long long>(a), nd);
    reduced[a < 0 ? a + nd : a] = true;
  }
  std::vector<int64_t> kept_shape, out_shape;
  for (int d = 0; d < nd; ++d) {
    if (!reduced[d]) kept_shape.push_back(x.shape[d]);
    if (!reduced[d] || keepdim) out_shape.push_back(reduced[d] ? 1 : x.shape[d]);
  }
  expect_shape(out, out_shape, "out");
  expect_contiguous(out, "out");
  // The output slot of an element: row-major over the kept axes, nothing for the reduced ones.
  const std::vector<int64_t> kept_strides = contiguous_strides(kept_shape);
  std::vector<int64_t> slot_strides(nd, 0);
  ReducePlan plan;
  for (int d = 0, k = 0; d < nd; ++d) {
    if (reduced[d]) plan.count *= x.shape[d];
    else slot_strides[d] = kept_strides[k++];
  }
  plan.slots = shape_numel(kept_shape);
  plan.walk = StridedWalker<2>(x.shape, {x.strides, slot_strides});
  return plan;
}

template <typename In, typename Out>
void enqueue_sum_or_mean(const OarKernelContext* ctx, Reduce op, const TensorDesc& x, const TensorDesc& out,
                         ReducePlan plan) {
  using Acc = std::conditional_t<is_floating_v<Out>, double, int64_t>;
  const In* xp = x.as<const In>();
  Out* op_out = out.as<Out>();
  const bool mean = op == Reduce::Mean;
  launch(ctx, [plan = std::move(plan), xp, op_out, mean] {
    std::vector<Acc> acc(plan.slots, Acc(0));
    plan.walk.run([&](const std::array<int64_t, 2>& off) {
      const Acc v = convert<Acc>(convert<Out>(xp[off[0]]));
      if constexpr (is_floating_v<Out>) acc[off[1]] += v;
      else acc[off[1]] = wrap_add(acc[off[1]], v);
    });
    for (int64_t i = 0; i < plan.slots; ++i) {
      Acc r = acc[i];
      if (mean) {
        if constexpr (std::is_same_v<Out, bool>) r = r != 0;  // any(x)
        else if constexpr (is_floating_v<Out>) r = plan.count ? r / plan.count : std::numeric_limits<double>::quiet_NaN();
        else r = plan.count ? r / plan.count : 0;  // count > 0, so no INT64_MIN / -1
      }
      op_out[i] = convert<Out>(r);
    }
  });
}

template <typename T>
void enqueue_extreme(const OarKernelContext* ctx, bool is_max, const TensorDesc& x, const TensorDesc& out,
                     ReducePlan plan) {
  const T* xp = x.as<const T>();
  T* op_out = out.as<T>();
  launch(ctx, [plan = std::move(plan), xp, op_out, is_max] {
    using C = compute_t<T>;  // halves compare as float (exactly)
    std::unique_ptr<C[]> best(new C[plan.slots]);  // not vector: vector<bool> has no T&
    std::vector<char> seen(plan.slots, 0);
    plan.walk.run([&](const std::array<int64_t, 2>& off) {
      const C v = static_cast<C>(xp[off[0]]);
      C& b = best[off[1]];
      if (!seen[off[1]]) {
        b = v;
        seen[off[1]] = 1;
        return;
      }
      if constexpr (is_floating_v<T>) {
        if (b != b) return;  // NaN stays
        if (v != v) { b = v; return; }
      }
      if (is_max ? v > b : v < b) b = v;
    });
    for (int64_t i = 0; i < plan.slots; ++i) op_out[i] = convert<T>(best[i]);
  });
}

template <Reduce op>
OarStatus reduce_impl(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    ReducePlan plan = plan_reduce(ctx, x, out);
    if constexpr (op == Reduce::Max || op == Reduce::Min) {
      if (plan.count == 0 && plan.slots > 0) fail("cannot reduce over a zero-size dimension (no identity)");
      expect_dtype(out, x.dtype, "out");
      visit_math_dtype(x.dtype, [&](auto tag) {
        enqueue_extreme<decltype(tag)>(ctx, op == Reduce::Max, x, out, std::move(plan));
      });
    } else {
      visit_math_dtype(x.dtype, [&](auto in_tag) {
        visit_math_dtype(out.dtype, [&](auto out_tag) {
          enqueue_sum_or_mean<decltype(in_tag), decltype(out_tag)>(ctx, op, x, out, std::move(plan));
        });
      });
    }
  });
}

}  // namespace

OarKernelFn reduce_kernel(Reduce op) {
  switch (op) {
    case Reduce::Sum: return &reduce_impl<Reduce::Sum>;
    case Reduce::Mean: return &reduce_impl<Reduce::Mean>;
    case Reduce::Max: return &reduce_impl<Reduce::Max>;
    case Reduce::Min: return &reduce_impl<Reduce::Min>;
    case Reduce::kCount: break;
  }
  return nullptr;
}

}  // namespace oar_custom_cpu
