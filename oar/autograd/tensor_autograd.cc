// The Tensor members of autograd: stop_gradient, grad, hooks, backward. Declared in
// oar/core/tensor.h, defined here because they need autograd's types (TensorImpl's AutogradMeta
// is complete only in this layer, so its constructor and destructor live here too).
#include <memory>

#include "oar/autograd/engine.h"
#include "oar/autograd/grad_mode.h"
#include "oar/autograd/node.h"
#include "oar/core/tensor.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/ops/generated/api/creation.h"
#include "oar/ops/generated/api/elementwise.h"

namespace oar {

TensorImpl::TensorImpl() = default;
TensorImpl::~TensorImpl() = default;

autograd::AutogradMeta& TensorImpl::meta() {
  if (!autograd) autograd = std::make_unique<autograd::AutogradMeta>();
  return *autograd;
}

bool Tensor::stop_gradient() const { return !impl_->autograd || impl_->autograd->stop_gradient; }

Tensor& Tensor::set_stop_gradient(bool value) {
  if (!value) {
    OAR_ENFORCE(is_differentiable(dtype()), TypeMismatch,
                "stop_gradient=False: only floating-point and complex tensors can require ",
                "gradients, got dtype ", dtype_name(dtype()));
  }
  impl_->meta().stop_gradient = value;
  return *this;
}

bool Tensor::is_leaf() const { return !impl_->autograd || !impl_->autograd->grad_fn; }

Tensor Tensor::grad() const { return impl_->autograd ? impl_->autograd->grad : Tensor(); }

void Tensor::set_grad(const Tensor& g) { impl_->meta().grad = g; }

void Tensor::clear_grad(bool set_to_zero) {
  if (!impl_->autograd || !impl_->autograd->grad.defined()) return;
  Tensor& g = impl_->autograd->grad;
  if (set_to_zero) {
    if (g.place().is_host()) {
      kernels::fill(g, 0);
    } else {
      g.copy_(oar::full(IntArray{}, 0, g.dtype()));
    }
    g.bump_version();
  } else {
    g = Tensor();
  }
}

void Tensor::backward(const Tensor& grad_tensor, bool retain_graph) const {
  autograd::backward({*this}, {grad_tensor}, retain_graph);
}

void Tensor::retain_grads() const {
  if (is_leaf()) return;
  auto& m = impl_->meta();
  if (m.retain_grads) return;
  m.retain_grads = true;
  std::weak_ptr<TensorImpl> weak = impl_;
  register_hook([weak](const Tensor& g) {
    if (auto impl = weak.lock()) {
      auto& meta = impl->meta();
      meta.grad = meta.grad.defined() ? oar::add(meta.grad, g).detach() : g.detach();
    }
    return Tensor();
  });
}

namespace {
int64_t g_next_hook_id = 1;
}

int64_t Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  OAR_ENFORCE(!stop_gradient(), PreconditionNotMet,
              "register_hook: cannot register a hook on a tensor with stop_gradient=True");
  const int64_t id = g_next_hook_id++;
  auto& m = impl_->meta();
  if (m.grad_fn) {
    m.grad_fn->output_hooks.push_back({m.output_nr, {id, std::move(hook)}});
  } else {
    m.leaf_hooks.emplace_back(id, std::move(hook));
  }
  return id;
}

void Tensor::remove_hook(int64_t id) const {
  if (!impl_->autograd) return;
  auto& m = *impl_->autograd;
  std::erase_if(m.leaf_hooks, [id](const auto& h) { return h.first == id; });
  if (m.grad_fn)
    std::erase_if(m.grad_fn->output_hooks, [id](const auto& h) { return h.second.first == id; });
}

}  // namespace oar
