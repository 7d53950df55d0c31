// Shape/dtype rules for the channel-blocked inference ops (oar/ops/specs/blocked.yaml;
// kernels/cpu/blocked_layout.h describes the layout).
#pragma once
#include <string>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// Channels per block of the blocked layout ([N, ceil(C / 16), H, W, 16], oneDNN's nChw16c).
constexpr int64_t kChannelBlock = 16;
// [N, C, H, W] -> [N, ceil(C / 16), H, W, 16] (unknown dims, -1, stay -1).
Shape blocked_shape(const Shape& plain);
// conv2d_max_pool_fused: convolution outputs wider than this are not fused (a row of them lives
// on the stack).
constexpr int64_t kConvPoolMaxRow = 1024;

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
