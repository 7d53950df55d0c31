// The matrix exponential (oar.linalg.matrix_exp) by scaling and squaring.
#pragma once
#include "oar/core/tensor.h"

namespace oar::kernels {

// out = exp(x) for each square matrix of x [..., n, n] (float32/float64/complex; float16 and
// bfloat16 are computed in float32). With s the smallest count (>= 0) for which the largest
// 1-norm in the batch divided by 2^s is at most 1/2 (0 for a zero or non-finite norm): an 18-term
// Taylor series of x / 2^s, then s squarings. The products go through kernels::matmul.
void matrix_exp(const Tensor& x, const Tensor& out);

}  // namespace oar::kernels
