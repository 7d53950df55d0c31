// Program outputs while passes run. Passes see a value as live only through its uses, and the
// values a caller will fetch have none inside the program; rewrites also replace values, so a
// caller's Value* can go stale. OutputPin fixes both: it appends a `pass_outputs([...])` op (a
// built-in of oar/pass: no results, kept by DCE like any op with an effect) that uses the
// outputs, so DCE keeps them and every replace_all_uses_with updates it; outputs() reads back
// the current values, and the destructor (or release()) removes the op again.
// PassManager::run(program, &outputs) does this around its passes.
#pragma once
#include <vector>

#include "oar/ir/program.h"

namespace oar::pass {

inline constexpr const char* kOutputsOp = "pass_outputs";

class OutputPin {
 public:
  OutputPin(ir::Program& program, const std::vector<ir::Value*>& outputs);
  ~OutputPin() { release(); }
  OutputPin(const OutputPin&) = delete;
  OutputPin& operator=(const OutputPin&) = delete;

  // The outputs now (after rewrites replaced some of them).
  std::vector<ir::Value*> outputs() const;
  // Removes the pinning op; outputs() is empty afterwards.
  void release();

 private:
  ir::Operation* op_ = nullptr;
};

// Registers pass_outputs in the global op registry (idempotent; done when liboar loads).
void register_pass_ops();

}  // namespace oar::pass
