// The verifier: checks that a program is well formed before passes or the executor trust it.
//   - every op is registered; operand slots match its entry; attributes have the right kinds and
//     the required ones are present
//   - operands are defined before use: earlier in the same block, a block argument, or in an
//     enclosing block (a region sees the values of the blocks around it, not the reverse)
//   - result types equal what type inference gives (for ops that have it)
//   - regions as the op requires; terminators (yield) end the regions of cond and while_loop and
//     appear nowhere else
// Errors are typed (InvalidArgument, TypeMismatch, ...) and say where: "op #3 'matmul'", with
// the enclosing ops for nested regions.
#pragma once
#include "oar/ir/program.h"

namespace oar::ir {

void verify(const Program& program);

}  // namespace oar::ir
