// The op registry: what the IR knows about each op: its operand slots, its attributes (kinds and
// defaults), its results and how their types follow from operand types and attributes. The
// generator (tools/gen_ops.py) registers one entry per spec op (ir_<family>.cc); builtin_ops.cc
// adds the structural ops (data, parameter, cond, while_loop, yield).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "oar/ir/attribute.h"
#include "oar/ir/operation.h"
#include "oar/ops/infer_meta/meta.h"

namespace oar::ir {

enum class OperandKind : uint8_t { Single, Optional, List };  // Tensor, Tensor?, Tensor[]

struct OperandDef {
  std::string name;
  OperandKind kind = OperandKind::Single;
};

struct AttrDef {
  std::string name;
  AttrKind kind;
  bool nullable = false;                  // `int?`, `DataType?`, `Scalar?`: none is allowed
  std::optional<Attribute> default_value;  // absent: the attribute is required
  std::string spec_type;                  // the spec's type ("IntArray", "int?", ...)
};

// What the type-inference functions see. For MetaFn, tensors are shape-only placeholders
// (no memory) built from the operand types; see type_inference.h.
struct MetaArgs {
  const std::vector<std::vector<Tensor>>* slots;
  const AttributeMap* attrs;
  const char* op;

  // The single tensor of a slot; an undefined Tensor for an absent optional operand.
  const Tensor& tensor(size_t slot) const;
  const std::vector<Tensor>& tensors(size_t slot) const { return slots->at(slot); }
  template <typename T>
  T attr(const char* name) const {
    auto it = attrs->find(name);
    OAR_ENFORCE(it != attrs->end(), NotFound, op, ": attribute '", name, "' is missing");
    return attr_as<T>(it->second, std::string(op) + ": attribute '" + name + "'");
  }
};
using MetaFn = std::vector<Meta> (*)(const MetaArgs&);

// Runs the op eagerly: the same MetaArgs, holding real tensors; returns the results (the C++ API
// call, so autograd records as usual). The executor and constant folding use it.
using ExecFn = std::vector<Tensor> (*)(const MetaArgs&);
inline std::vector<Tensor> exec_results(Tensor t) { return {std::move(t)}; }
inline std::vector<Tensor> exec_results(std::vector<Tensor> v) { return v; }
template <typename... T>
std::vector<Tensor> exec_results(std::tuple<T...> t) {
  return std::apply([](auto&... x) { return std::vector<Tensor>{x...}; }, t);
}

// For ops whose result types follow from the operation itself (control flow reads its regions).
struct TypeArgs {
  const std::vector<std::vector<TensorType>>* slots;
  const AttributeMap* attrs;
  const std::vector<std::unique_ptr<Region>>* regions;  // may be null
  const char* op;
};
using TypeFn = std::vector<TensorType> (*)(const TypeArgs&);
// Extra structural checks (the built-in ops); throw an oar::Error naming what is wrong.
using VerifyFn = void (*)(const Operation&);

// How an op's result types are found.
enum class TypeRule : uint8_t {
  InferMeta,   // the spec's infer_meta, run on placeholders
  MetaKernel,  // a view kernel that only computes geometry, run on placeholders
  Direct,      // a TypeFn on the types themselves (built-in ops)
  Composite,   // the composite body compiled shape-only (meta_tensor.h), run on placeholders
  Declared,    // none: data-dependent shapes, bodies that run kernels; the builder gives result types
};
const char* type_rule_name(TypeRule r);

struct OpDef {
  std::string name;
  std::string family;  // the spec file stem ("elementwise") or "builtin"
  std::vector<OperandDef> operands;
  std::vector<AttrDef> attrs;
  std::vector<std::string> results;  // result names; one name with variadic_results for Tensor[]
  bool variadic_results = false;
  TypeRule rule = TypeRule::Declared;
  MetaFn meta = nullptr;  // InferMeta and MetaKernel
  TypeFn types = nullptr; // Direct
  VerifyFn verify = nullptr;
  ExecFn exec = nullptr;  // every spec op; null for the built-in ops (the executor runs those)
  size_t num_regions = 0;
  bool is_terminator = false;
  // Traits for passes and the executor: the result is a view of operand 0 (shares its memory);
  // the name of the in-place variant (x is overwritten), empty when there is none.
  bool is_view = false;
  std::string inplace_variant;
  // The op draws from a random generator: two equal-looking ops give different results, and
  // none can be evaluated at compile time.
  bool is_random = false;
  // The op acts outside its results (prints, calls back into Python): passes never remove,
  // merge or fold it.
  bool has_side_effects = false;

  const AttrDef* find_attr(const std::string& n) const;
};

class OpRegistry {
 public:
  // The registry with every built-in and generated op (filled on first use).
  static OpRegistry& global();

  void add(OpDef def);  // throws on a duplicate name
  const OpDef* find(const std::string& name) const;
  // Throws NotFound naming the op.
  const OpDef& get(const std::string& name) const;
  // Every entry, sorted by name.
  std::vector<const OpDef*> all() const;
  size_t size() const { return defs_.size(); }

 private:
  std::unordered_map<std::string, std::unique_ptr<OpDef>> defs_;
};

// Defined in builtin_ops.cc and in the generated ir_ops.cc.
void register_builtin_ops(OpRegistry& r);
void register_generated_ops(OpRegistry& r);

}  // namespace oar::ir
