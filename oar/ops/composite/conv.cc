// Composite ops of the conv family (oar/ops/specs/conv.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include "oar/ops/composite/composite.h"

#include "oar/ops/infer_meta/conv.h"

namespace OAR_COMPOSITE_NAMESPACE {

Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias, const IntArray& stride,
              const IntArray& padding, const IntArray& dilation, int64_t groups,
              const std::string& data_format, const std::string& padding_algorithm) {
  const auto a = infer_meta::conv_args("conv1d", 1, x, weight, stride, padding, dilation, groups, data_format,
                                       padding_algorithm);
  return convolution(x, weight, bias, a.stride, a.padding, a.dilation, groups, a.channel_last);
}

Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias, const IntArray& stride,
              const IntArray& padding, const IntArray& dilation, int64_t groups,
              const std::string& data_format, const std::string& padding_algorithm) {
  const auto a = infer_meta::conv_args("conv2d", 2, x, weight, stride, padding, dilation, groups, data_format,
                                       padding_algorithm);
  return convolution(x, weight, bias, a.stride, a.padding, a.dilation, groups, a.channel_last);
}

Tensor conv3d(const Tensor& x, const Tensor& weight, const Tensor& bias, const IntArray& stride,
              const IntArray& padding, const IntArray& dilation, int64_t groups,
              const std::string& data_format, const std::string& padding_algorithm) {
  const auto a = infer_meta::conv_args("conv3d", 3, x, weight, stride, padding, dilation, groups, data_format,
                                       padding_algorithm);
  return convolution(x, weight, bias, a.stride, a.padding, a.dilation, groups, a.channel_last);
}

Tensor conv1d_transpose(const Tensor& x, const Tensor& weight, const Tensor& bias, const IntArray& stride,
                        const IntArray& padding, const IntArray& output_padding, int64_t groups,
                        const IntArray& dilation, const IntArray& output_size, const std::string& data_format,
                        const std::string& padding_algorithm) {
  Shape out_shape;
  const auto a = infer_meta::conv_transpose_args("conv1d_transpose", 1, x, weight, stride, padding,
                                                 output_padding, dilation, groups, output_size, data_format,
                                                 padding_algorithm, out_shape);
  return conv_transpose_bias(
      convolution_input_grad(x, weight, out_shape, a.stride, a.padding, a.dilation, groups, a.channel_last),
      bias, a.channel_last);
}

Tensor conv2d_transpose(const Tensor& x, const Tensor& weight, const Tensor& bias, const IntArray& stride,
                        const IntArray& padding, const IntArray& output_padding, const IntArray& dilation,
                        int64_t groups, const IntArray& output_size, const std::string& data_format,
                        const std::string& padding_algorithm) {
  Shape out_shape;
  const auto a = infer_meta::conv_transpose_args("conv2d_transpose", 2, x, weight, stride, padding,
                                                 output_padding, dilation, groups, output_size, data_format,
                                                 padding_algorithm, out_shape);
  return conv_transpose_bias(
      convolution_input_grad(x, weight, out_shape, a.stride, a.padding, a.dilation, groups, a.channel_last),
      bias, a.channel_last);
}

Tensor conv3d_transpose(const Tensor& x, const Tensor& weight, const Tensor& bias, const IntArray& stride,
                        const IntArray& padding, const IntArray& output_padding, int64_t groups,
                        const IntArray& dilation, const IntArray& output_size, const std::string& data_format,
                        const std::string& padding_algorithm) {
  Shape out_shape;
  const auto a = infer_meta::conv_transpose_args("conv3d_transpose", 3, x, weight, stride, padding,
                                                 output_padding, dilation, groups, output_size, data_format,
                                                 padding_algorithm, out_shape);
  return conv_transpose_bias(
      convolution_input_grad(x, weight, out_shape, a.stride, a.padding, a.dilation, groups, a.channel_last),
      bias, a.channel_last);
}

Tensor conv_transpose_bias(const Tensor& out, const Tensor& bias, bool channel_last) {
  if (!bias.defined()) return out;
  OAR_ENFORCE_ARG(out.ndim() >= 2, "conv_transpose: the output must have a batch and a channel dim, ",
                  "but has shape ", shape_str(out.shape()));
  const int64_t c = channel_last ? out.ndim() - 1 : 1;
  OAR_ENFORCE_ARG(bias.ndim() == 1 && bias.shape()[0] == out.shape()[c], "conv_transpose: bias ",
                  "should have shape [", out.shape()[c], "] (one value per output channel), but ",
                  "received ", shape_str(bias.shape()));
  Shape bs(out.ndim(), 1);
  bs[c] = bias.shape()[0];
  return out + reshape_exact(bias, bs);
}

}  // namespace OAR_COMPOSITE_NAMESPACE
