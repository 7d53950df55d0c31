#include "oar/ops/infer_meta/elementwise.h"

namespace oar::infer_meta {

Meta broadcast(const char* op, const Tensor& x, const Tensor& y) {
  if (x.shape() == y.shape()) return {x.shape(), x.dtype()};
  return {broadcast_shapes(x.shape(), y.shape(), op), x.dtype()};
}

Meta where(const char* op, const Tensor& cond, const Tensor& x, const Tensor& y) {
  OAR_ENFORCE(cond.dtype() == DType::Bool, TypeMismatch, op,
              ": argument 'condition' must be a bool tensor, got ", dtype_name(cond.dtype()));
  Shape s = broadcast_shapes(x.shape(), y.shape(), op);
  return {broadcast_shapes(cond.shape(), s, op), x.dtype()};
}

Meta cast(const char*, const Tensor& x, DType dtype) { return {x.shape(), dtype}; }

}  // namespace oar::infer_meta
