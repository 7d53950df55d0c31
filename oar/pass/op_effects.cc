#include "oar/pass/op_effects.h"

#include "oar/ir/block.h"
#include "oar/ir/op_registry.h"
#include "oar/ir/region.h"
#include "oar/pass/program_outputs.h"

namespace oar::pass {

bool has_side_effects(const ir::Operation& op) {
  const ir::OpDef* def = op.def();
  if (def == nullptr || def->is_terminator || def->has_side_effects) return true;
  // pass_outputs and fetch stand for the caller reading the outputs.
  if (op.name() == kOutputsOp || op.name() == "fetch") return true;
  if (op.name() == "batch_norm_base") {
    const ir::Attribute* a = op.attr("update_running");
    if (a == nullptr || a->kind() != ir::AttrKind::Bool || a->as_bool()) return true;
  }
  for (auto& r : op.regions())
    for (auto& b : r->blocks())
      for (auto& inner : b->ops())
        if (!inner->def() || !inner->def()->is_terminator) {
          if (has_side_effects(*inner)) return true;
        }
  return false;
}

bool is_removable_if_unused(const ir::Operation& op) {
  if (op.name() == "data" || op.name() == "parameter") return false;
  return !has_side_effects(op);
}

bool is_pure(const ir::Operation& op) {
  return is_removable_if_unused(op) && !op.def()->is_random && op.num_regions() == 0;
}

}  // namespace oar::pass
