// The channel-blocked activation layout of inference programs (the blocked_conv pass): a 4-D
// NCHW tensor is held as [N, ceil(C / 16), H, W, 16], channel c at block c / 16, lane c % 16
// (oneDNN's nChw16c). Lanes past C are zero, so convolutions, max pools and averages read them
// harmlessly. Convolutions run in it without reordering their activations at every call; these
// kernels convert at the program's edges and pool without leaving it.
#pragma once
#include <cstdint>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

#include "oar/ops/infer_meta/blocked.h"

namespace oar::kernels {

using infer_meta::blocked_shape;
using infer_meta::kChannelBlock;

// out (blocked) = x (plain, float32, 4-D), zero in the padded lanes.
void to_blocked(const Tensor& x, const Tensor& out);
// out (plain, [N, channels, H, W]) = x (blocked).
void to_plain(const Tensor& x, const Tensor& out);

// Max pooling over a blocked x into a blocked out (its spatial size decides the windows):
// window o covers [o * stride - pad_before, + kernel) clipped to the input, as pool_max.
// kernel, stride: [kh, kw]; padding: [top, bottom, left, right].
void max_pool2d_blocked(const Tensor& x, const IntArray& kernel, const IntArray& stride,
                        const IntArray& padding, const Tensor& out);
// The mean over H and W of a blocked x: out is [N, ceil(C / 16), 1, 1, 16].
void global_avg_pool2d_blocked(const Tensor& x, const Tensor& out);

}  // namespace oar::kernels
