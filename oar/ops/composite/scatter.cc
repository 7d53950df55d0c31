// Composite ops of the scatter family (oar/ops/specs/scatter.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include <limits>
#include <algorithm>

#include "oar/ops/composite/composite.h"

#include "oar/ops/infer_meta/index.h"

namespace OAR_COMPOSITE_NAMESPACE {

Tensor gather_nd(const Tensor& x, const Tensor& index) {
  infer_meta::check_index_dtype("gather_nd", "index", index);
  OAR_ENFORCE_ARG(index.ndim() >= 1, "gather_nd: argument 'index' must be at least 1-D, got a ",
                  "0-D tensor");
  const int64_t k = index.shape().back();
  OAR_ENFORCE_ARG(k <= x.ndim(), "gather_nd: the last dim of 'index' (", k, ") must not exceed ",
                  "the rank of x (shape ", shape_str(x.shape()), ")");
  if (k == 0) {  // every index picks the whole of x
    Shape s(index.shape().begin(), index.shape().end() - 1);
    s.insert(s.end(), x.shape().begin(), x.shape().end());
    return broadcast_to(x, s);
  }
  return index_tensor(x, unbind(index, -1));
}

Tensor scatter_nd(const Tensor& index, const Tensor& updates, const IntArray& shape) {
  return scatter_nd_add(zeros(shape, updates.dtype()), index, updates);
}

Tensor scatter(const Tensor& x, const Tensor& index, const Tensor& updates, bool overwrite) {
  infer_meta::check_index_dtype("scatter", "index", index);
  OAR_ENFORCE_ARG(index.ndim() <= 1 || (index.ndim() == 2 && index.shape()[1] == 1),
                  "scatter: argument 'index' must be 1-D, got shape ", shape_str(index.shape()));
  OAR_ENFORCE_ARG(x.ndim() >= 1, "scatter: argument 'x' must be at least 1-D");
  const Tensor idx = reshape_exact(index, {index.numel()});
  Shape want = x.shape();
  want[0] = idx.numel();
  const Tensor up = updates.ndim() == x.ndim() - 1 && idx.numel() == 1 ? unsqueeze(updates, {0}) : updates;
  OAR_ENFORCE_ARG(up.shape() == want, "scatter: 'updates' must have shape ", shape_str(want),
                  " ([len(index)] + x.shape[1:]), got ", shape_str(updates.shape()));
  if (overwrite) return index_put(x, {idx}, up, false);
  return index_put(index_put(x, {idx}, zeros(IntArray{}, x.dtype()), false), {idx}, up, true);
}

Tensor index_sample(const Tensor& x, const Tensor& index) {
  OAR_ENFORCE_ARG(x.ndim() == 2 && index.ndim() == 2 && x.shape()[0] == index.shape()[0],
                  "index_sample: x and index must be 2-D with the same first dim, got ", shape_str(x.shape()),
                  " and ", shape_str(index.shape()));
  return take_along_axis_base(x, index, 1);
}

Tensor take(const Tensor& x, const Tensor& index, const std::string& mode) {
  infer_meta::check_index_dtype("take", "index", index);
  OAR_ENFORCE_ARG(mode == "raise" || mode == "wrap" || mode == "clip", "take: argument 'mode' ",
                  "must be 'raise', 'wrap' or 'clip', got '", mode, "'");
  const int64_t n = x.numel();
  Tensor idx = index;
  if (mode == "wrap")
    idx = remainder(index, full(IntArray{}, n, index.dtype()));
  else if (mode == "clip")
    idx = clip(index, 0, n - 1);
  return index_tensor(reshape_exact(x, {n}), {idx});
}

Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, std::optional<int64_t> axis) {
  const Tensor src = axis ? x : reshape_exact(x, {x.numel()});
  const int64_t a = axis ? normalize_axis(*axis, std::max<int64_t>(x.ndim(), 1), "repeat_interleave") : 0;
  const int64_t n = src.ndim() ? src.shape()[a] : 1;
  infer_meta::check_index_dtype("repeat_interleave", "repeats", repeats);
  OAR_ENFORCE_ARG(repeats.numel() == 1 || repeats.numel() == n, "repeat_interleave: 'repeats' must hold one ",
                  "count or ", n, " (one per element along the axis), got ", repeats.numel());
  return index_select(src.ndim() ? src : reshape_exact(src, {1}), repeat_interleave_index(repeats, n), a);
}

Tensor index_fill(const Tensor& x, const Tensor& index, int64_t axis, const Scalar& value) {
  infer_meta::check_index_dtype("index_fill", "index", index);
  const int64_t a = normalize_axis(axis, std::max<int64_t>(x.ndim(), 1), "index_fill");
  const int64_t n = x.ndim() ? x.shape()[a] : 1;
  Tensor hit = index_put(zeros({n}, DType::Bool), {reshape_exact(index, {index.numel()})},
                         full(IntArray{}, true, DType::Bool), false);
  std::vector<int64_t> s(std::max<int64_t>(x.ndim(), 1), 1);
  s[a] = n;
  return where(reshape_exact(hit, IntArray(s)), full(IntArray{}, value, x.dtype()), x);
}

