// The registration table: every (op, dtype) kernel custom_cpu offers, in one place.
// Contract: register_kernels() registers each row for each dtype in its set, as the dtype of
// the op's first non-bool tensor input (bool when all are; the output's for `full`).
#include "oar/device/device_ext.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/plugin.h"

namespace oar_custom_cpu {
namespace {

// Sets of dtypes, as bit masks over OarDType.
constexpr unsigned kBool = 1u << OAR_BOOL;
constexpr unsigned kInts = (1u << OAR_INT32) | (1u << OAR_INT64);
constexpr unsigned kFloats = (1u << OAR_FLOAT32) | (1u << OAR_FLOAT64);
constexpr unsigned kNumeric = kInts | kFloats;
constexpr unsigned kAll = kBool | kNumeric;

struct KernelRow {
  const char* op;
  OarKernelFn fn;
  unsigned dtypes;
};

const KernelRow kKernels[] = {
    // binary, broadcasting; on bool, add/multiply/maximum/minimum are or/and
    {"add", binary_kernel(Binary::Add), kAll},
    {"subtract", binary_kernel(Binary::Subtract), kNumeric},
    {"multiply", binary_kernel(Binary::Multiply), kAll},
    {"elementwise_div", binary_kernel(Binary::Divide), kNumeric},
    {"maximum", binary_kernel(Binary::Maximum), kAll},
    {"minimum", binary_kernel(Binary::Minimum), kAll},
    {"elementwise_pow", binary_kernel(Binary::Pow), kNumeric},
    {"floor_divide", binary_kernel(Binary::FloorDivide), kNumeric},
    {"remainder", binary_kernel(Binary::Remainder), kNumeric},
    // comparisons and logical ops: bool out
    {"equal", binary_kernel(Binary::Equal), kAll},
    {"not_equal", binary_kernel(Binary::NotEqual), kAll},
    {"greater_than", binary_kernel(Binary::GreaterThan), kAll},
    {"greater_equal", binary_kernel(Binary::GreaterEqual), kAll},
    {"less_than", binary_kernel(Binary::LessThan), kAll},
    {"less_equal", binary_kernel(Binary::LessEqual), kAll},
    {"logical_and", binary_kernel(Binary::LogicalAnd), kAll},
    {"logical_or", binary_kernel(Binary::LogicalOr), kAll},
    // unary
    {"relu", unary_kernel(Unary::Relu), kNumeric},
    {"abs", unary_kernel(Unary::Abs), kNumeric},
    {"neg", unary_kernel(Unary::Neg), kNumeric},
    {"square", unary_kernel(Unary::Square), kNumeric},
    {"sign", unary_kernel(Unary::Sign), kNumeric},
    {"floor", unary_kernel(Unary::Floor), kNumeric},
    {"ceil", unary_kernel(Unary::Ceil), kNumeric},
    {"exp", unary_kernel(Unary::Exp), kFloats},
    {"log", unary_kernel(Unary::Log), kFloats},
    {"sqrt", unary_kernel(Unary::Sqrt), kFloats},
    {"rsqrt", unary_kernel(Unary::Rsqrt), kFloats},
    {"tanh", unary_kernel(Unary::Tanh), kFloats},
    {"sigmoid", unary_kernel(Unary::Sigmoid), kFloats},
    {"sin", unary_kernel(Unary::Sin), kFloats},
    {"cos", unary_kernel(Unary::Cos), kFloats},
    {"reciprocal", unary_kernel(Unary::Reciprocal), kFloats},
    {"logical_not", unary_kernel(Unary::LogicalNot), kAll},
    // scalar-attribute maps, creation and copies
    {"scale", scale_kernel, kNumeric},
    {"pow", pow_kernel, kNumeric},
    {"full", full_kernel, kAll},
    {"cast", cast_kernel, kAll},
    {"assign", assign_kernel, kAll},
    {"copy_", copy_kernel, kAll},
    {"where", where_kernel, kAll},
    {"concat", concat_kernel, kAll},
    // reductions
    {"sum", reduce_kernel(Reduce::Sum), kAll},
    {"mean", reduce_kernel(Reduce::Mean), kAll},
    {"max", reduce_kernel(Reduce::Max), kAll},
    {"min", reduce_kernel(Reduce::Min), kAll},
    // linear algebra
    {"matmul", matmul_kernel, kNumeric},
    {"softmax_base", softmax_kernel, kFloats},
    {"log_softmax_base", log_softmax_kernel, kFloats},
};

}  // namespace

OarStatus register_kernels(const OarRegistrar* registrar) {
  for (const KernelRow& row : kKernels) {
    for (int32_t dtype = 0; dtype < 32; ++dtype) {
      if (!(row.dtypes & (1u << dtype))) continue;
      const OarStatus st = registrar->register_kernel(kDeviceType, row.op, dtype, row.fn);
      if (st != OAR_STATUS_OK) {
        log_error("registering kernel %s for dtype %d failed (status %d)", row.op, dtype, st);
        return st;
      }
    }
  }
  return OAR_STATUS_OK;
}

}  // namespace oar_custom_cpu
