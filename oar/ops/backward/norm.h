// Backward formulas of the norm ops too long to read inside oar/ops/specs/norm.yaml.
#pragma once
#include <array>
#include <cstdint>

#include "oar/autograd/node.h"
#include "oar/core/tensor.h"

namespace oar {

// The gradient of fused_norm's input k (0 x, 1 bias, 2 residual, 3 norm_weight, 4 norm_bias;
// first_edge is x's edge), computing the later inputs' wanted gradients in the same pass and
// leaving them in `result` for their own formulas. From the host kernel: not differentiable again.
Tensor fused_norm_input_grad(const autograd::Node& node, autograd::TensorList& result, size_t first_edge,
                             size_t k, const Tensor& bias, const Tensor& residual, const Tensor& norm_weight,
                             const Tensor& norm_bias, const Tensor& residual_out, const Tensor& mean,
                             const Tensor& rstd, const Tensor& grad_out, const Tensor& grad_residual_out,
                             int64_t begin_norm_axis, double residual_alpha, bool rms);

}  // namespace oar
