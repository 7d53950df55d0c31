// conv2d_max_pool_fused: a few-channel convolution (stride 1, no dilation or groups) with bias and
// activation, followed by a 2-D max pool over its result, computed row by row so the convolution's
// full-resolution output never exists (float32, NCHW in and out). The blocked_conv pass writes it
// for first layers such as LeNet's 1 -> 6 channels, where oneDNN would pad the 6 output channels to
// 16 lanes and the pool would read all of them.
#pragma once
#include <string>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

#include "oar/ops/infer_meta/blocked.h"

namespace oar::kernels {

using infer_meta::kConvPoolMaxRow;

// x [N, C, H, W]; weight [M, C, kh, kw]; bias [M] or undefined; padding [top, bottom, left, right];
// activation none or relu (relu maps NaN to 0, as the relu op); pool_kernel/pool_stride 2 values,
// pool_padding 4; out [N, M, PH, PW], the max pool's output size (ceil_mode already applied).
void conv2d_max_pool_fused(const Tensor& x, const Tensor& weight, const Tensor& bias, const IntArray& padding,
                           const std::string& activation, const IntArray& pool_kernel, const IntArray& pool_stride,
                           const IntArray& pool_padding, const Tensor& out);

}  // namespace oar::kernels
