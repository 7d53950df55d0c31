// Meta, what a shape rule computes for one output, and the argument checks shape rules share.
// Shape rules (oar/ops/infer_meta/) read shapes and dtypes only: nothing here touches values.
#pragma once
#include "oar/core/tensor.h"

namespace oar {

// What infer_meta computes for one output.
struct Meta {
  Shape shape;
  DType dtype;
};

// Raises TypeMismatch (TypeError) naming op and arg unless t is float32 or float64.
void check_float32_or_64(const char* op, const char* arg, const Tensor& t);
// The same for any floating dtype (float16, bfloat16, float32, float64).
void check_floating(const char* op, const char* arg, const Tensor& t);
// For backward ops (which a program file may also call with anything): `t` is defined and has
// the given shape and dtype (those of the tensor it is the gradient of, or of its statistics, as
// the forward's infer_meta gives them); InvalidArgument naming op and arg otherwise.
void check_same_meta(const char* op, const char* arg, const Tensor& t, const Shape& shape, DType dtype);

}  // namespace oar
