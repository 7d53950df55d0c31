#include "oar/ops/infer_meta/activation2.h"

namespace oar::infer_meta {

Meta celu(const char* op, const Tensor& x, double alpha) {
  OAR_ENFORCE_ARG(alpha != 0.0, op, ": argument 'alpha' must not be 0, got ", alpha);
  return {x.shape(), x.dtype()};
}

Meta selu(const char* op, const Tensor& x, double scale, double alpha) {
  OAR_ENFORCE_ARG(scale > 1.0, op, ": argument 'scale' must be greater than 1.0, got ", scale);
  OAR_ENFORCE_ARG(alpha >= 0.0, op, ": argument 'alpha' must be no less than 0, got ", alpha);
  return {x.shape(), x.dtype()};
}

Meta softshrink(const char* op, const Tensor& x, double threshold) {
  OAR_ENFORCE_ARG(threshold >= 0.0, op, ": argument 'threshold' must be no less than 0, got ",
                  threshold);
  return {x.shape(), x.dtype()};
}

Meta act2_grad(const char* op, const Tensor& x, const Tensor& out_grad, int64_t act, double,
               double) {
  OAR_ENFORCE_ARG(act >= 0 && act <= 13, op, ": unknown activation id ", act);
  OAR_ENFORCE_ARG(x.shape() == out_grad.shape(), op, ": argument 'out_grad' expected shape ",
                  shape_str(x.shape()), ", got ", shape_str(out_grad.shape()));
  OAR_ENFORCE(x.dtype() == out_grad.dtype(), TypeMismatch, op,
              ": argument 'out_grad' must have x's dtype ", dtype_name(x.dtype()), ", got ",
              dtype_name(out_grad.dtype()));
  return {x.shape(), x.dtype()};
}

Meta swiglu(const char* op, const Tensor& x, const Tensor& y) {
  check_floating("swiglu", "x", x);
  if (y.defined()) {
    OAR_ENFORCE_ARG(y.shape() == x.shape() && y.dtype() == x.dtype(), "swiglu: arguments 'x' and 'y' must have ",
                    "the same shape and dtype, got ", shape_str(x.shape()), " ", dtype_name(x.dtype()), " and ",
                    shape_str(y.shape()), " ", dtype_name(y.dtype()));
    return {x.shape(), x.dtype()};
  }
  OAR_ENFORCE_ARG(x.ndim() >= 1 && (x.shape().back() < 0 || x.shape().back() % 2 == 0), "swiglu: without 'y' ",
                  "the last dim of x must be even, got shape ", shape_str(x.shape()));
  Shape s = x.shape();
  if (s.back() > 0) s.back() /= 2;
  (void)op;
  return {s, x.dtype()};
}

Meta swiglu_grad_x(const char* op, const Tensor& x, const Tensor& y, const Tensor& grad) {
  const Meta out = swiglu(op, x, y);
  check_same_meta("swiglu_grad", "grad", grad, out.shape, out.dtype);
  return {x.shape(), x.dtype()};
}

Meta swiglu_grad_y(const char* op, const Tensor& x, const Tensor& y, const Tensor& grad) {
  OAR_ENFORCE_ARG(y.defined(), "swiglu_grad: the gradient of y needs y");
  swiglu_grad_x(op, x, y, grad);
  return {y.shape(), y.dtype()};
}

}  // namespace oar::infer_meta
