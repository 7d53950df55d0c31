// Elementwise kernels: binary arithmetic/comparison/logic, unary math, casting, where, clip.
// Inputs are already promoted to a common dtype by the op layer; outputs are preallocated.
#pragma once
#include "oar/core/scalar.h"
#include "oar/core/tensor.h"

namespace oar::kernels {

enum class BinaryOp {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Max, Min, FMax, FMin, Atan2,
  BitAnd, BitOr, BitXor, LogicalAnd, LogicalOr, LogicalXor,
  Eq, Ne, Lt, Le, Gt, Ge
};
const char* binary_op_name(BinaryOp op);
void binary(BinaryOp op, const Tensor& x, const Tensor& y, const Tensor& out);

enum class UnaryOp {
  Neg, Abs, Sign, Square, Reciprocal, Floor, Ceil, Round, Trunc,
  Exp, Expm1, Log, Log2, Log10, Log1p, Sqrt, Rsqrt,
  Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh, Erf, Sigmoid,
  Relu, Silu, Gelu, GeluTanh, Relu6, Hardswish,
  LogicalNot, BitNot, IsNan, IsInf, IsFinite, Conj
};
const char* unary_op_name(UnaryOp op);
void unary(UnaryOp op, const Tensor& x, const Tensor& out);

// Ops with parameters.
void leaky_relu(const Tensor& x, double slope, const Tensor& out);
void elu(const Tensor& x, double alpha, const Tensor& out);
void hardsigmoid(const Tensor& x, double slope, double offset, const Tensor& out);
void softplus(const Tensor& x, double beta, double threshold, const Tensor& out);
void clip(const Tensor& x, const Scalar& min, const Scalar& max, const Tensor& out);
void scale(const Tensor& x, const Scalar& scale, const Scalar& bias, bool bias_after_scale,
           const Tensor& out);
void pow_scalar(const Tensor& x, const Scalar& y, const Tensor& out);
// x rounded to `decimals` decimal places (negative: tens, hundreds, ...), halves to even;
// complex x rounds both parts; integers come back unchanged.
void round_decimals(const Tensor& x, int64_t decimals, const Tensor& out);
void isclose(const Tensor& x, const Tensor& y, double rtol, double atol, bool equal_nan,
             const Tensor& out);
// out = cond ? x : y (x and y share out's dtype).
void where(const Tensor& cond, const Tensor& x, const Tensor& y, const Tensor& out);
// dst = src, broadcasting src to dst's shape and converting dtypes.
void copy(const Tensor& src, const Tensor& dst);
void fill(const Tensor& out, const Scalar& value);

}  // namespace oar::kernels
