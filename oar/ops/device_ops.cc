#include "oar/ops/device_ops.h"

#include "oar/autograd/grad_mode.h"
#include "oar/autograd/node.h"
#include "oar/ir/tracer.h"
#include "oar/ops/device_dispatch.h"

namespace oar {

namespace {
struct ToPlaceGrad : autograd::Node {
  Place source;
  autograd::TensorList apply(autograd::TensorList&& grads) override {
    return {to_place(grads[0], source)};
  }
  const char* name() const override { return "ToPlaceGrad"; }
};
}  // namespace

Tensor to_place(const Tensor& x, const Place& place) {
  // An absent optional stays absent; a program runs on one place (its executor's), so the move
  // is not an op there.
  if (!x.defined() || x.is_symbolic() || x.place() == place) return x;
  Tensor out = ops::copy_to_place(x, place);
  if (autograd::any_requires_grad({&x})) {
    auto node = std::make_shared<ToPlaceGrad>();
    node->source = x.place();
    std::vector<const Tensor*> ins{&x};
    std::vector<const Tensor*> outs{&out};
    autograd::record(node, ins, outs);
  }
  return out;
}

Tensor Tensor::to(const Place& place) const { return to_place(*this, place); }
Tensor Tensor::cpu() const { return to_place(*this, CPUPlace()); }

}  // namespace oar
