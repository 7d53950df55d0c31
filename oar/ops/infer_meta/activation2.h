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

}  // namespace oar::infer_meta
