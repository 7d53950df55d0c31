// Shape rules and argument resolution for convolutions (conv1d/2d/3d and their transposes).
//
// The user-facing ops take Paddle's arguments (stride/dilation as one value or one per spatial
// dim; padding as one value, one per dim, a before/after pair per dim, or a pair for every dim
// of x with zeros for batch and channel; padding_algorithm "EXPLICIT", "SAME" or "VALID") and
// resolve them here into the kernel ops' form: one stride and dilation per spatial dim and a
// before/after padding pair per spatial dim ([d0_before, d0_after, d1_before, ...]).
#pragma once
#include <string>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

struct ConvArgs {
  IntArray stride, padding, dilation;  // padding: before/after pairs per spatial dim
  bool channel_last = false;
};

// conv{1,2,3}d (nd spatial dims): checks x and weight ([M, C/groups, k...]) against
// data_format and groups, and resolves stride, padding and dilation. "SAME" pads so that the
// output is ceil(input / stride) and sets dilation to 1; "VALID" pads nothing (as Paddle).
ConvArgs conv_args(const char* op, int64_t nd, const Tensor& x, const Tensor& weight,
                   const IntArray& stride, const IntArray& padding, const IntArray& dilation,
                   int64_t groups, const std::string& data_format,
                   const std::string& padding_algorithm);

// conv{1,2,3}d_transpose: weight is [C, M/groups, k...]. Also gives the output shape: each
// spatial size is (in - 1) * stride - pad_before - pad_after + dilation * (k - 1) + 1, plus
// output_padding, or output_size when given (which must lie in [that size, that size + stride)).
ConvArgs conv_transpose_args(const char* op, int64_t nd, const Tensor& x, const Tensor& weight,
                             const IntArray& stride, const IntArray& padding,
                             const IntArray& output_padding, const IntArray& dilation,
                             int64_t groups, const IntArray& output_size,
                             const std::string& data_format,
                             const std::string& padding_algorithm, Shape& out_shape);

// The kernel ops, in resolved form (see conv_args). convolution: out = x (*) weight + bias.
Meta convolution(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias,
                 const IntArray& stride, const IntArray& padding, const IntArray& dilation,
                 int64_t groups, bool channel_last);
// The gradient of convolution with respect to its input of shape input_shape (also the
// transposed convolution of out_grad).
Meta convolution_input_grad(const char* op, const Tensor& out_grad, const Tensor& weight,
                            const IntArray& input_shape, const IntArray& stride,
                            const IntArray& padding, const IntArray& dilation, int64_t groups,
                            bool channel_last);
// The gradient of convolution with respect to its weight of shape weight_shape.
Meta convolution_weight_grad(const char* op, const Tensor& x, const Tensor& out_grad,
                             const IntArray& weight_shape, const IntArray& stride,
                             const IntArray& padding, const IntArray& dilation, int64_t groups,
                             bool channel_last);

// The spatial output size of a convolution along one dim (floor division; may be <= 0).
inline int64_t conv_out_size(int64_t in, int64_t k, int64_t stride, int64_t dilation,
                             int64_t pad_before, int64_t pad_after) {
  // Checked: dilation, paddings and sizes come from the user and may be anything.
  const int64_t kernel_span = checked_mul(dilation, k - 1, "convolution", "the dilated kernel size") + 1;
  const int64_t padded = checked_add(checked_add(in, pad_before, "convolution", "the padded size"), pad_after,
                                     "convolution", "the padded size");
  const int64_t span = padded - kernel_span;
  return span < 0 ? 0 - ((-span + stride - 1) / stride) + 1 : span / stride + 1;
}

}  // namespace oar::infer_meta
