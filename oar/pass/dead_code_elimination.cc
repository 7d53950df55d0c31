#include "oar/pass/dead_code_elimination.h"

#include <vector>

#include "oar/ir/block.h"
#include "oar/ir/region.h"
#include "oar/pass/op_effects.h"

namespace oar::pass {

namespace {

bool unused(const ir::Operation& op) {
  for (size_t i = 0; i < op.num_results(); ++i)
    if (op.result(i)->has_uses()) return false;
  return true;
}

}  // namespace

size_t eliminate_dead_code(ir::Block& block) {
  size_t removed = 0;
  // Inner blocks first: what dies there may make a cond or while_loop removable.
  for (auto& op : block.ops())
    for (auto& r : op->regions())
      for (auto& b : r->blocks()) removed += eliminate_dead_code(*b);
  // Backwards: deleting a user can make its operands' definitions dead, which come earlier.
  std::vector<ir::Operation*> ops;
  for (auto& op : block.ops()) ops.push_back(op.get());
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    ir::Operation* op = *it;
    if (unused(*op) && is_removable_if_unused(*op)) {
      block.erase(op);
      ++removed;
    }
  }
  return removed;
}

bool DeadCodeElimination::run(ir::Program& program) { return eliminate_dead_code(program.block()) > 0; }

}  // namespace oar::pass
