// An int8 Linear layer for the predictor's quantized programs (oar/ops/specs/quant.yaml,
// quantized_linear): activations quantized per tensor, weights already integers, an int8 GEMM
// with int32 sums through oneDNN (VNNI on CPUs that have it), results scaled back to float32.
#pragma once
#include "oar/core/tensor.h"

namespace oar::kernels {

void quantized_linear(const Tensor& x, const Tensor& x_scale, const Tensor& x_dequant_scale, const Tensor& weight,
                      const Tensor& weight_scale, const Tensor& bias, const Tensor& out);

}  // namespace oar::kernels
