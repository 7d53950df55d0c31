// Ordering and scattering along an axis: argsort, topk_indices, put_along_axis_base.
// Contract: see kernels.h. x may be any strided view; outputs are contiguous. The order is the
// host's (oar/kernels/cpu/search.cc): ascending with NaN last (descending: NaN first), -0 equal
// to +0, ties by index, so the result does not depend on the sort. put_along_axis_base follows
// oar/kernels/cpu/along_axis.cc; an index outside [-n, n) is skipped (the host raises; a device
// kernel cannot report after it runs).
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {
namespace {

// A key whose unsigned order is the value order: NaN above +inf, -0 equal to +0.
template <typename T>
uint64_t order_key(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v;
  } else if constexpr (is_floating_v<T>) {
    const double d = convert<double>(v);
    if (d != d) return ~uint64_t{0};
    const double z = d == 0 ? 0.0 : d;
    uint64_t b;
    std::memcpy(&b, &z, 8);
    return (b >> 63) ? ~b : b | (uint64_t{1} << 63);
  } else {
    return static_cast<uint64_t>(static_cast<int64_t>(v)) ^ (uint64_t{1} << 63);
  }
}

int normalize_axis(int64_t a, int nd) {
  if (nd == 0 && (a == 0 || a == -1)) return 0;
  if (a < -nd || a >= nd) fail("axis %lld is out of range for %d dimensions", static_cast<long long>(a), nd);
  return static_cast<int>(a < 0 ? a + nd : a);
}

// For every slice along `axis` of x: the indices of its first k elements in order, written into
// out as [.., k, ..] (out contiguous, x's shape with the axis holding k).
void order_slices(const OarKernelContext* ctx, const TensorDesc& x, const TensorDesc& out, int axis, int64_t k,
                  bool descending) {
  expect_dtype(out, OAR_INT64, "out");
  expect_contiguous(out, "out");
  const int nd = x.ndim();
  std::vector<int64_t> want = x.shape;
  if (nd > 0) want[axis] = k;
  expect_shape(out, want, "out");
  const int64_t n = nd == 0 ? 1 : x.shape[axis];
  if (k < 0 || k > n) fail("k = %lld is out of range for %lld elements", static_cast<long long>(k), static_cast<long long>(n));
  // One walk over the slices: x's shape with the axis collapsed.
  std::vector<int64_t> rows_shape = x.shape;
  if (nd > 0) rows_shape[axis] = 1;
  const std::vector<int64_t> out_strides = contiguous_strides(want);
  const StridedWalker<2> rows(rows_shape, {x.strides, out_strides});
  const int64_t x_step = nd == 0 ? 0 : x.strides[axis], o_step = nd == 0 ? 0 : out_strides[axis];
  visit_math_dtype(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.as<const T>();
    int64_t* op = out.as<int64_t>();
    const uint64_t flip = descending ? ~uint64_t{0} : 0;
    launch(ctx, [rows, xp, op, n, k, x_step, o_step, flip] {
      std::vector<std::pair<uint64_t, int64_t>> keyed(static_cast<size_t>(n));
      rows.run([&](const std::array<int64_t, 2>& off) {
        for (int64_t j = 0; j < n; ++j) keyed[j] = {order_key(xp[off[0] + j * x_step]) ^ flip, j};
        std::partial_sort(keyed.begin(), keyed.begin() + k, keyed.end());
        for (int64_t j = 0; j < k; ++j) op[off[1] + j * o_step] = keyed[j].second;
      });
    });
  });
}

enum class PutReduce { Assign, Add, Mul, Mean, Max, Min };

PutReduce parse_reduce(const std::string& r) {
  if (r == "assign") return PutReduce::Assign;
  if (r == "add") return PutReduce::Add;
  if (r == "mul" || r == "multiply") return PutReduce::Mul;
  if (r == "mean") return PutReduce::Mean;
  if (r == "amax") return PutReduce::Max;
  if (r == "amin") return PutReduce::Min;
  fail("reduce must be one of 'assign', 'add', 'mul', 'multiply', 'mean', 'amax', 'amin', got '%s'", r.c_str());
}

}  // namespace

// argsort: x; axis, descending, stable (every order here is stable). out int64, x's shape.
OarStatus argsort_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    const int axis = normalize_axis(int_attr(ctx, "axis", -1), x.ndim());
    order_slices(ctx, x, out, axis, x.ndim() == 0 ? 1 : x.shape[axis], bool_attr(ctx, "descending", false));
  });
}

// topk_indices: x; k, axis, largest. out int64: the indices of the k largest (smallest) in order.
OarStatus topk_indices_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    const int axis = normalize_axis(int_attr(ctx, "axis", -1), x.ndim());
    order_slices(ctx, x, out, axis, int_attr(ctx, "k", 1), bool_attr(ctx, "largest", true));
  });
}

