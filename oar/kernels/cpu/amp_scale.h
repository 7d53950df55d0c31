// GradScaler's pass over a gradient (paddle.amp.GradScaler.unscale_): one read and one write
// per element, instead of an isfinite reduction plus a separate multiply.
#pragma once
#include "oar/core/tensor.h"

namespace oar::kernels {

// Multiplies the contiguous host tensor `grad` (float16/bfloat16/float32/float64) by `inv_scale`
// in place; returns false when any element was inf or nan (it is scaled all the same, as Paddle
// does: the optimizer step that would read it is skipped).
bool unscale_and_check_finite(const Tensor& grad, double inv_scale);

}  // namespace oar::kernels
