// Backward formulas of the linalg ops too long to read inside oar/ops/specs/linalg.yaml, which
// names them. Written with other ops, so they differentiate again (create_graph=True).
#pragma once
#include <vector>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar {

// d matmul / d x: A 1-D x acts as [1, K] and a 1-D y as [K, 1] (their transpose flags do not
// apply); the gradient is a matmul with transposes, summed over the batch dims that were broadcast.
Tensor matmul_grad_x(const Tensor& x, const Tensor& y, bool transpose_x, bool transpose_y,
                     const Tensor& grad);
// d matmul / d y.
Tensor matmul_grad_y(const Tensor& x, const Tensor& y, bool transpose_x, bool transpose_y,
                     const Tensor& grad);
// d matrix_exp / d x.
Tensor matrix_exp_grad_x(const Tensor& x, const Tensor& grad);

}  // namespace oar
