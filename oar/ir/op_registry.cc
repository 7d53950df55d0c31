#include "oar/ir/op_registry.h"

#include <algorithm>

namespace oar::ir {

const char* type_rule_name(TypeRule r) {
  switch (r) {
    case TypeRule::InferMeta: return "infer_meta";
    case TypeRule::MetaKernel: return "view kernel";
    case TypeRule::Direct: return "built-in";
    case TypeRule::Composite: return "composite";
    case TypeRule::Declared: return "declared";
  }
  return "?";
}

const Tensor& MetaArgs::tensor(size_t slot) const {
  static const Tensor undefined;
  const auto& s = slots->at(slot);
  return s.empty() ? undefined : s[0];
}

const AttrDef* OpDef::find_attr(const std::string& n) const {
  for (const auto& a : attrs)
    if (a.name == n) return &a;
  return nullptr;
}

OpRegistry& OpRegistry::global() {
  static OpRegistry* r = [] {
    auto* reg = new OpRegistry();  // never destroyed: ops may outlive static destructors
    register_builtin_ops(*reg);
    register_generated_ops(*reg);
    return reg;
  }();
  return *r;
}

void OpRegistry::add(OpDef def) {
  OAR_ENFORCE(!defs_.count(def.name), InvalidArgument, "OpRegistry: op '", def.name, "' registered twice");
  std::string name = def.name;
  defs_[name] = std::make_unique<OpDef>(std::move(def));
}

const OpDef* OpRegistry::find(const std::string& name) const {
  auto it = defs_.find(name);
  return it == defs_.end() ? nullptr : it->second.get();
}

const OpDef& OpRegistry::get(const std::string& name) const {
  const OpDef* d = find(name);
  OAR_ENFORCE(d != nullptr, NotFound, "IR: no op named '", name, "' is registered");
  return *d;
}

std::vector<const OpDef*> OpRegistry::all() const {
  std::vector<const OpDef*> out;
  for (auto& [n, d] : defs_) out.push_back(d.get());
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->name < b->name; });
  return out;
}

}  // namespace oar::ir
