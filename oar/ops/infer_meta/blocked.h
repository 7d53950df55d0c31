// Shape/dtype rules for the channel-blocked inference ops (oar/ops/specs/blocked.yaml;
// kernels/cpu/blocked_layout.h describes the layout).
#pragma once
#include <string>

#include "oar/ops/op_helpers.h"

namespace oar::infer_meta {

// x plain [N, C, H, W] or blocked [N, ceil(C/16), H, W, 16] with C = weight[1] * groups; resolved
// stride/dilation (2 values) and padding (before/after pairs, 4 values); the residual, when given,
// has the result's shape; activation none or relu. The result is [N, M, OH, OW], blocked when
// blocked_out.
Meta conv2d_fused(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias,
                  const Tensor& residual, const IntArray& stride, const IntArray& padding,
                  const IntArray& dilation, int64_t groups, const std::string& activation,
                  bool blocked_out);
// x plain [N, C, H, W]; weight [M, C, kh, kw] (stride 1, no dilation or groups); padding,
// pool_stride and pool_padding as conv2d_fused's and max_pool2d_blocked's. The result is the pool's
// [N, M, PH, PW].
Meta conv2d_max_pool_fused(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias,
                           const IntArray& padding, const std::string& activation, const IntArray& pool_kernel,
                           const IntArray& pool_stride, const IntArray& pool_padding, bool ceil_mode);
Meta to_blocked_layout(const char* op, const Tensor& x);
Meta to_plain_layout(const char* op, const Tensor& x, int64_t channels);
// kernel_size and stride: 2 values; padding: 4 (before/after pairs); as pool_max's windows.
Meta max_pool2d_blocked(const char* op, const Tensor& x, const IntArray& kernel_size,
                        const IntArray& stride, const IntArray& padding, bool ceil_mode);
Meta global_avg_pool2d_blocked(const char* op, const Tensor& x);

}  // namespace oar::infer_meta
