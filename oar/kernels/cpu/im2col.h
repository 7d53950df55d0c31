// im2col and col2im: the patch matrix of a convolution (one image, one group) and its adjoint.
// Instantiated for float and double.
#pragma once
#include <cstdint>

#include "oar/kernels/cpu/conv.h"

namespace oar::kernels {

// Channel-first. x: [channels][D][H][W] (one image, the channels of one group).
// col: [channels * kd * kh * kw][Do * Ho * Wo], row (c, i, j, l), column (od, oh, ow):
//   col = x[c][od * s0 - p0 + i * d0][oh * s1 - p1 + j * d1][ow * s2 - p2 + l * d2], 0 outside.
template <typename T>
void im2col(const ConvShape& s, const T* x, int64_t channels, T* col);
// The adjoint: dx[c][...] += col[(c, i, j, l)][(od, oh, ow)] at those positions (dx is
// accumulated into, not cleared).
template <typename T>
void col2im(const ConvShape& s, const T* col, int64_t channels, T* dx);

// Channel-last. x: [D][H][W][s.C] (one image); the group's channels are [c0, c0 + channels).
// col: [Do * Ho * Wo][kd * kh * kw * channels], row (od, oh, ow), column (i, j, l, c).
template <typename T>
void im2col_cl(const ConvShape& s, const T* x, int64_t c0, int64_t channels, T* col);
template <typename T>
void col2im_cl(const ConvShape& s, const T* col, int64_t c0, int64_t channels, T* dx);

}  // namespace oar::kernels
