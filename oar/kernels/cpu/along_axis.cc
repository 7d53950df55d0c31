#include "oar/kernels/cpu/along_axis.h"

#include <algorithm>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/index.h"

namespace oar::kernels {
namespace {

// Element offsets (in elements) of every position of `shape` in a tensor with `strides`,
// skipping dim `axis`: the start of each 1-D slice along axis, in row-major order.
std::vector<int64_t> slice_starts(const Shape& shape, const Strides& strides, int64_t axis) {
  std::vector<int64_t> starts{0};
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d == axis) continue;
    std::vector<int64_t> next;
    next.reserve(starts.size() * shape[d]);
    for (int64_t s : starts)
      for (int64_t k = 0; k < shape[d]; ++k) next.push_back(s + k * strides[d]);
    starts.swap(next);
  }
  return starts;
}

enum class Reduce { Assign, Add, Mul, Mean, Max, Min };

Reduce parse_reduce(const std::string& r) {
  if (r == "assign") return Reduce::Assign;
  if (r == "add") return Reduce::Add;
  if (r == "mul" || r == "multiply") return Reduce::Mul;
  if (r == "mean") return Reduce::Mean;
  if (r == "amax") return Reduce::Max;
  if (r == "amin") return Reduce::Min;
  OAR_THROW(InvalidArgument, "put_along_axis: argument 'reduce' must be one of 'assign', 'add', ",
            "'mul', 'multiply', 'mean', 'amax', 'amin', got '", r, "'");
}

}  // namespace

void take_along_axis(const Tensor& arr, const Tensor& indices, int64_t axis, const Tensor& out) {
  if (out.numel() == 0) return;
  const int64_t n = arr.shape()[axis];
  const std::vector<int64_t> idx = read_index("take_along_axis", "indices", indices, n, axis);
  const Shape& is = indices.shape();
  const int64_t m = is[axis];
  const std::vector<int64_t> arr_starts = slice_starts(is, arr.strides(), axis);
  // idx and out are row-major over indices' shape: slice s, position j sits at
  // (s / inner) * m * inner + j * inner + s % inner.
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < static_cast<int64_t>(is.size()); ++d) inner *= is[d];
  const int64_t as = arr.strides()[axis];
  dispatch_all(arr.dtype(), "take_along_axis", [&](auto tag) {
    using T = decltype(tag);
    const T* a = static_cast<const T*>(arr.raw_data());
    T* o = out.data<T>();
    const int64_t slices = static_cast<int64_t>(arr_starts.size());
    parallel_for(0, slices, std::max<int64_t>(1, 16384 / std::max<int64_t>(m, 1)), [&](int64_t b, int64_t e) {
      for (int64_t s = b; s < e; ++s) {
        const int64_t base = (s / inner) * m * inner + s % inner;
        for (int64_t j = 0; j < m; ++j) {
          const int64_t k = base + j * inner;
          o[k] = a[arr_starts[s] + idx[k] * as];
        }
      }
    });
  });
}

void put_along_axis(const Tensor& arr, const Tensor& indices, const Tensor& values, int64_t axis,
                    const std::string& reduce, bool include_self, const Tensor& out) {
  const Reduce red = parse_reduce(reduce);
  copy(arr, out);  // out is contiguous, arr's shape
  if (indices.numel() == 0) return;
  const int64_t n = out.shape()[axis];
  const std::vector<int64_t> idx = read_index("put_along_axis", "indices", indices, n, axis);
  const Tensor vals = values.contiguous();
  const Shape& is = indices.shape();
  const int64_t m = is[axis];
  const std::vector<int64_t> out_starts = slice_starts(is, out.strides(), axis);
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < static_cast<int64_t>(is.size()); ++d) inner *= is[d];
  const int64_t os = out.strides()[axis];
  dispatch_real_bool(out.dtype(), "put_along_axis", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    T* o = out.data<T>();
    const T* v = static_cast<const T*>(vals.raw_data());
    const int64_t slices = static_cast<int64_t>(out_starts.size());
    // Slices are disjoint, so they run in parallel; within one slice writes happen in order.
    parallel_for(0, slices, std::max<int64_t>(1, 16384 / std::max<int64_t>(m, 1)), [&](int64_t b, int64_t e) {
      std::vector<int64_t> count;
      std::vector<char> touched;
      for (int64_t s = b; s < e; ++s) {
        const int64_t base = (s / inner) * m * inner + s % inner;
        T* row = o + out_starts[s];
        if (red == Reduce::Mean || !include_self) {
          count.assign(n, include_self ? 1 : 0);
          touched.assign(n, 0);
        }
        for (int64_t j = 0; j < m; ++j) {
          const int64_t k = base + j * inner;
          T& dst = row[idx[k] * os];
          const C val = static_cast<C>(v[k]);
          if (red == Reduce::Assign) {
            dst = static_cast<T>(val);
            continue;
          }
          if (!include_self && !touched[idx[k]]) {  // the first value replaces arr's
            touched[idx[k]] = 1;
            dst = static_cast<T>(val);
            if (red == Reduce::Mean) count[idx[k]] = 1;
            continue;
          }
          const C cur = static_cast<C>(dst);
          switch (red) {
            case Reduce::Add: case Reduce::Mean: dst = static_cast<T>(cur + val); break;
            case Reduce::Mul: dst = static_cast<T>(cur * val); break;
            case Reduce::Max: dst = static_cast<T>(val > cur ? val : cur); break;
            case Reduce::Min: dst = static_cast<T>(val < cur ? val : cur); break;
            default: break;
          }
          if (red == Reduce::Mean) ++count[idx[k]];
        }
        if (red == Reduce::Mean)
          for (int64_t p = 0; p < n; ++p)
            if (count[p] > 1) row[p * os] = static_cast<T>(static_cast<C>(row[p * os]) / static_cast<C>(count[p]));
      }
    });
  });
}

}  // namespace oar::kernels
