// Shape/dtype rules and argument checks of the activations in activation2.yaml.
#pragma once
#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

Meta celu(const char* op, const Tensor& x, double alpha);
Meta selu(const char* op, const Tensor& x, double scale, double alpha);
Meta softshrink(const char* op, const Tensor& x, double threshold);
// x and out_grad of one shape and float dtype; op a valid kernels::Act2.
Meta act2_grad(const char* op, const Tensor& x, const Tensor& out_grad, int64_t act, double a,
               double b);
// swiglu: x's shape (y given, of x's shape and dtype) or x's with the last dim halved (even).
Meta swiglu(const char* op, const Tensor& x, const Tensor& y);
// swiglu_grad_x / swiglu_grad_y: x's or y's shape; grad of swiglu's result shape.
Meta swiglu_grad_x(const char* op, const Tensor& x, const Tensor& y, const Tensor& grad);
Meta swiglu_grad_y(const char* op, const Tensor& x, const Tensor& y, const Tensor& grad);

}  // namespace oar::infer_meta
