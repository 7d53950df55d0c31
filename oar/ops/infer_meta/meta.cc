#include "oar/ops/infer_meta/meta.h"

namespace oar {

void check_floating(const char* op, const char* arg, const Tensor& t) {
  OAR_ENFORCE(is_floating(t.dtype()), TypeMismatch, op, ": argument '", arg,
              "' must be a floating-point tensor (float16, bfloat16, float32, float64), got ",
              dtype_name(t.dtype()));
}

void check_same_meta(const char* op, const char* arg, const Tensor& t, const Shape& shape, DType dtype) {
  OAR_ENFORCE_ARG(t.defined(), op, ": argument '", arg, "' is required");
  OAR_ENFORCE_ARG(t.shape() == shape && t.dtype() == dtype, op, ": argument '", arg, "' must be a ",
                  dtype_name(dtype), " tensor of shape ", shape_str(shape), ", got ",
                  dtype_name(t.dtype()), shape_str(t.shape()));
}

void check_float32_or_64(const char* op, const char* arg, const Tensor& t) {
  OAR_ENFORCE(t.dtype() == DType::Float32 || t.dtype() == DType::Float64, TypeMismatch, op,
              ": argument '", arg, "' must be a float32 or float64 tensor, got ",
              dtype_name(t.dtype()));
}

}  // namespace oar
