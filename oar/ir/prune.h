// Pruning: keeps only what some values need. Removes every top-level op that none of `roots`
// depends on (through operands, and through values read inside regions), except `fetch` ops
// whose value is kept. Used to cut a training program down to its inference part.
#pragma once
#include <vector>

#include "oar/ir/program.h"

namespace oar::ir {

// Returns the number of ops removed.
size_t prune(Program& program, const std::vector<Value*>& roots);

}  // namespace oar::ir
