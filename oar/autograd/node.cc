#include "oar/autograd/node.h"

#include "oar/autograd/grad_mode.h"
#include "oar/ops/generated/api/creation.h"
#include "oar/ops/generated/api/elementwise.h"

namespace oar::autograd {

namespace {
thread_local bool t_grad_enabled = true;
std::atomic<uint64_t> g_next_sequence_nr{0};
}  // namespace

bool grad_enabled() { return t_grad_enabled; }
void set_grad_enabled(bool enabled) { t_grad_enabled = enabled; }

Node::Node() : sequence_nr(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

AccumulateGrad::AccumulateGrad(const std::shared_ptr<TensorImpl>& leaf) : leaf_(leaf) {
  output_meta.push_back({leaf->shape, leaf->dtype, leaf->storage ? leaf->storage->place() : CPUPlace()});
}

TensorList AccumulateGrad::apply(TensorList&& grads) {
  auto impl = leaf_.lock();
  if (!impl || !grads[0].defined()) return {};
  AutogradMeta& m = impl->meta();
  Tensor g = grads[0];
  for (auto& [id, hook] : m.leaf_hooks) {
    Tensor r = hook(g);
    if (r.defined()) g = r;
  }
  if (g.dtype() != impl->dtype) g = cast(g, impl->dtype);
  // Without create_graph the stored grad carries no history.
  if (!grad_enabled()) g = g.detach();
  if (!m.grad.defined()) {
    // Own a fresh buffer: the incoming gradient may alias another tensor.
    m.grad = grad_enabled() ? g : g.clone().detach();
  } else if (grad_enabled()) {
    m.grad = add(m.grad, g);
  } else {
    m.grad = add(m.grad, g).detach();
  }
  return {};
}

SavedTensor::SavedTensor(const Tensor& t, bool is_output) : is_output_(is_output) {
  if (!t.defined()) return;
  version_ = t.storage()->version();
  requires_grad_ = t.requires_grad();
  if (is_output) {
    data_ = t.detach();  // drop history; re-attached on unpack
    data_.impl()->name = t.name();
    if (t.impl()->autograd) output_nr_ = t.impl()->autograd->output_nr;
  } else {
    data_ = t;
  }
}

Tensor SavedTensor::unpack(const std::shared_ptr<Node>& node, const char* op) const {
  OAR_ENFORCE(!node->released(), PreconditionNotMet, op,
              ": trying to run backward through the graph a second time (its saved tensors were "
              "freed after the first backward). Pass retain_graph=True to the first backward() "
              "if you need to backward twice");
  if (!data_.defined()) return data_;
  OAR_ENFORCE(data_.storage()->version() == version_, PreconditionNotMet, op,
              ": a tensor saved for the backward pass was modified by an in-place operation (its "
              "version is ", data_.storage()->version(), ", expected ", version_,
              "). Use the out-of-place op, or clone() the tensor before modifying it");
  if (is_output_ && requires_grad_ && grad_enabled()) {
    // create_graph: the output re-enters the graph through its own node.
    Tensor t = Tensor::make_view(data_, data_.shape(), data_.strides(), data_.offset());
    set_history(t, node, output_nr_);
    return t;
  }
  return data_;
}

bool any_requires_grad(std::initializer_list<const Tensor*> inputs) {
  if (!grad_enabled()) return false;
  for (const Tensor* t : inputs)
    if (t && t->defined() && t->requires_grad()) return true;
  return false;
}

Edge edge_of(const Tensor& t) {
  if (!t.defined() || t.stop_gradient()) return {};
  AutogradMeta& m = t.impl()->meta();
  if (m.grad_fn) return {m.grad_fn, m.output_nr};
  auto acc = m.grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t.impl_ptr());
    m.grad_accumulator = acc;
  }
  return {acc, 0};
}

void set_history(const Tensor& out, const std::shared_ptr<Node>& node, uint32_t output_nr) {
  AutogradMeta& m = out.impl()->meta();
  m.grad_fn = node;
  m.output_nr = output_nr;
  m.stop_gradient = false;
}

void record(const std::shared_ptr<Node>& node, const std::vector<const Tensor*>& inputs,
            const std::vector<const Tensor*>& outputs) {
  node->next_edges.reserve(inputs.size());
  for (const Tensor* t : inputs) node->next_edges.push_back(t ? edge_of(*t) : Edge{});
  node->output_meta.reserve(outputs.size());
  for (uint32_t k = 0; k < outputs.size(); ++k) {
    const Tensor& out = *outputs[k];
    node->output_meta.push_back({out.shape(), out.dtype(), out.place()});
    if (is_differentiable(out.dtype())) set_history(out, node, k);
  }
}

void check_inplace(const Tensor& self, const char* op) {
  if (!grad_enabled() || !self.requires_grad() || !self.is_leaf()) return;
  OAR_THROW(InvalidArgument, op, ": Leaf Tensor", self.name().empty() ? "" : " (" + self.name() + ")",
            " that doesn't stop gradient can't use inplace strategy. Wrap the update in "
            "oar.no_grad() or set stop_gradient=True first");
}

}  // namespace oar::autograd
