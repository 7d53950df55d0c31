#include "oar/runtime/inplace_ops.h"

#include <string>
#include <unordered_map>

#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/fused_elementwise.h"
#include "oar/ir/op_registry.h"

namespace oar::runtime {

namespace {

using kernels::BinaryOp;
using kernels::UnaryOp;

bool is_real_float(DType t) { return t == DType::Float32 || t == DType::Float64; }

// The operands share x's float dtype and broadcast to x's shape (so the result is x's shape).
bool fits_over_x(const std::vector<Tensor>& in) {
  const Tensor& x = in[0];
  if (!is_real_float(x.dtype())) return false;
  for (size_t i = 1; i < in.size(); ++i) {
    const Tensor& y = in[i];
    if (!y.defined() || y.dtype() != x.dtype() || y.ndim() > x.ndim()) return false;
    const int64_t lead = x.ndim() - y.ndim();
    for (int64_t d = 0; d < y.ndim(); ++d)
      if (y.shape()[d] != 1 && y.shape()[d] != x.shape()[lead + d]) return false;
  }
  return true;
}

template <UnaryOp U>
bool unary(const ir::Operation&, const std::vector<Tensor>& in) {
  if (in.size() != 1 || !fits_over_x(in)) return false;
  kernels::unary(U, in[0], in[0]);
  return true;
}

bool gelu(const ir::Operation& op, const std::vector<Tensor>& in) {
  if (in.size() != 1 || !fits_over_x(in)) return false;
  const ir::Attribute* a = op.attr("approximate");
  const bool approximate = a && a->kind() == ir::AttrKind::Bool && a->as_bool("approximate");
  kernels::unary(approximate ? UnaryOp::GeluTanh : UnaryOp::Gelu, in[0], in[0]);
  return true;
}

template <BinaryOp B>
bool binary(const ir::Operation&, const std::vector<Tensor>& in) {
  if (in.size() != 2 || !fits_over_x(in)) return false;
  kernels::binary(B, in[0], in[1], in[0]);
  return true;
}

// Its kernel computes block by block and writes a block of the result only in its last step,
// after every read of that block: the result may overwrite any input of the same shape.
bool fused_elementwise(const ir::Operation& op, const std::vector<Tensor>& in) {
  if (!fits_over_x(in)) return false;
  for (const Tensor& t : in)
    if (t.shape() != in[0].shape()) return false;
  const ir::Attribute* p = op.attr("program");
  if (!p || p->kind() != ir::AttrKind::IntArray) return false;
  kernels::fused_elementwise(in, IntArray(p->as_int_array()), in[0]);
  return true;
}

}  // namespace

InplaceFn inplace_kernel(const ir::Operation& op) {
  static const std::unordered_map<std::string, InplaceFn> table = {
      {"relu", unary<UnaryOp::Relu>},         {"sigmoid", unary<UnaryOp::Sigmoid>},
      {"tanh", unary<UnaryOp::Tanh>},         {"silu", unary<UnaryOp::Silu>},
      {"exp", unary<UnaryOp::Exp>},           {"sqrt", unary<UnaryOp::Sqrt>},
      {"rsqrt", unary<UnaryOp::Rsqrt>},       {"neg", unary<UnaryOp::Neg>},
      {"abs", unary<UnaryOp::Abs>},           {"square", unary<UnaryOp::Square>},
      {"gelu", gelu},
      {"add", binary<BinaryOp::Add>},         {"subtract", binary<BinaryOp::Sub>},
      {"multiply", binary<BinaryOp::Mul>},    {"divide", binary<BinaryOp::Div>},
      {"maximum", binary<BinaryOp::Max>},     {"minimum", binary<BinaryOp::Min>},
      {"fused_elementwise", fused_elementwise}};
  auto it = table.find(op.name());
  return it == table.end() ? nullptr : it->second;
}

}  // namespace oar::runtime
