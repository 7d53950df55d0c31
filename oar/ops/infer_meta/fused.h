// Shape/dtype rules for the fused ops (oar/ops/specs/fused.yaml).
#pragma once
#include <vector>

#include "oar/ops/op_helpers.h"

namespace oar::infer_meta {

// fused_elementwise: one or more float32/float64 inputs of one shape and dtype; a program of
// (opcode, a, b) triples whose registers are defined before use. The result is like the inputs.
Meta fused_elementwise(const char* op, const std::vector<Tensor>& inputs, const IntArray& program);

// fused_attention: query [B, Sq, H, D], key [B, Sk, H, D], value [B, Sk, H, Dv] of one float
// dtype (unknown dims, -1, match anything); the result is [B, Sq, H, Dv].
Meta fused_attention(const char* op, const Tensor& query, const Tensor& key, const Tensor& value, double scale);

}  // namespace oar::infer_meta
