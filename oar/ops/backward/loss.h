// Backward formulas of the loss ops too long to read inside oar/ops/specs/loss.yaml, which
// names them. Written with other ops, so they differentiate again (create_graph=True).
#pragma once
#include <vector>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar {

// d hard_cross_entropy / d weight: d loss_i / d weight[l_i] = -log p(i, l_i) and d weight_sum_i / d
// weight[l_i] = 1 (non-ignored rows), summed per class; written with differentiable ops (rarely
// needed: class weights are usually constants).
Tensor hard_cross_entropy_grad_weight(const Tensor& input, const Tensor& label, int64_t ignore_index,
                                      int64_t input_kind, const Tensor& grad_loss,
                                      const Tensor& grad_weight_sum);

}  // namespace oar
