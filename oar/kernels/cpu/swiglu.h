// SwiGLU, silu(a) * b, in one pass (Paddle's nn.functional.swiglu and incubate's): a and b are
// x and y, or the two halves of x's last dim when y is undefined. The exponential is SLEEF's
// vectorised one over blocks kept in cache, so the forward reads each input once and writes
// once, and the backward reads x (and y) and the gradient once.
#pragma once
#include "oar/core/tensor.h"

namespace oar::kernels {

// out (contiguous; x's shape, or with the last dim halved when y is undefined).
void swiglu(const Tensor& x, const Tensor& y, const Tensor& out);
// dx (x's shape) and dy (y's shape; undefined when y is, or when not wanted), given grad (out's shape).
void swiglu_grad(const Tensor& x, const Tensor& y, const Tensor& grad, const Tensor& dx, const Tensor& dy);

}  // namespace oar::kernels
