// Reductions: sum, mean, max, min (amax, amin), prod, all, any, logsumexp, p_norm over a set
// of axes; argmax and argmin over one axis or all.
// Contract: see kernels.h. One pass over x's elements with the StridedWalker, each element
// accumulated into its output slot (the reduced axes have output stride 0). Accumulators:
// double for float outputs, wrapping int64 for integer and bool outputs; sum and prod convert
// each element to the output dtype first (sum(bool) counts into int64 when out is int64), as
// the host does. mean divides by the number of reduced elements (integers truncate toward zero,
// a bool mean is any(x), an empty float mean is NaN); max and min propagate NaN and refuse an
// empty set. Empty sets give the identities otherwise (prod 1, all true, any false, logsumexp
// -inf, a p-norm 0, or inf for p < 0), except the +-inf norms, which refuse one as the host.
#include <array>
#include <cmath>
#include <optional>
#include <limits>
#include <memory>
#include <string_view>
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
    if constexpr (op == Reduce::Prod || op == Reduce::All || op == Reduce::Any || op == Reduce::LogSumExp ||
                  op == Reduce::PNorm) {
      enqueue_more<op>(ctx, x, out, std::move(plan));
    } else if constexpr (op == Reduce::Max || op == Reduce::Min) {
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

// acc[slot] = step(acc[slot], x) over the slot's elements from `init`, then out[slot] =
// finish(acc[slot]).
template <typename In, typename Out, typename Acc, typename Step, typename Finish>
void enqueue_fold(const OarKernelContext* ctx, const TensorDesc& x, const TensorDesc& out, ReducePlan plan, Acc init,
                  Step step, Finish finish) {
  const In* xp = x.as<const In>();
  Out* op_out = out.as<Out>();
  launch(ctx, [plan = std::move(plan), xp, op_out, init, step, finish] {
    std::vector<Acc> acc(plan.slots, init);
    plan.walk.run([&](const std::array<int64_t, 2>& off) { acc[off[1]] = step(acc[off[1]], xp[off[0]]); });
    for (int64_t i = 0; i < plan.slots; ++i) op_out[i] = finish(acc[i]);
  });
}

// log(sum(exp(x))) in one pass, as the host: (m, s) with s = sum(exp(x - m)) and m the running
// max, rescaled when the max grows; -inf adds nothing, +inf gives +inf, NaN gives NaN.
struct Lse {
  double m = -INFINITY, s = 0;
};
inline Lse lse_add(Lse a, double x) {
  if (x != x || a.m != a.m) return {x + a.m, x + a.m};
  if (x > a.m) {
    a.s = (a.m == -INFINITY ? 0.0 : a.s * std::exp(a.m - x)) + 1.0;
    a.m = x;
  } else if (x == a.m) {
    a.s += 1.0;
  } else {
    a.s += std::exp(x - a.m);
  }
  return a;
}

// max/min with NaN propagation, as the host's norms.
inline double pick(double a, double x, bool is_max) {
  const bool better = is_max ? x > a : x < a;
  return (better || x != x) ? x : a;
}

template <Reduce op>
void enqueue_more(const OarKernelContext* ctx, const TensorDesc& x, const TensorDesc& out, ReducePlan plan) {
  if constexpr (op == Reduce::Prod) {
    visit_math_dtype(x.dtype, [&](auto in_tag) {
      using In = decltype(in_tag);
      visit_math_dtype(out.dtype, [&](auto out_tag) {
        using Out = decltype(out_tag);
        using Acc = std::conditional_t<is_floating_v<Out>, double, int64_t>;
        enqueue_fold<In, Out>(
            ctx, x, out, std::move(plan), Acc(1),
            [](Acc a, In v) {
              const Acc b = convert<Acc>(convert<Out>(v));
              if constexpr (is_floating_v<Out>) return Acc(a * b);
              else return wrap_mul(a, b);
            },
            [](Acc a) { return convert<Out>(a); });
      });
    });
  } else if constexpr (op == Reduce::All || op == Reduce::Any) {
    expect_dtype(out, OAR_BOOL, "out");
    visit_storage_dtype(x.dtype, [&](auto in_tag) {
      using In = decltype(in_tag);
      constexpr bool all = op == Reduce::All;
      enqueue_fold<In, bool>(
          ctx, x, out, std::move(plan), all,
          [](bool a, In v) { return all ? (a && convert<bool>(v)) : (a || convert<bool>(v)); },
          [](bool a) { return a; });
    });
  } else if constexpr (op == Reduce::LogSumExp) {
    expect_dtype(out, x.dtype, "out");
    visit_float_dtype(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      enqueue_fold<T, T>(
          ctx, x, out, std::move(plan), Lse{}, [](Lse a, T v) { return lse_add(a, convert<double>(v)); },
          [](Lse a) { return convert<T>(a.m + std::log(a.s)); });
    });
  } else {
    static_assert(op == Reduce::PNorm);
    expect_dtype(out, x.dtype, "out");
    const double p = float_attr(ctx, "porder", 2.0);
    if (std::isinf(p) && plan.count == 0 && plan.slots > 0)
      fail("cannot take the %sinf norm over a zero-size dimension", p > 0 ? "" : "-");
    visit_float_dtype(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      const double init = std::isinf(p) && p < 0 ? INFINITY : 0.0;
      enqueue_fold<T, T>(
          ctx, x, out, std::move(plan), init,
          [p](double a, T v) {
            const double m = std::fabs(convert<double>(v));
            if (std::isinf(p)) return pick(a, m, p > 0);
            if (p == 0) return a + (m != 0 ? 1.0 : 0.0);
            if (p == 1) return a + m;
            if (p == 2) return a + m * m;
            return a + std::pow(m, p);
          },
          [p](double a) {
            if (std::isinf(p) || p == 0 || p == 1) return convert<T>(a);
            if (p == 2) return convert<T>(std::sqrt(a));
            return convert<T>(std::pow(a, 1.0 / p));
          });
    });
  }
}

}  // namespace

