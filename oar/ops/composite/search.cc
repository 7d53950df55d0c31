// Composite ops of the search family (oar/ops/specs/search.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include <algorithm>

#include "oar/ops/composite/composite.h"

#include "oar/ops/infer_meta/index.h"
#include "oar/ops/infer_meta/search.h"

namespace OAR_COMPOSITE_NAMESPACE {

Tensor msort(const Tensor& input) { return sort(input, 0, false, true); }

std::tuple<Tensor, Tensor> topk(const Tensor& x, int64_t k, std::optional<int64_t> axis, bool largest,
                                bool sorted) {
  const int64_t a = axis ? *axis : -1;
  const Tensor idx = topk_indices(x, k, a, largest);
  if (x.ndim() == 0) return {assign(x), idx};
  return {take_along_axis_base(x, idx, infer_meta::sort_axis("topk", x, a)), idx};
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, std::optional<int64_t> axis, bool keepdim) {
  const int64_t a = infer_meta::sort_axis("kthvalue", x, axis ? *axis : -1);
  const int64_t n = x.ndim() ? x.shape()[a] : 1;
  OAR_ENFORCE_ARG(k >= 1 && k <= n, "kthvalue: argument 'k' must be in [1, ", n, "] (the size ", "of axis ",
                  a, " of x, shape ", shape_str(x.shape()), "), got ", k);
  if (x.ndim() == 0) return {assign(x), zeros(IntArray{}, DType::Int64)};
  Tensor idx = slice(argsort(x, a, false, true), {a}, {k - 1}, {k});
  Tensor val = take_along_axis_base(x, idx, a);
  if (!keepdim) return {squeeze(val, {a}), squeeze(idx, {a})};
  return {val, idx};
}

Tensor bucketize(const Tensor& x, const Tensor& sorted_sequence, bool out_int32, bool right) {
  OAR_ENFORCE_ARG(sorted_sequence.ndim() == 1, "bucketize: argument 'sorted_sequence' must be ",
                  "1-D, got shape ", shape_str(sorted_sequence.shape()));
  return searchsorted(sorted_sequence, x, out_int32, right);
}

Tensor take_along_axis(const Tensor& arr, const Tensor& indices, int64_t axis, bool broadcast) {
  infer_meta::check_index_dtype("take_along_axis", "indices", indices);
  OAR_ENFORCE_ARG(arr.ndim() == indices.ndim(), "take_along_axis: 'indices' and 'arr' must have ",
                  "the same number of dimensions, got ", shape_str(indices.shape()), " and ",
                  shape_str(arr.shape()));
  if (!broadcast || arr.ndim() == 0) return take_along_axis_base(arr, indices, axis);
  const int64_t a = normalize_axis(axis, arr.ndim(), "take_along_axis");
  Shape is = indices.shape(), as = arr.shape();
  for (int64_t d = 0; d < arr.ndim(); ++d) {
    if (d == a) continue;
    const int64_t m =
        arr.shape()[d] == 0 || indices.shape()[d] == 0 ? 0 : std::max(arr.shape()[d], indices.shape()[d]);
    is[d] = as[d] = m;
  }
  return take_along_axis_base(broadcast_to(arr, as), broadcast_to(indices, is), a);
}

Tensor put_along_axis(const Tensor& arr, const Tensor& indices, const Tensor& values, int64_t axis,
                      const std::string& reduce, bool include_self, bool broadcast) {
  infer_meta::check_index_dtype("put_along_axis", "indices", indices);
  OAR_ENFORCE_ARG(arr.ndim() == indices.ndim(), "put_along_axis: 'indices' and 'arr' must have ",
                  "the same number of dimensions, got ", shape_str(indices.shape()), " and ",
                  shape_str(arr.shape()));
  const Tensor v = values.dtype() == arr.dtype() ? values : cast(values, arr.dtype());
  if (!broadcast || arr.ndim() == 0)
    return put_along_axis_base(arr, indices, broadcast_to(v, indices.shape()), axis, reduce, include_self);
  const int64_t a = normalize_axis(axis, arr.ndim(), "put_along_axis");
  Shape is = arr.shape();
  is[a] = indices.shape()[a];
  const Tensor idx = broadcast_to(indices, is);
  return put_along_axis_base(arr, idx, broadcast_to(v, is), a, reduce, include_self);
}

Tensor sort(const Tensor& x, int64_t axis, bool descending, bool stable) {
  const Tensor idx = argsort(x, axis, descending, stable);
  if (x.ndim() == 0) return assign(x);
  return take_along_axis_base(x, idx, infer_meta::sort_axis("sort", x, axis));
}

}  // namespace OAR_COMPOSITE_NAMESPACE
