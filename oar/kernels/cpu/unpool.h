// max_unpool's scatter: out (channel-first [N, C, out...]) is zero but for out[n][c][indices[i]]
// = x[n][c][i], indices being flat positions within the output's image plane (int32, as
// pool_max's mask). A position named twice keeps the last value (as Paddle: it overwrites).
#pragma once
#include "oar/core/tensor.h"

namespace oar::kernels {

void max_unpool(const Tensor& x, const Tensor& indices, const Tensor& out);

}  // namespace oar::kernels
