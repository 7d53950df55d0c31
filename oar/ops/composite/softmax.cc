// Composite ops of the softmax family (oar/ops/specs/softmax.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include "oar/ops/composite/composite.h"

namespace OAR_COMPOSITE_NAMESPACE {

Tensor softmax(const Tensor& x, int64_t axis, std::optional<DType> dtype) {
  if (dtype.has_value() && *dtype != x.dtype()) return softmax_base(cast(x, *dtype), axis);
  return softmax_base(x, axis);
}

Tensor log_softmax(const Tensor& x, int64_t axis, std::optional<DType> dtype) {
  if (dtype.has_value() && *dtype != x.dtype()) return log_softmax_base(cast(x, *dtype), axis);
  return log_softmax_base(x, axis);
}

}  // namespace OAR_COMPOSITE_NAMESPACE
