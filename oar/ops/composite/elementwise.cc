// Composite ops of the elementwise family (oar/ops/specs/elementwise.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include "oar/ops/composite/composite.h"

namespace OAR_COMPOSITE_NAMESPACE {

Tensor divide(const Tensor& x, const Tensor& y) {
  // True division: integer and bool inputs divide as the default float dtype.
  const DType common = promote_types(x.dtype(), y.dtype(), "divide");
  if (is_integral(common, true)) {
    const DType f = default_float_dtype();
    return elementwise_div(cast(x, f), cast(y, f));
  }
  return elementwise_div(x, y);
}

Tensor allclose(const Tensor& x, const Tensor& y, double rtol, double atol, bool equal_nan) {
  return all(isclose(x, y, rtol, atol, equal_nan));
}

Tensor equal_all(const Tensor& x, const Tensor& y) {
  if (x.shape() != y.shape()) return full({}, false, DType::Bool);
  return all(equal(x, y));
}

Tensor lerp(const Tensor& x, const Tensor& y, const Tensor& weight) { return x + weight * (y - x); }

}  // namespace OAR_COMPOSITE_NAMESPACE
