// Common-subexpression elimination: a pure op (op_effects.h: no side effects, not random, no
// regions) with the same name, operands (the same SSA values, slot by slot) and attributes as
// an earlier one is replaced by it (replace_all_uses_with) and deleted. Scoped: a region sees
// the ops of the blocks around it, but what is defined inside a region is never reused outside
// it (nor in a sibling region).
#pragma once
#include "oar/pass/pass.h"

namespace oar::pass {

class CommonSubexpressionElimination : public Pass {
 public:
  std::string name() const override { return "cse"; }
  bool run(ir::Program& program) override;
};

}  // namespace oar::pass
