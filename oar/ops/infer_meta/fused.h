// Shape/dtype rules for the fused ops (oar/ops/specs/fused.yaml).
#pragma once
#include <string>
#include <vector>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// Opcodes of fused_elementwise's program. Unary ops read register a; binary ops a and b.
enum class FusedEwOp : int64_t {
  Relu = 0, Exp, Tanh, Sigmoid, Neg, Sqrt, Abs, Log, Square, Silu, Gelu, Rsqrt,  // unary
  Add = 100, Sub, Mul, Div, Max, Min,                                           // binary
};
bool fused_ew_is_binary(int64_t code);
bool fused_ew_is_valid(int64_t code);
// The opcode for IR op `name` (relu, exp, add, ...), or -1 when the chain interpreter lacks it.
int64_t fused_ew_code(const std::string& name);

// fused_elementwise: one or more float32/float64 inputs of one shape and dtype; a program of
// (opcode, a, b) triples whose registers are defined before use. The result is like the inputs.
Meta fused_elementwise(const char* op, const std::vector<Tensor>& inputs, const IntArray& program);

// fused_attention: query [B, Sq, H, D], key [B, Sk, H, D], value [B, Sk, H, Dv] of one float
// dtype (unknown dims, -1, match anything); the result is [B, Sq, H, Dv].
Meta fused_attention(const char* op, const Tensor& query, const Tensor& key, const Tensor& value, double scale);

}  // namespace oar::infer_meta
