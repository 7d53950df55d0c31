// Pass: one transformation (or analysis) of a whole program. run() rewrites the program in place
// and says whether it changed anything, so a pass manager can iterate or skip re-verification.
#pragma once
#include <string>

#include "oar/ir/program.h"

namespace oar::pass {

class Pass {
 public:
  virtual ~Pass() = default;
  // A short, stable name ("dce", "cse", ...): used by instrumentation and OAR_IR_DUMP.
  virtual std::string name() const = 0;
  // Returns true when the program changed.
  virtual bool run(ir::Program& program) = 0;
};

}  // namespace oar::pass
