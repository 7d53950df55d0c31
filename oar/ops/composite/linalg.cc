// Composite ops of the linalg family (oar/ops/specs/linalg.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include "oar/ops/composite/composite.h"

namespace OAR_COMPOSITE_NAMESPACE {

Tensor mm(const Tensor& input, const Tensor& mat2) { return matmul(input, mat2, false, false); }

Tensor bmm(const Tensor& x, const Tensor& y) {
  OAR_ENFORCE_ARG(x.ndim() == 3 && y.ndim() == 3, "bmm: x and y should be 3-dimensional. ",
                  "But received x's dimension: ", x.ndim(), ", y's dimension: ", y.ndim());
  OAR_ENFORCE_ARG(x.shape()[2] == y.shape()[1], "bmm: x's width must be equal with y's ",
                  "height. But received x's shape: ", shape_str(x.shape()),
                  ", y's shape: ", shape_str(y.shape()));
  OAR_ENFORCE_ARG(x.shape()[0] == y.shape()[0], "bmm: x's batch (shape[0]) must be equal ",
                  "with y's batch (shape[0]). But received x's shape: ", shape_str(x.shape()),
                  ", y's shape: ", shape_str(y.shape()));
  return matmul(x, y, false, false);
}

Tensor dot(const Tensor& x, const Tensor& y) {
  OAR_ENFORCE(x.dtype() == y.dtype(), TypeMismatch, "dot: the dtype of Input(X) (", dtype_name(x.dtype()),
              ") and Input(Y) (", dtype_name(y.dtype()), ") must be the same");
  OAR_ENFORCE(x.dtype() != DType::Bool, TypeMismatch, "dot: unsupported dtype bool for ",
              "argument 'x'; supported: float16, bfloat16, float32, float64, int32, int64, ",
              "complex64, complex128");
  OAR_ENFORCE_ARG(x.ndim() == 1 || x.ndim() == 2, "dot: the dimensions of input tensor X ",
                  shape_str(x.shape()), " should be 1 or 2");
  OAR_ENFORCE_ARG(x.shape() == y.shape(), "dot: the shape of input tensor X: ", shape_str(x.shape()),
                  " should match with input tensor Y: ", shape_str(y.shape()));
  if (x.ndim() == 1) return matmul(x, y, false, false);
  return sum(multiply(x, y), {-1}, x.dtype(), false);
}

Tensor outer(const Tensor& x, const Tensor& y) {
  OAR_ENFORCE(x.dtype() == y.dtype(), TypeMismatch, "outer: the dtype of Input(X) (", dtype_name(x.dtype()),
              ") and Input(Y) (", dtype_name(y.dtype()), ") must be the same");
  return multiply(reshape_exact(x, {x.numel(), 1}), reshape_exact(y, {1, y.numel()}));
}

}  // namespace OAR_COMPOSITE_NAMESPACE
