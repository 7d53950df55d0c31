#include "oar/ir/prune.h"

#include <unordered_set>

#include "oar/ir/block.h"
#include "oar/ir/operation.h"
#include "oar/ir/region.h"

namespace oar::ir {

namespace {

// The top-level op that holds `op` (itself when it is top-level).
Operation* top_level(Operation* op) {
  while (op->parent_op()) op = op->parent_op();
  return op;
}

}  // namespace

size_t prune(Program& program, const std::vector<Value*>& roots) {
  std::unordered_set<Operation*> live;
  std::vector<Value*> work(roots.begin(), roots.end());
  auto mark = [&](Operation* op, auto& self) -> void {
    if (!live.insert(op).second) return;
    for (Value* v : op->operands()) work.push_back(v);
    for (auto& r : op->regions())
      for (auto& b : r->blocks())
        for (auto& inner : b->ops()) self(inner.get(), self);
  };
  while (!work.empty()) {
    Value* v = work.back();
    work.pop_back();
    Operation* def = v->is_block_argument() ? v->argument_owner()->parent_op() : v->defining_op();
    if (def) mark(top_level(def), mark);
  }
  Block& top = program.block();
  for (auto& op : top.ops())
    if (op->name() == "fetch" && live.count(op->operand(0)->defining_op() ? top_level(op->operand(0)->defining_op()) : nullptr))
      live.insert(op.get());
  std::vector<Operation*> dead;
  for (auto it = top.ops().rbegin(); it != top.ops().rend(); ++it)
    if (!live.count(it->get())) dead.push_back(it->get());
  for (Operation* op : dead) {
    op->drop_all_references();
  }
  for (Operation* op : dead) top.erase(op);
  return dead.size();
}

}  // namespace oar::ir