OarKernelFn reduce_kernel(Reduce op) {
  switch (op) {
    case Reduce::Sum: return &reduce_impl<Reduce::Sum>;
    case Reduce::Mean: return &reduce_impl<Reduce::Mean>;
    case Reduce::Max: return &reduce_impl<Reduce::Max>;
    case Reduce::Min: return &reduce_impl<Reduce::Min>;
    case Reduce::Prod: return &reduce_impl<Reduce::Prod>;
    case Reduce::All: return &reduce_impl<Reduce::All>;
    case Reduce::Any: return &reduce_impl<Reduce::Any>;
    case Reduce::LogSumExp: return &reduce_impl<Reduce::LogSumExp>;
    case Reduce::PNorm: return &reduce_impl<Reduce::PNorm>;
    case Reduce::kCount: break;
  }
  return nullptr;
}

}  // namespace oar_custom_cpu

namespace oar_custom_cpu {

// argmax / argmin: x; axis (None: over all elements, flattened row-major), keepdim; out int32 or
// int64 (its dtype is the `dtype` argument). The first best index wins; NaN is passed over
// unless every value is NaN (index 0), as the host.
OarStatus arg_reduce_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const bool is_min = std::string_view(op_name(ctx)) == "argmin";
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    expect_contiguous(out, "out");
    const int nd = x.ndim();
    const OarAttr* axis_attr = find_attr(ctx, "axis");
    std::optional<int> axis;
    if (axis_attr != nullptr) {
      const int64_t a = int_attr(ctx, "axis", 0);
      if (nd == 0 ? (a != 0 && a != -1) : (a < -nd || a >= nd))
        fail("axis %lld is out of range for x with %d dimensions", static_cast<long long>(a), nd);
      if (nd > 0) axis = static_cast<int>(a < 0 ? a + nd : a);
    }
    // position: the index reported (along the axis, or the flat index); slot: the output element.
    std::vector<int64_t> pos_strides(nd, 0), slot_strides(nd, 0);
    int64_t slots = 1;
    if (axis) {
      std::vector<int64_t> kept;
      for (int d = 0; d < nd; ++d)
        if (d != *axis) kept.push_back(x.shape[d]);
      const std::vector<int64_t> ks = contiguous_strides(kept);
      for (int d = 0, k = 0; d < nd; ++d) {
        if (d == *axis) pos_strides[d] = 1;
        else slot_strides[d] = ks[k++];
      }
      slots = shape_numel(kept);
    } else {
      pos_strides = contiguous_strides(x.shape);
    }
    if (out.numel != slots) fail("out has %lld elements, expected %lld", static_cast<long long>(out.numel),
                                 static_cast<long long>(slots));
    if (x.numel == 0 && slots > 0) fail("cannot take the %s over a zero-size dimension", is_min ? "min" : "max");
    const StridedWalker<3> walk(x.shape, {x.strides, slot_strides, pos_strides});
    visit_math_dtype(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      using C = compute_t<T>;
      const T* xp = x.as<const T>();
      auto run = [&](auto idx_tag) {
        using I = decltype(idx_tag);
        I* o = out.as<I>();
        launch(ctx, [walk, xp, o, slots, is_min] {
          std::unique_ptr<C[]> best(new C[slots]);  // not vector: vector<bool> has no C&
          std::vector<int64_t> at(slots, -1);
          walk.run([&](const std::array<int64_t, 3>& off) {
            const C v = static_cast<C>(xp[off[0]]);
            int64_t& i = at[off[1]];
            C& b = best[off[1]];
            bool take = i < 0;
            if (!take) {
              const bool better = is_min ? v < b : v > b;
              if constexpr (is_floating_v<T>) take = v == v && (better || b != b);
              else take = better;
            }
            if (take) {
              b = v;
              i = off[2];
            }
          });
          for (int64_t s = 0; s < slots; ++s) o[s] = static_cast<I>(at[s]);
        });
      };
      if (out.dtype == OAR_INT64) run(int64_t{});
      else if (out.dtype == OAR_INT32) run(int32_t{});
      else fail("out must be int32 or int64, got %s", dtype_name(out.dtype));
    });
  });
}

}  // namespace oar_custom_cpu
