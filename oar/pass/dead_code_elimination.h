// Dead-code elimination: deletes ops none of whose results is used and that may go
// (op_effects.h: not data/parameter/terminators, no side effects; random ops may go). Works
// inside regions too, innermost first, and walks each block backwards so a whole dead chain
// goes in one run.
#pragma once
#include "oar/pass/pass.h"

namespace oar::pass {

class DeadCodeElimination : public Pass {
 public:
  std::string name() const override { return "dce"; }
  bool run(ir::Program& program) override;
};

// The same on one block (and the regions inside it); returns the number of ops deleted.
size_t eliminate_dead_code(ir::Block& block);

}  // namespace oar::pass
