// conv2d_fused: the inference convolution the blocked_conv pass writes (float32, NCHW):
//   out = act(x (*) weight + bias + residual)
// with x and out either plain [N, C, H, W] or channel-blocked (blocked_layout.h; x is blocked
// when it has 5 dims, out when `blocked_out`), the residual in out's layout, act none or relu.
// oneDNN runs it as one primitive with post-ops; when oneDNN declines, the plain convolution
// kernel and elementwise loops compute the same.
#pragma once
#include <string>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar::kernels {

void conv2d_fused(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& residual,
                  const IntArray& stride, const IntArray& padding, const IntArray& dilation, int64_t groups,
                  const std::string& activation, bool blocked_out, const Tensor& out);

}  // namespace oar::kernels
