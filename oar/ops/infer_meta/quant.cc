#include "oar/ops/infer_meta/quant.h"

namespace oar::infer_meta {

namespace {
void check_common(const char* op, const Tensor& x, const Tensor& scale, int64_t quant_axis, int64_t bit_length) {
  check_floating(op, "x", x);
  check_floating(op, "scale", scale);
  OAR_ENFORCE_ARG(bit_length >= 2 && bit_length <= 16, op, ": argument 'bit_length' must be in [2, 16], got ",
                  bit_length);
  if (quant_axis == -1) {
    OAR_ENFORCE_ARG(scale.numel() == 1, op, ": argument 'scale' must hold one value for a per-tensor scale ",
                    "(quant_axis -1), got shape ", shape_str(scale.shape()));
    return;
  }
  OAR_ENFORCE(quant_axis >= 0 && quant_axis < x.ndim(), OutOfRange, op, ": argument 'quant_axis' must be -1 or in [0, ",
              x.ndim(), "), got ", quant_axis);
  OAR_ENFORCE_ARG(scale.ndim() == 1 && scale.numel() == x.shape()[quant_axis], op,
                  ": argument 'scale' must have shape [", x.shape()[quant_axis], "] (x's dim ", quant_axis,
                  "), got ", shape_str(scale.shape()));
}
}  // namespace

Meta fake_quantize_dequantize(const char* op, const Tensor& x, const Tensor& scale, int64_t bit_length,
                              int64_t round_type) {
  check_common(op, x, scale, -1, bit_length);
  OAR_ENFORCE_ARG(round_type == 0 || round_type == 1, op,
                  ": argument 'round_type' must be 0 (half to even) or 1 (half away from zero), got ", round_type);
  return {x.shape(), x.dtype()};
}

Meta quantize_linear(const char* op, const Tensor& x, const Tensor& scale, const Tensor&, int64_t quant_axis,
                     int64_t bit_length, int64_t round_type) {
  check_common(op, x, scale, quant_axis, bit_length);
  OAR_ENFORCE_ARG(round_type == 0 || round_type == 1, op,
                  ": argument 'round_type' must be 0 (half to even) or 1 (half away from zero), got ", round_type);
  return {x.shape(), x.dtype()};
}

Meta dequantize_linear(const char* op, const Tensor& x, const Tensor& scale, const Tensor&, int64_t quant_axis,
                       int64_t bit_length) {
  check_common(op, x, scale, quant_axis, bit_length);
  return {x.shape(), x.dtype()};
}

}  // namespace oar::infer_meta

namespace oar::infer_meta {

Meta quantized_linear(const char* op, const Tensor& x, const Tensor& x_scale, const Tensor& x_dequant_scale,
                      const Tensor& weight, const Tensor& weight_scale, const Tensor& bias) {
  OAR_ENFORCE(x.dtype() == DType::Float32 && weight.dtype() == DType::Float32, TypeMismatch, op,
              ": x and weight must be float32, got ", dtype_name(x.dtype()), " and ", dtype_name(weight.dtype()));
  OAR_ENFORCE_ARG(x.ndim() >= 1 && weight.ndim() == 2 && x.shape().back() == weight.shape()[0], op,
                  ": x [..., K] and weight [K, N] expected, got ", shape_str(x.shape()), " and ",
                  shape_str(weight.shape()));
  const int64_t n = weight.shape()[1];
  for (auto [t, arg] : {std::pair{&x_scale, "x_scale"}, std::pair{&x_dequant_scale, "x_dequant_scale"}})
    OAR_ENFORCE_ARG(t->numel() == 1, op, ": argument '", arg, "' must hold one value, got shape ",
                    shape_str(t->shape()));
  OAR_ENFORCE_ARG(weight_scale.numel() == 1 || (weight_scale.ndim() == 1 && weight_scale.numel() == n), op,
                  ": argument 'weight_scale' must hold one value or ", n, ", got shape ",
                  shape_str(weight_scale.shape()));
  if (bias.defined())
    OAR_ENFORCE_ARG(bias.ndim() == 1 && bias.numel() == n, op, ": argument 'bias' must have shape [", n,
                    "], got ", shape_str(bias.shape()));
  Shape out = x.shape();
  out.back() = n;
  return {out, DType::Float32};
}

}  // namespace oar::infer_meta

#include "oar/ops/infer_meta/conv.h"

namespace oar::infer_meta {

Meta quantized_convolution(const char* op, const Tensor& x, const Tensor& x_scale, const Tensor& x_dequant_scale,
                           const Tensor& weight, const Tensor& weight_scale, const Tensor& bias,
                           const IntArray& stride, const IntArray& padding, const IntArray& dilation, int64_t groups,
                           bool channel_last) {
  OAR_ENFORCE(x.dtype() == DType::Float32 && weight.dtype() == DType::Float32, TypeMismatch, op,
              ": x and weight must be float32, got ", dtype_name(x.dtype()), " and ", dtype_name(weight.dtype()));
  for (auto [t, arg] : {std::pair{&x_scale, "x_scale"}, std::pair{&x_dequant_scale, "x_dequant_scale"}})
    OAR_ENFORCE_ARG(t->numel() == 1, op, ": argument '", arg, "' must hold one value, got shape ",
                    shape_str(t->shape()));
  const Meta m = convolution(op, x, weight, bias, stride, padding, dilation, groups, channel_last);
  const int64_t channels = weight.shape()[0];
  OAR_ENFORCE_ARG(weight_scale.numel() == 1 || (weight_scale.ndim() == 1 && weight_scale.numel() == channels), op,
                  ": argument 'weight_scale' must hold one value or ", channels, " (one per output channel), got shape ",
                  shape_str(weight_scale.shape()));
  return m;
}

}  // namespace oar::infer_meta

namespace oar::infer_meta {

Meta quantize_dequantize(const char* op, const Tensor& x, const Tensor& scale, const Tensor& dequant_scale,
                         int64_t bit_length, int64_t round_type) {
  check_floating(op, "dequant_scale", dequant_scale);
  OAR_ENFORCE_ARG(dequant_scale.numel() == 1, op, ": argument 'dequant_scale' must hold one value, got shape ",
                  shape_str(dequant_scale.shape()));
  return quantize_linear(op, x, scale, Tensor(), -1, bit_length, round_type);
}

}  // namespace oar::infer_meta
