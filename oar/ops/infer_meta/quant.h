// Shape/dtype rules and argument checks of the quantization ops (oar/ops/specs/quant.yaml).
#pragma once
#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// fake_quantize_dequantize: out like x; scale holds one value.
Meta fake_quantize_dequantize(const char* op, const Tensor& x, const Tensor& scale, int64_t bit_length,
                              int64_t round_type);
// quantize_linear / dequantize_linear: out like x; scale holds one value (quant_axis -1) or one
// per index of x's quant_axis.
Meta quantize_linear(const char* op, const Tensor& x, const Tensor& scale, const Tensor& zero_point,
                     int64_t quant_axis, int64_t bit_length, int64_t round_type);
Meta dequantize_linear(const char* op, const Tensor& x, const Tensor& scale, const Tensor& zero_point,
                       int64_t quant_axis, int64_t bit_length);

}  // namespace oar::infer_meta

namespace oar::infer_meta {

// quantized_linear: x [..., K] float32, weight [K, N], scales of one value (weight_scale: one or
// N), bias [N]: out [..., N] float32.
Meta quantized_linear(const char* op, const Tensor& x, const Tensor& x_scale, const Tensor& x_dequant_scale,
                      const Tensor& weight, const Tensor& weight_scale, const Tensor& bias);

}  // namespace oar::infer_meta

namespace oar::infer_meta {

// quantized_convolution: convolution's rule for x and weight (float32), scales of one value
// (weight_scale: one or one per output channel).
Meta quantized_convolution(const char* op, const Tensor& x, const Tensor& x_scale, const Tensor& x_dequant_scale,
                           const Tensor& weight, const Tensor& weight_scale, const Tensor& bias,
                           const IntArray& stride, const IntArray& padding, const IntArray& dilation, int64_t groups,
                           bool channel_last);

}  // namespace oar::infer_meta

namespace oar::infer_meta {

// quantize_dequantize: out like x; both scales hold one value.
Meta quantize_dequantize(const char* op, const Tensor& x, const Tensor& scale, const Tensor& dequant_scale,
                         int64_t bit_length, int64_t round_type);

}  // namespace oar::infer_meta
