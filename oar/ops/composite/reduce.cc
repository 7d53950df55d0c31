// Composite ops of the reduce family (oar/ops/specs/reduce.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include <algorithm>

#include "oar/ops/composite/composite.h"

#include "oar/ops/infer_meta/reduce.h"

namespace OAR_COMPOSITE_NAMESPACE {

Tensor std(const Tensor& x, const IntArray& axis, bool unbiased, bool keepdim) {
  infer_meta::reduce_axes("std", axis, x.ndim());
  return sqrt(var(x, axis, unbiased, keepdim));
}

Tensor cumsum(const Tensor& x, std::optional<int64_t> axis, std::optional<DType> dtype) {
  const DType dt = dtype ? *dtype : (is_integral(x.dtype(), true) ? DType::Int64 : x.dtype());
  const Tensor xx = x.dtype() == dt ? x : cast(x, dt);
  if (!axis) return cumsum_scan(reshape_exact(xx, IntArray{xx.numel()}), 0, false);
  infer_meta::reduce_scan("cumsum", xx, *axis, false);
  return cumsum_scan(xx, *axis, false);
}

Tensor cumprod(const Tensor& x, std::optional<int64_t> dim, std::optional<DType> dtype) {
  const DType dt = dtype ? *dtype : (x.dtype() == DType::Bool ? DType::Int64 : x.dtype());
  const Tensor xx = x.dtype() == dt ? x : cast(x, dt);
  if (!dim) return cumprod_scan(reshape_exact(xx, IntArray{xx.numel()}), 0, false);
  infer_meta::reduce_scan("cumprod", xx, *dim, false);
  return cumprod_scan(xx, *dim, false);
}

Tensor var(const Tensor& x, const IntArray& axis, bool unbiased, bool keepdim) {
  const Tensor xf = is_integral(x.dtype(), true) ? cast(x, default_float_dtype()) : x;
  infer_meta::reduce_mean("var", xf, axis, keepdim);
  const double n = reduce_count(xf, axis);
  const Tensor d = subtract(xf, mean(xf, axis, true));
  const Tensor ss = sum(multiply(d, d), axis, std::nullopt, keepdim);
  return ss / Scalar(std::max(n - (unbiased ? 1.0 : 0.0), 0.0));
}

}  // namespace OAR_COMPOSITE_NAMESPACE
