// The text form of a program (parser.h reads it back; printing a parsed program gives the same
// text). One op per line:
//   %2 = matmul(%0, %1) {transpose_x = false, transpose_y = false} : float32[-1, 4]
//   %5 = cond(%4) region {
//     yield(%2)
//   } region {
//     ...
//   } : float32[-1, 4]
// Operands per registry slot: %v (Tensor), none (absent Tensor?), [%a, %b] (Tensor[]). Values are
// numbered in definition order. Block arguments open their block: ^(%6: float32[], %7: int64[]):
#pragma once
#include <string>

#include "oar/ir/program.h"

namespace oar::ir {

std::string print(const Program& program);

}  // namespace oar::ir