Tensor scatter_add(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src) {
  return put_along_axis(input, index, src, dim, "add", true, false);
}

Tensor scatter_reduce(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self) {
  const std::string r = reduce == "sum" ? "add" : reduce == "prod" ? "mul" : reduce;
  OAR_ENFORCE_ARG(r == "add" || r == "mul" || r == "mean" || r == "amin" || r == "amax",
                  "scatter_reduce: argument 'reduce' must be 'sum', 'prod', 'mean', 'amin' or ",
                  "'amax', got '", reduce, "'");
  return put_along_axis(input, index, src, dim, r, include_self, false);
}

Tensor select_scatter(const Tensor& x, const Tensor& values, int64_t axis, int64_t index) {
  OAR_ENFORCE_ARG(x.ndim() >= 1, "select_scatter: argument 'x' must have at least one dim, got a 0-D tensor");
  const int64_t a = normalize_axis(axis, x.ndim(), "select_scatter");
  const int64_t n = x.shape()[a];
  OAR_ENFORCE(index >= -n && index < n, OutOfRange, "select_scatter: argument 'index' (", index,
              ") is out of range for axis ", a, " of size ", n);
  Shape vs = x.shape();
  vs.erase(vs.begin() + a);
  OAR_ENFORCE_ARG(values.shape() == vs, "select_scatter: 'values' must have shape ", shape_str(vs),
                  " (x's shape without axis ", a, "), got ", shape_str(values.shape()));
  const int64_t i = index < 0 ? index + n : index;
  std::vector<int64_t> s(x.ndim(), 1);
  s[a] = n;
  Tensor mask =
      equal(reshape_exact(arange(0, n, 1, DType::Int64), IntArray(s)), full(IntArray{}, i, DType::Int64));
  return where(mask, unsqueeze(cast(values, x.dtype()), {a}), x);
}

Tensor diag_embed(const Tensor& input, int64_t offset, int64_t dim1, int64_t dim2) {
  OAR_ENFORCE_ARG(input.ndim() >= 1, "diag_embed: argument 'input' must be at least 1-D");
  const int64_t nd = input.ndim() + 1;
  const int64_t d1 = normalize_axis(dim1, nd, "diag_embed", "dim1"),
                d2 = normalize_axis(dim2, nd, "diag_embed", "dim2");
  OAR_ENFORCE_ARG(d1 != d2, "diag_embed: 'dim1' and 'dim2' must differ, got ", dim1, " and ", dim2);
  OAR_ENFORCE(offset != std::numeric_limits<int64_t>::min(), ResourceExhausted,
              "diag_embed: argument 'offset' (", offset, ") is too large");
  const int64_t n = input.shape().back(), k = offset < 0 ? -offset : offset;
  const int64_t m = checked_add(n, k, "diag_embed", "the matrix size");
  Shape ps = input.shape();
  ps.back() = k;
  const Tensor pad = zeros(ps, input.dtype());
  const Tensor v =
      k == 0 ? input
             : concat(offset > 0 ? std::vector<Tensor>{pad, input} : std::vector<Tensor>{input, pad}, -1);
  // M[..., i, j] = v[..., j] where j - i == offset.
  const Tensor rows = reshape_exact(arange(0, m, 1, DType::Int64), {m, 1});
  const Tensor cols = reshape_exact(arange(0, m, 1, DType::Int64), {1, m});
  const Tensor on = equal(subtract(cols, rows), full(IntArray{}, offset, DType::Int64));
  Tensor out = where(on, unsqueeze(v, {-2}), zeros(IntArray{}, input.dtype()));
  // out's matrix dims are the last two: move them to (d1, d2).
  std::vector<int64_t> perm(nd, -1);
  perm[d1] = nd - 2;
  perm[d2] = nd - 1;
  int64_t next = 0;
  for (int64_t d = 0; d < nd; ++d)
    if (perm[d] < 0) perm[d] = next++;
  return transpose(out, IntArray(perm));
}

Tensor scatter_nd_add(const Tensor& x, const Tensor& index, const Tensor& updates) {
  infer_meta::check_index_dtype("scatter_nd_add", "index", index);
  OAR_ENFORCE_ARG(index.ndim() >= 1 && index.shape().back() >= 1 && index.shape().back() <= x.ndim(),
                  "scatter_nd_add: the last dim of 'index' ", shape_str(index.shape()),
                  " must be in [1, rank of x] (x's shape ", shape_str(x.shape()), ")");
  Shape want(index.shape().begin(), index.shape().end() - 1);
  want.insert(want.end(), x.shape().begin() + index.shape().back(), x.shape().end());
  OAR_ENFORCE_ARG(updates.shape() == want, "scatter_nd_add: 'updates' must have shape ", shape_str(want),
                  " (index.shape[:-1] + x.shape[K:]), got ", shape_str(updates.shape()));
  return index_put(x, unbind(index, -1), updates, true);
}

}  // namespace OAR_COMPOSITE_NAMESPACE
