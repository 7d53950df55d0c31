// unfold (im2col of whole images) and fold (its adjoint, col2im), 2-D, float32 and float64.
//
// unfold: x [N, C, H, W] -> out [N, C * kh * kw, L], L = Ho * Wo, row (c, i, j), column (oh, ow):
//   out = x[c][oh * sh - pt + i * dh][ow * sw - pl + j * dw] (0 outside).
// fold: x [N, C * kh * kw, L] -> out [N, C, H, W], the sum of the columns at those positions.
// kernel, stride, dilation: (h, w); padding: (top, left, bottom, right).
#pragma once
#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar::kernels {

void unfold(const Tensor& x, const IntArray& kernel, const IntArray& stride,
            const IntArray& padding, const IntArray& dilation, const Tensor& out);
void fold(const Tensor& x, const IntArray& kernel, const IntArray& stride,
          const IntArray& padding, const IntArray& dilation, const Tensor& out);

}  // namespace oar::kernels
