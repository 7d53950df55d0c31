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

// out = softmax(x + mask) along the last dim (Paddle's incubate softmax_mask_fuse), or with
// upper_triangle softmax over the causal part of each [.., Sq, Sk] matrix (entries j > i of row i
// count as -inf: softmax_mask_fuse_upper_triangle). mask (optional) broadcasts to x; each row is
// masked into out and normalised there while in cache. x, mask and out share a floating dtype.
void softmax_mask(const Tensor& x, const Tensor& mask, bool upper_triangle, const Tensor& out);

}  // namespace oar::kernels
