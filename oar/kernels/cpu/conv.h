// Convolution kernels over 1 to 3 spatial dims, channel-first (NCL/NCHW/NCDHW) or channel-last
// (NLC/NHWC/NDHWC), with groups. float32 runs through oneDNN's convolution primitives
// (conv_onednn.h) and falls back to im2col + GEMM, which float64 always uses; float16 and
// bfloat16 compute in float32.
//
// Arguments are in resolved form (infer_meta/conv.h): one stride and dilation per spatial dim,
// a before/after padding pair per spatial dim. The gradient kernels are also the transposed
// convolution (backward data) and its weight gradient.
#pragma once
#include <cstdint>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar::kernels {

// The geometry of one convolution. 1-D and 2-D problems are written as 3-D ones with leading
// unit spatial dims (index 0 is depth, 1 height, 2 width), so one set of loops serves all.
struct ConvShape {
  int nd = 2;                      // spatial dims of the tensors (1 to 3)
  int64_t N = 0, C = 0, M = 0;     // batch, input channels, output channels
  int64_t G = 1;                   // groups: C / G input channels feed M / G outputs
  int64_t in[3] = {1, 1, 1};       // input spatial sizes
  int64_t out[3] = {1, 1, 1};      // output spatial sizes
  int64_t k[3] = {1, 1, 1};        // kernel sizes
  int64_t stride[3] = {1, 1, 1};
  int64_t dil[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};      // padding before
  int64_t pad_after[3] = {0, 0, 0};
  bool channel_last = false;

  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t k_size() const { return k[0] * k[1] * k[2]; }
  // A 1x1 kernel with stride 1 and no padding: the patch matrix is the input itself.
  bool pointwise() const;
};

// x: [N, C, in...] (or channel-last), weight: [M, C/G, k...], y: [N, M, out...].
ConvShape conv_shape(const Shape& x, const Shape& weight, const Shape& y, const IntArray& stride,
                     const IntArray& padding, const IntArray& dilation, int64_t groups,
                     bool channel_last);

// out = x (*) weight (+ bias, one value per output channel; bias may be undefined).
void conv_forward(const Tensor& x, const Tensor& weight, const Tensor& bias,
                  const IntArray& stride, const IntArray& padding, const IntArray& dilation,
                  int64_t groups, bool channel_last, const Tensor& out);
// dx = the gradient of conv_forward with respect to x, given out_grad (dx's shape is the input's).
void conv_backward_data(const Tensor& out_grad, const Tensor& weight, const IntArray& stride,
                        const IntArray& padding, const IntArray& dilation, int64_t groups,
                        bool channel_last, const Tensor& dx);
// dweight = the gradient of conv_forward with respect to weight, given x and out_grad.
void conv_backward_weight(const Tensor& x, const Tensor& out_grad, const IntArray& stride,
                          const IntArray& padding, const IntArray& dilation, int64_t groups,
                          bool channel_last, const Tensor& dweight);

}  // namespace oar::kernels
