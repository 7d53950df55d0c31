// Shape/dtype rules for the fused ops (oar/ops/specs/fused.yaml).
#pragma once
#include <vector>

#include "oar/ops/op_helpers.h"

namespace oar::infer_meta {

// fused_elementwise: one or more float32/float64 inputs of one shape and dtype; a program of
// (opcode, a, b) triples whose registers are defined before use. The result is like the inputs.
Meta fused_elementwise(const char* op, const std::vector<Tensor>& inputs, const IntArray& program);

}  // namespace oar::infer_meta
