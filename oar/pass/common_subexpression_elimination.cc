#include "oar/pass/common_subexpression_elimination.h"

#include <functional>
#include <unordered_map>
#include <vector>

#include "oar/ir/block.h"
#include "oar/ir/region.h"
#include "oar/pass/op_effects.h"

namespace oar::pass {

namespace {

// Ops that compute the same thing compare equal; the hash is over name, operands and the
// attributes' text (Attribute has no hash of its own).
struct OpKey {
  const ir::Operation* op;
  bool operator==(const OpKey& o) const {
    const ir::Operation& a = *op;
    const ir::Operation& b = *o.op;
    if (a.name() != b.name() || a.operands() != b.operands() || a.segments() != b.segments() ||
        a.num_results() != b.num_results())
      return false;
    if (a.attributes() != b.attributes()) return false;
    for (size_t i = 0; i < a.num_results(); ++i)
      if (a.result(i)->type() != b.result(i)->type()) return false;  // Declared ops: given types
    return true;
  }
};

struct OpKeyHash {
  size_t operator()(const OpKey& k) const {
    size_t h = std::hash<std::string>()(k.op->name());
    auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    for (ir::Value* v : k.op->operands()) mix(std::hash<const void*>()(v));
    for (const auto& [name, attr] : k.op->attributes()) {
      mix(std::hash<std::string>()(name));
      mix(std::hash<std::string>()(attr.str()));
    }
    return h;
  }
};

// One scope per block; lookups go outwards through the enclosing blocks' scopes.
struct Scope {
  const Scope* parent;
  std::unordered_map<OpKey, ir::Operation*, OpKeyHash> known;
  ir::Operation* find(const ir::Operation* op) const {
    for (const Scope* s = this; s; s = s->parent) {
      auto it = s->known.find(OpKey{op});
      if (it != s->known.end()) return it->second;
    }
    return nullptr;
  }
};

size_t eliminate(ir::Block& block, const Scope* parent) {
  Scope scope{parent, {}};
  size_t removed = 0;
  std::vector<ir::Operation*> ops;
  for (auto& op : block.ops()) ops.push_back(op.get());
  for (ir::Operation* op : ops) {
    for (auto& r : op->regions())
      for (auto& b : r->blocks()) removed += eliminate(*b, &scope);
    if (!is_pure(*op)) continue;
    if (ir::Operation* same = scope.find(op)) {
      for (size_t i = 0; i < op->num_results(); ++i) op->result(i)->replace_all_uses_with(same->result(i));
      block.erase(op);
      ++removed;
    } else {
      scope.known.emplace(OpKey{op}, op);
    }
  }
  return removed;
}

}  // namespace

bool CommonSubexpressionElimination::run(ir::Program& program) { return eliminate(program.block(), nullptr) > 0; }

}  // namespace oar::pass
