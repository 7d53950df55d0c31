// Composite ops of the quant family (oar/ops/specs/quant.yaml).
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include "oar/ops/composite/composite.h"

#include "oar/ops/infer_meta/conv.h"

namespace OAR_COMPOSITE_NAMESPACE {

Tensor quantized_conv2d(const Tensor& x, const Tensor& x_scale, const Tensor& x_dequant_scale, const Tensor& weight,
                        const Tensor& weight_scale, const Tensor& bias, const IntArray& stride, const IntArray& padding,
                        const IntArray& dilation, int64_t groups, const std::string& data_format,
                        const std::string& padding_algorithm) {
  const auto a = infer_meta::conv_args("quantized_conv2d", 2, x, weight, stride, padding, dilation, groups, data_format,
                                       padding_algorithm);
  return quantized_convolution(x, x_scale, x_dequant_scale, weight, weight_scale, bias, a.stride, a.padding,
                               a.dilation, groups, a.channel_last);
}

}  // namespace OAR_COMPOSITE_NAMESPACE
