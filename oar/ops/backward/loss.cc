#include "oar/ops/backward/loss.h"

#include "oar/ops/generated/api/creation.h"
#include "oar/ops/generated/api/elementwise.h"
#include "oar/ops/generated/api/nn_common.h"
#include "oar/ops/generated/api/reduce.h"
#include "oar/ops/generated/api/shape.h"
#include "oar/ops/op_helpers.h"

namespace oar {

Tensor hard_cross_entropy_grad_weight(const Tensor& input, const Tensor& label, int64_t ignore_index,
                                      int64_t input_kind, const Tensor& grad_loss,
                                      const Tensor& grad_weight_sum) {
  const int64_t C = input.shape()[1];
  const Tensor valid = cast(not_equal(label, full_like(label, ignore_index)), input.dtype());
  const Tensor safe = where(not_equal(label, full_like(label, ignore_index)), label, zeros_like(label));
  const Tensor onehot = cast(one_hot(safe, C), input.dtype());
  const Tensor picked = sum(input * onehot, {1});
  Tensor coef = zeros_like(picked);
  if (grad_loss.defined()) {
    const Tensor nlp = input_kind == 0   ? logsumexp(input, {1}, false) - picked
                       : input_kind == 1 ? -log(picked)
                                         : -picked;
    coef = coef + grad_loss * nlp;
  }
  if (grad_weight_sum.defined()) coef = coef + grad_weight_sum;
  return sum(unsqueeze(coef * valid, {1}) * onehot, {0});
}

}  // namespace oar
