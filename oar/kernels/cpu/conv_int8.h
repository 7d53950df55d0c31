// int8 convolution for the predictor's quantized programs (quantized_convolution in
// oar/ops/specs/quant.yaml): the input quantized per tensor, weights already integers, one
// oneDNN int8 convolution with the scales folded into its output scales (VNNI where the CPU has
// it), float32 out.
#pragma once
#include <memory>
#include <vector>

#include "oar/core/storage.h"
#include "oar/core/tensor.h"
#include "oar/kernels/cpu/conv.h"

namespace oar::kernels {

// out = conv(dequantize(quantize(x, x_scale), x_dequant_scale), weight * weight_scale / 127) + bias,
// in int8 where oneDNN has a kernel (2-D, channel-first), else in float with the same rounding.
// weight_scale: one value, or one per output channel.
void quantized_conv_forward(const Tensor& x, const Tensor& x_scale, const Tensor& x_dequant_scale,
                            const Tensor& weight, const Tensor& weight_scale, const Tensor& bias,
                            const IntArray& stride, const IntArray& padding, const IntArray& dilation, int64_t groups,
                            bool channel_last, const Tensor& out);

namespace onednn {
// The oneDNN part: x float32 (plain layout of `s`), w the integer weights as float32, out_scales
// (one, or one per output channel) applied to the int32 sums; false when oneDNN has no int8
// kernel for the problem.
bool conv_forward_int8(const ConvShape& s, const float* x, float x_scale, const float* w, int64_t w_numel,
                       const std::shared_ptr<Storage>& w_owner, const std::vector<float>& out_scales, float* y);
}  // namespace onednn

}  // namespace oar::kernels
