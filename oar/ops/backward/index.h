// Backward formulas of the index ops too long to read inside oar/ops/specs/index.yaml, which
// names them. Written with other ops, so they differentiate again (create_graph=True).
#pragma once
#include <vector>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar {

// d masked_scatter / d value.
Tensor masked_scatter_grad_value(const Tensor& mask, const Tensor& value, const Tensor& grad);

}  // namespace oar
