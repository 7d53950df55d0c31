// In-place execution: the ops the executor may run with their result written over operand 0,
// when operand 0 dies at that op (oar/pass/buffer_plan.h decides from liveness) and, at run time,
// nothing else holds its memory (is_exclusive_temporary: no fetch, no view, no second operand,
// no NumPy buffer). Only kernels that read each element of operand 0 before writing that same
// element qualify: elementwise unary and binary ops without dtype promotion, where the other
// operands broadcast to operand 0's shape, and fused_elementwise.
#pragma once
#include <vector>

#include "oar/core/tensor.h"
#include "oar/ir/operation.h"

namespace oar::runtime {

// Writes op's result into operands[0]; operands are the op's operand tensors in order. Returns
// false (and writes nothing) when these operands do not allow it (a dtype to promote, a shape
// to broadcast x to); the caller then runs the op out of place.
using InplaceFn = bool (*)(const ir::Operation& op, const std::vector<Tensor>& operands);

// The in-place runner of this op, or null when it has none.
InplaceFn inplace_kernel(const ir::Operation& op);

}  // namespace oar::runtime
