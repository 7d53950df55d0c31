// Composite ops of the loss family (oar/ops/specs/loss.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include "oar/ops/composite/composite.h"

#include "oar/ops/infer_meta/loss.h"
#ifndef OAR_SHAPE_ONLY  // used by the eager-only parts below
#include "oar/kernels/cpu/loss.h"
#include "oar/autograd/grad_mode.h"
#include "oar/autograd/node.h"
#endif

namespace OAR_COMPOSITE_NAMESPACE {

#ifndef OAR_SHAPE_ONLY  // runs kernels on values; programs declare its result types
Tensor hard_cross_entropy_grad(const Tensor& input, const Tensor& label, const Tensor& weight,
                               const Tensor& lse, const Tensor& out_grad, int64_t ignore_index,
                               int64_t input_kind) {
  {  // the forward's checks, and lse and the gradient shaped as it made them
    const auto fwd = infer_meta::hard_cross_entropy("hard_cross_entropy_grad", input, label, weight,
                                                    ignore_index, input_kind);
    check_same_meta("hard_cross_entropy_grad", "lse", lse, fwd[2].shape, fwd[2].dtype);
    check_same_meta("hard_cross_entropy_grad", "out_grad", out_grad, fwd[0].shape, fwd[0].dtype);
  }
  if ((autograd::grad_enabled() && autograd::any_requires_grad({&input, &weight, &out_grad})) ||
      !input.place().is_host()) {
    // create_graph=True: the same gradient with differentiable ops (also a device's path: it has
    // no kernel for the fused host one).
    const int64_t C = input.shape()[1];
    const Tensor valid = not_equal(label, full_like(label, ignore_index));
    const Tensor safe = where(valid, label, zeros_like(label));
    const Tensor onehot = cast(one_hot(safe, C), input.dtype());
    Tensor coef = out_grad * cast(valid, input.dtype());
    if (weight.defined()) coef = coef * gather(weight, safe, 0);
    coef = unsqueeze(coef, {1});
    if (input_kind == 0) return (softmax_base(input, 1) - onehot) * coef;
    if (input_kind == 1) return -onehot * coef / unsqueeze(sum(input * onehot, {1}), {1});
    return -onehot * coef;
  }
  Tensor out = Tensor::make(input.shape(), input.dtype());
  kernels::hard_cross_entropy_grad(input, label, weight, lse, out_grad, ignore_index,
                                   static_cast<kernels::CEInput>(input_kind), out);
  return out;
}
#endif

}  // namespace OAR_COMPOSITE_NAMESPACE
