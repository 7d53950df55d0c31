#include "oar/ops/infer_meta/softmax.h"

#include <algorithm>

namespace oar::infer_meta {

namespace {
Meta softmax_like(const char* name, const Tensor& x, int64_t axis) {
  OAR_ENFORCE(is_floating(x.dtype()), TypeMismatch, name,
              ": argument 'x' must be a floating-point tensor (float16, bfloat16, float32, "
              "float64), got ", dtype_name(x.dtype()));
  // A 0-D x has the one axis -1 / 0.
  normalize_axis(axis, std::max<int64_t>(x.ndim(), 1), name);
  return {x.shape(), x.dtype()};
}
}  // namespace

Meta softmax(const char*, const Tensor& x, int64_t axis) {
  return softmax_like("softmax", x, axis);
}
Meta log_softmax(const char*, const Tensor& x, int64_t axis) {
  return softmax_like("log_softmax", x, axis);
}

Meta softmax_grad(const char* op, const Tensor& out, const Tensor& grad, int64_t axis, bool log) {
  const Meta m = softmax_like(log ? "log_softmax" : "softmax", out, axis);
  check_same_meta(op, "grad", grad, m.shape, m.dtype);
  return m;
}

Meta softmax_mask(const char*, const Tensor& x, const Tensor& mask, bool upper_triangle) {
  const char* name = upper_triangle ? "softmax_mask_fuse_upper_triangle" : "softmax_mask_fuse";
  softmax_like(name, x, -1);
  OAR_ENFORCE_ARG(x.ndim() >= 2, name, ": argument 'x' must be at least 2-D, got shape ", shape_str(x.shape()));
  if (mask.defined()) {
    OAR_ENFORCE(mask.dtype() == x.dtype(), TypeMismatch, name, ": 'mask' must have x's dtype (",
                dtype_name(x.dtype()), "), got ", dtype_name(mask.dtype()));
    OAR_ENFORCE_ARG(mask.ndim() <= x.ndim() && broadcast_shapes(x.shape(), mask.shape(), name) == x.shape(), name,
                    ": 'mask' ", shape_str(mask.shape()), " must broadcast to x's shape ", shape_str(x.shape()));
  }
  return {x.shape(), x.dtype()};
}

}  // namespace oar::infer_meta
