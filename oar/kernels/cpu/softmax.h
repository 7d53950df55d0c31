// Softmax and log-softmax along one axis (float16/bfloat16 compute in float).
#pragma once
#include <cstdint>

#include "oar/core/tensor.h"

namespace oar::kernels {

// out = softmax(x) along `axis` (or log_softmax when `log`); a negative axis counts from the
// end, and a 0-D x has the one axis -1/0. x and out share a shape and a floating dtype.
void softmax(const Tensor& x, int64_t axis, bool log, const Tensor& out);
// The gradient through softmax (or log_softmax) from its output `out` and the output gradient
// `grad`, in two passes per row: dx = out * (grad - sum(grad * out)), or for log_softmax
// dx = grad - exp(out) * sum(grad).
void softmax_grad(const Tensor& out, const Tensor& grad, int64_t axis, bool log, const Tensor& dx);

}  // namespace oar::kernels