// put_along_axis_base: arr, indices, values (indices' shape); axis, reduce, include_self.
// out = arr, then each value goes to its index along the axis (reduced as asked, in order).
OarStatus put_along_axis_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc arr = input(ctx, 0, "arr"), indices = input(ctx, 1, "indices"), values = input(ctx, 2, "values");
    const TensorDesc out = output(ctx);
    if (indices.dtype != OAR_INT32 && indices.dtype != OAR_INT64) fail("indices must be int32 or int64");
    expect_dtype(values, arr.dtype, "values");
    expect_shape(values, indices.shape, "values");
    expect_dtype(out, arr.dtype, "out");
    expect_shape(out, arr.shape, "out");
    expect_contiguous(out, "out");
    const int nd = arr.ndim();
    if (nd == 0 || indices.ndim() != nd) fail("arr and indices must have the same number (> 0) of dimensions");
    const int axis = normalize_axis(int_attr(ctx, "axis", 0), nd);
    for (int d = 0; d < nd; ++d)
      if (d != axis && indices.shape[d] > arr.shape[d])
        fail("indices %s does not fit arr %s", shape_str(indices.shape).c_str(), shape_str(arr.shape).c_str());
    const PutReduce red = parse_reduce([&] {
      const OarAttr* a = find_attr(ctx, "reduce");
      return std::string(a != nullptr && a->kind == OAR_ATTR_STRING && a->s != nullptr ? a->s : "assign");
    }());
    const bool include_self = bool_attr(ctx, "include_self", true);
    // out's offset of an indices position (the axis coordinate added from the index value).
    std::vector<int64_t> out_strides = contiguous_strides(arr.shape);
    const int64_t axis_stride = out_strides[axis], n = arr.shape[axis];
    out_strides[axis] = 0;
    const StridedWalker<2> copy_walk(arr.shape, {contiguous_strides(arr.shape), arr.strides});
    const StridedWalker<3> put_walk(indices.shape, {out_strides, indices.strides, values.strides});
    const bool i64 = indices.dtype == OAR_INT64;
    const char* ip = indices.data;
    visit_math_dtype(arr.dtype, [&](auto tag) {
      using T = decltype(tag);
      using C = compute_t<T>;
      const T* ap = arr.as<const T>();
      const T* vp = values.as<const T>();
      T* op = out.as<T>();
      const int64_t total = out.numel;
      launch(ctx, [copy_walk, put_walk, ap, vp, op, ip, i64, axis_stride, n, red, include_self, total] {
        copy_walk.run([&](const std::array<int64_t, 2>& off) { op[off[0]] = ap[off[1]]; });
        std::vector<int64_t> count;
        std::vector<char> touched;
        if (red == PutReduce::Mean || !include_self) {
          count.assign(static_cast<size_t>(total), include_self ? 1 : 0);
          touched.assign(static_cast<size_t>(total), 0);
        }
        put_walk.run([&](const std::array<int64_t, 3>& off) {
          int64_t i = i64 ? reinterpret_cast<const int64_t*>(ip)[off[1]] : reinterpret_cast<const int32_t*>(ip)[off[1]];
          if (i < -n || i >= n) return;
          if (i < 0) i += n;
          const int64_t at = off[0] + i * axis_stride;
          T& dst = op[at];
          const C val = static_cast<C>(vp[off[2]]);
          if (red == PutReduce::Assign) {
            dst = convert<T>(val);
            return;
          }
          if (!include_self && !touched[at]) {  // the first value replaces arr's
            touched[at] = 1;
            dst = convert<T>(val);
            if (red == PutReduce::Mean) count[at] = 1;
            return;
          }
          const C cur = static_cast<C>(dst);
          switch (red) {
            case PutReduce::Add: case PutReduce::Mean:
              if constexpr (std::is_same_v<T, bool>) dst = cur || val;
              else if constexpr (is_int_v<T>) dst = wrap_add(cur, val);
              else dst = convert<T>(cur + val);
              break;
            case PutReduce::Mul:
              if constexpr (std::is_same_v<T, bool>) dst = cur && val;
              else if constexpr (is_int_v<T>) dst = wrap_mul(cur, val);
              else dst = convert<T>(cur * val);
              break;
            case PutReduce::Max: dst = convert<T>(val > cur ? val : cur); break;
            case PutReduce::Min: dst = convert<T>(val < cur ? val : cur); break;
            default: break;
          }
          if (red == PutReduce::Mean) ++count[at];
        });
        if (red == PutReduce::Mean)
          for (int64_t p = 0; p < total; ++p)
            if (count[p] > 1) {
              if constexpr (std::is_same_v<T, bool>) continue;
              else op[p] = convert<T>(static_cast<C>(op[p]) / static_cast<C>(count[p]));
            }
      });
    });
  });
}

}  // namespace oar_custom_cpu
