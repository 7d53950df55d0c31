// Tracer: builds a program from ordinary op calls. While a tracer is active on a thread, every
// generated C++ API function records its op here instead of running it and returns symbolic
// tensors (shape and dtype, no memory) that stand for the op's results. That one hook gives
// static mode (`oar.enable_static()`), program building from Python and to_static.
//
// Operands that are symbolic tensors are their values; a concrete tensor used as an operand
// (a layer's weight, a constant made with to_tensor) becomes a `parameter` op named after the
// tensor (or `_const_N` when it has no name) and is remembered in `captured()`, so whoever runs
// the program can supply it.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/ir/builder.h"
#include "oar/ir/program.h"

namespace oar::ir {

// What a symbolic tensor stands for (its TensorImpl::symbolic): `value` of `program`, which the
// binding keeps alive.
struct TracedValue final : SymbolicBinding {
  TracedValue(Value* v, std::shared_ptr<Program> p) : value(v), program(std::move(p)) {}
  Value* value;
  std::shared_ptr<Program> program;
};
// The binding of a symbolic tensor; null for a tensor with data.
inline const TracedValue* traced(const Tensor& t) {
  return dynamic_cast<const TracedValue*>(t.impl()->symbolic.get());
}

class Tracer {
 public:
  explicit Tracer(std::shared_ptr<Program> program);
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  Program& program() const { return *program_; }
  const std::shared_ptr<Program>& program_ptr() const { return program_; }

  // Records `op` (a registered op) with its operands by slot and its attributes; returns its
  // results as symbolic tensors.
  std::vector<Tensor> record(const std::string& op, const std::vector<std::vector<Tensor>>& slots,
                             const AttributeMap& attrs);
  // A program input (a `data` op); -1 marks a dim unknown until run time.
  Tensor data(const std::string& name, DType dtype, const std::vector<int64_t>& shape);
  // if/else on a one-element bool tensor; each branch returns the tensors to yield.
  using Branch = std::function<std::vector<Tensor>()>;
  std::vector<Tensor> cond(const Tensor& pred, const Branch& then_fn, const Branch& else_fn);
  // Loop over `inits`: cond_fn(vars) gives the bool to continue with, body_fn(vars) the next vars.
  std::vector<Tensor> while_loop(const std::vector<Tensor>& inits,
                                 const std::function<Tensor(const std::vector<Tensor>&)>& cond_fn,
                                 const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body_fn);

  // The value a tensor stands for in this program (captures concrete tensors as parameters).
  Value* value_of(const Tensor& t);
  // A symbolic tensor standing for `v`.
  Tensor symbolic(Value* v) const;
  // Concrete tensors used by the program, by parameter name.
  const std::map<std::string, Tensor>& captured() const { return captured_; }
  // Gives the user's source location ("file.py:12") for each recorded op; empty: none.
  void set_location_provider(std::function<std::string()> fn) { location_ = std::move(fn); }

 private:
  Value* capture(const Tensor& t);
  std::vector<Value*> values_of(const std::vector<Tensor>& ts);
  std::vector<Tensor> symbolics(const std::vector<Value*>& vs, bool stop_gradient) const;

  std::shared_ptr<Program> program_;
  Builder builder_;              // the top block
  Builder* current_ = &builder_;  // where ops go now (a region's builder while one is built)
  std::unordered_map<const TensorImpl*, Value*> captured_values_;
  std::map<std::string, Tensor> captured_;
  int64_t next_const_ = 0;
  std::function<std::string()> location_;
};

// The tracer active on this thread, or null.
Tracer* current_tracer();
// Makes `t` (or null) the active tracer of this thread; returns the previous one. For callers that
// cannot scope it (the Python layer's enable_static); C++ code uses TracingScope.
Tracer* exchange_current_tracer(Tracer* t);
// True while any thread might trace: lets every op call skip the thread-local lookup.
extern bool g_tracing_possible;
inline bool tracing_active() { return g_tracing_possible && current_tracer() != nullptr; }

// Makes `t` the active tracer of this thread for the scope (null: pauses tracing, so that the
// code inside runs eagerly, e.g. a layer initialising its weights in static mode).
class TracingScope {
 public:
  explicit TracingScope(Tracer* t);
  ~TracingScope();
  TracingScope(const TracingScope&) = delete;
  TracingScope& operator=(const TracingScope&) = delete;

 private:
  Tracer* previous_;
};

// The generated API functions record through these.
std::vector<Tensor> trace_op(const char* op, const std::vector<std::vector<Tensor>>& slots,
                             const AttributeMap& attrs);
template <typename R> R traced_result(std::vector<Tensor>&& v);
template <> inline Tensor traced_result<Tensor>(std::vector<Tensor>&& v) { return std::move(v.at(0)); }
template <> inline std::vector<Tensor> traced_result<std::vector<Tensor>>(std::vector<Tensor>&& v) {
  return std::move(v);
}
template <> inline std::tuple<Tensor, Tensor> traced_result<std::tuple<Tensor, Tensor>>(std::vector<Tensor>&& v) {
  return {v.at(0), v.at(1)};
}
template <>
inline std::tuple<Tensor, Tensor, Tensor> traced_result<std::tuple<Tensor, Tensor, Tensor>>(std::vector<Tensor>&& v) {
  return {v.at(0), v.at(1), v.at(2)};
}
template <>
inline std::tuple<Tensor, Tensor, Tensor, Tensor> traced_result<std::tuple<Tensor, Tensor, Tensor, Tensor>>(
    std::vector<Tensor>&& v) {
  return {v.at(0), v.at(1), v.at(2), v.at(3)};
}
// An in-place op on a symbolic tensor: `x` now stands for the result `r` (SSA: a new value).
void rebind_symbolic(Tensor& x, const Tensor& r);

}  // namespace oar::ir
