// The fused elementwise kernel: a small interpreter over a list of elementwise op codes, run
// block by block so that every intermediate of the chain lives in a cache-sized buffer instead of
// a tensor of its own.
#pragma once
#include <string>
#include <vector>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar::kernels {

// Opcodes of fused_elementwise's program. Unary ops read register a; binary ops a and b.
enum class FusedEwOp : int64_t {
  Relu = 0, Exp, Tanh, Sigmoid, Neg, Sqrt, Abs, Log, Square, Silu, Gelu, Rsqrt,  // unary
  Add = 100, Sub, Mul, Div, Max, Min,                                           // binary
};
bool fused_ew_is_binary(int64_t code);
bool fused_ew_is_valid(int64_t code);
// The opcode for IR op `name` (relu, exp, add, ...), or -1 when the chain interpreter lacks it.
int64_t fused_ew_code(const std::string& name);

// out = the last register of `program` over `inputs` (checked by infer_meta::fused_elementwise).
void fused_elementwise(const std::vector<Tensor>& inputs, const IntArray& program, const Tensor& out);

}  // namespace oar::kernels
