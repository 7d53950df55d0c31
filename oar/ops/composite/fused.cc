// Composite ops of the fused family (oar/ops/specs/fused.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include "oar/ops/composite/composite.h"

namespace OAR_COMPOSITE_NAMESPACE {

Tensor fused_activation(const Tensor& x, const std::string& activation) {
  if (activation == "none") return x;
  if (activation == "relu") return relu(x);
  if (activation == "gelu") return gelu(x, false);
  if (activation == "gelu_tanh") return gelu(x, true);
  if (activation == "silu") return silu(x);
  if (activation == "sigmoid") return sigmoid(x);
  if (activation == "tanh") return tanh(x);
  OAR_THROW(InvalidArgument, "fused_activation: argument 'activation' must be one of none, relu, gelu, ",
            "gelu_tanh, silu, sigmoid, tanh, got '", activation, "'");
}

Tensor fused_matmul_bias(const Tensor& x, const Tensor& y, const Tensor& bias, bool transpose_x,
                         bool transpose_y, const std::string& activation) {
  Tensor direct = matmul_bias_act_direct(x, y, bias, transpose_x, transpose_y, activation);
  if (direct.defined()) return direct;
  return activate_temporary(add(matmul(x, y, transpose_x, transpose_y), bias), activation);
}

Tensor fused_conv2d_bias_act(const Tensor& x, const Tensor& weight, const Tensor& bias,
                             const IntArray& stride, const IntArray& padding, const IntArray& dilation,
                             int64_t groups, const std::string& data_format,
                             const std::string& padding_algorithm, const std::string& activation) {
  return activate_temporary(
      conv2d(x, weight, bias, stride, padding, dilation, groups, data_format, padding_algorithm), activation);
}

}  // namespace OAR_COMPOSITE_NAMESPACE
