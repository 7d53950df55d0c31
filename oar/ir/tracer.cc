#include "oar/ir/tracer.h"

#include "oar/ir/block.h"
#include "oar/ir/op_registry.h"

namespace oar::ir {

bool g_tracing_possible = false;

namespace {

thread_local Tracer* t_current = nullptr;

// Points `slot` at another builder for the scope (a region being built), then back.
class BuilderSwap {
 public:
  BuilderSwap(Builder*& slot, Builder* b) : slot_(slot), saved_(slot) { slot_ = b; }
  ~BuilderSwap() { slot_ = saved_; }

 private:
  Builder*& slot_;
  Builder* saved_;
};

bool any_requires_grad(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts)
    if (t.defined() && !t.stop_gradient()) return true;
  return false;
}

}  // namespace

Tracer* current_tracer() { return t_current; }

Tracer* exchange_current_tracer(Tracer* t) {
  Tracer* previous = t_current;
  t_current = t;
  if (t) g_tracing_possible = true;
  return previous;
}

TracingScope::TracingScope(Tracer* t) : previous_(t_current) {
  t_current = t;
  if (t) g_tracing_possible = true;
}
TracingScope::~TracingScope() { t_current = previous_; }

Tracer::Tracer(std::shared_ptr<Program> program) : program_(std::move(program)), builder_(*program_) {}

Tensor Tracer::symbolic(Value* v) const {
  static const std::shared_ptr<Storage> no_memory =
      std::make_shared<Storage>(nullptr, 0, CPUPlace(), [](void*) {});
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = v->type().dtype;
  impl->shape = v->type().shape;
  Shape known = impl->shape;
  bool unknown = false;
  for (auto& d : known)
    if (d < 0) d = 1, unknown = true;
  impl->strides = contiguous_strides(known);
  impl->numel = unknown ? -1 : numel_of(known);
  impl->storage = no_memory;
  impl->symbolic = std::make_shared<TracedValue>(v, program_);
  return Tensor(std::move(impl));
}

std::vector<Tensor> Tracer::symbolics(const std::vector<Value*>& vs, bool stop_gradient) const {
  std::vector<Tensor> out;
  for (Value* v : vs) {
    Tensor t = symbolic(v);
    if (!stop_gradient && is_differentiable(t.dtype())) t.set_stop_gradient(false);
    out.push_back(std::move(t));
  }
  return out;
}

Value* Tracer::capture(const Tensor& t) {
  auto it = captured_values_.find(t.impl());
  if (it != captured_values_.end()) return it->second;
  OAR_ENFORCE(t.numel() == 0 || t.impl()->storage->data() != nullptr, PreconditionNotMet,
              "static program: an operand has neither data nor a program value (a view of a symbolic ",
              "tensor made outside the op library?)");
  std::string name = t.name();
  if (name.empty()) {
    do name = "_const_" + std::to_string(next_const_++);
    while (captured_.count(name));
  }
  OAR_ENFORCE(!captured_.count(name), InvalidArgument, "static program: two different tensors are both named '",
              name, "'; give each parameter its own name");
  // Parameters go first in the top block, before any op that could use them (also when the
  // first use is inside a region).
  Block& top = program_->block();
  auto pos = top.begin();
  while (pos != top.end() && (*pos)->name() == "parameter") ++pos;
  Builder at(&top);
  at.set_insertion_point(&top, pos);
  Value* v = at.parameter(name, TensorType(t.dtype(), t.shape()));
  captured_values_[t.impl()] = v;
  // Kept where it lives: the executor moves a parameter that is not on its place there.
  captured_[name] = t;
  return v;
}

Value* Tracer::value_of(const Tensor& t) {
  OAR_ENFORCE(t.defined(), InvalidArgument, "static program: an operand tensor is undefined");
  if (!t.is_symbolic()) return capture(t);
  const TracedValue* bound = traced(t);
  OAR_ENFORCE(bound && bound->program == program_, InvalidArgument,
              "static program: this tensor belongs to another program (it was made under another "
              "program_guard); build each program from its own inputs");
  return bound->value;
}

std::vector<Value*> Tracer::values_of(const std::vector<Tensor>& ts) {
  std::vector<Value*> out;
  for (const Tensor& t : ts) out.push_back(value_of(t));
  return out;
}

std::vector<Tensor> Tracer::record(const std::string& op, const std::vector<std::vector<Tensor>>& slots,
                                   const AttributeMap& attrs) {
  const OpDef& def = OpRegistry::global().get(op);
  OAR_ENFORCE(def.rule != TypeRule::Declared, Unimplemented, op,
              ": cannot be used while building a static program: it has no compile-time shape rule (its "
              "result shape depends on the input values, or a kernel computes it that only runs eagerly); "
              "compute it in dynamic mode");
  Operands operands;
  bool requires_grad = false;
  for (const auto& slot : slots) {
    operands.emplace_back();
    for (const Tensor& t : slot)
      if (t.defined()) operands.back().push_back(value_of(t));
    requires_grad = requires_grad || any_requires_grad(slot);
  }
  Operation* o = current_->create(op, operands, attrs);
  if (location_) o->set_location(location_());
  return symbolics(o->results(), !requires_grad);
}

Tensor Tracer::data(const std::string& name, DType dtype, const std::vector<int64_t>& shape) {
  Value* v = current_->data(name, TensorType(dtype, shape));
  if (location_) v->defining_op()->set_location(location_());
  return symbolic(v);
}

std::vector<Tensor> Tracer::cond(const Tensor& pred, const Branch& then_fn, const Branch& else_fn) {
  Value* p = value_of(pred);
  bool requires_grad = false;
  auto branch = [&](const Branch& fn) {
    return [&, fn](Builder& b) {
      BuilderSwap swap(current_, &b);
      std::vector<Tensor> out = fn();
      requires_grad = requires_grad || any_requires_grad(out);
      return values_of(out);
    };
  };
  std::vector<Value*> results = current_->cond(p, branch(then_fn), branch(else_fn));
  if (location_) results.empty() ? void() : results[0]->defining_op()->set_location(location_());
  return symbolics(results, !requires_grad);
}

std::vector<Tensor> Tracer::while_loop(
    const std::vector<Tensor>& inits, const std::function<Tensor(const std::vector<Tensor>&)>& cond_fn,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body_fn) {
  std::vector<Value*> init_values = values_of(inits);
  const bool stop = !any_requires_grad(inits);
  std::vector<Value*> results = current_->while_loop(
      init_values,
      [&](Builder& b, const std::vector<Value*>& args) {
        BuilderSwap swap(current_, &b);
        return value_of(cond_fn(symbolics(args, stop)));
      },
      [&](Builder& b, const std::vector<Value*>& args) {
        BuilderSwap swap(current_, &b);
        return values_of(body_fn(symbolics(args, stop)));
      });
  return symbolics(results, stop);
}

std::vector<Tensor> trace_op(const char* op, const std::vector<std::vector<Tensor>>& slots,
                             const AttributeMap& attrs) {
  return t_current->record(op, slots, attrs);
}

void rebind_symbolic(Tensor& x, const Tensor& r) {
  OAR_ENFORCE(x.is_symbolic(), PreconditionNotMet,
              "in-place op on a tensor with data while building a static program: static programs "
              "cannot overwrite their inputs or parameters; use the out-of-place op");
  TensorImpl& xi = *x.impl();
  const TensorImpl& ri = *r.impl();
  xi.dtype = ri.dtype;
  xi.shape = ri.shape;
  xi.strides = ri.strides;
  xi.numel = ri.numel;
  xi.symbolic = ri.symbolic;
}

}  // namespace oar::ir
