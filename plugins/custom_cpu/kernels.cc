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
constexpr unsigned kHalves = (1u << OAR_FLOAT16) | (1u << OAR_BFLOAT16);  // stored 16-bit, computed in float
constexpr unsigned kNumeric = kInts | kFloats;
constexpr unsigned kAll = kBool | kNumeric;
constexpr unsigned kFloatsH = kFloats | kHalves;
constexpr unsigned kNumericH = kNumeric | kHalves;
constexpr unsigned kAllH = kAll | kHalves;
constexpr unsigned kSmallInts = (1u << OAR_INT8) | (1u << OAR_UINT8) | (1u << OAR_INT16);  // storage only
constexpr unsigned kComplex = (1u << OAR_COMPLEX64) | (1u << OAR_COMPLEX128);  // storage only
constexpr unsigned kStorage = kAllH | kSmallInts | kComplex;

struct KernelRow {
  const char* op;
  OarKernelFn fn;
  unsigned dtypes;
};

const KernelRow kKernels[] = {
    // binary, broadcasting; on bool, add/multiply/maximum/minimum are or/and
    {"add", binary_kernel(Binary::Add), kAllH},
    {"subtract", binary_kernel(Binary::Subtract), kNumericH},
    {"multiply", binary_kernel(Binary::Multiply), kAllH},
    {"elementwise_div", binary_kernel(Binary::Divide), kNumericH},
    {"maximum", binary_kernel(Binary::Maximum), kAllH},
    {"minimum", binary_kernel(Binary::Minimum), kAllH},
    {"elementwise_pow", binary_kernel(Binary::Pow), kNumericH},
    {"floor_divide", binary_kernel(Binary::FloorDivide), kNumericH},
    {"remainder", binary_kernel(Binary::Remainder), kNumericH},
    {"fmax", binary_kernel(Binary::FMax), kAllH},
    {"fmin", binary_kernel(Binary::FMin), kAllH},
    {"atan2", binary_kernel(Binary::Atan2), kFloatsH},
    // comparisons and logical ops: bool out
    {"equal", binary_kernel(Binary::Equal), kAllH},
    {"not_equal", binary_kernel(Binary::NotEqual), kAllH},
    {"greater_than", binary_kernel(Binary::GreaterThan), kAllH},
    {"greater_equal", binary_kernel(Binary::GreaterEqual), kAllH},
    {"less_than", binary_kernel(Binary::LessThan), kAllH},
    {"less_equal", binary_kernel(Binary::LessEqual), kAllH},
    {"logical_and", binary_kernel(Binary::LogicalAnd), kAllH},
    {"logical_or", binary_kernel(Binary::LogicalOr), kAllH},
    {"logical_xor", binary_kernel(Binary::LogicalXor), kAllH},
    // unary
    {"relu", unary_kernel(Unary::Relu), kNumericH},
    {"abs", unary_kernel(Unary::Abs), kNumericH},
    {"neg", unary_kernel(Unary::Neg), kNumericH},
    {"square", unary_kernel(Unary::Square), kNumericH},
    {"sign", unary_kernel(Unary::Sign), kNumericH},
    {"floor", unary_kernel(Unary::Floor), kNumericH},
    {"ceil", unary_kernel(Unary::Ceil), kNumericH},
    {"exp", unary_kernel(Unary::Exp), kFloatsH},
    {"log", unary_kernel(Unary::Log), kFloatsH},
    {"sqrt", unary_kernel(Unary::Sqrt), kFloatsH},
    {"rsqrt", unary_kernel(Unary::Rsqrt), kFloatsH},
    {"tanh", unary_kernel(Unary::Tanh), kFloatsH},
    {"sigmoid", unary_kernel(Unary::Sigmoid), kFloatsH},
    {"sin", unary_kernel(Unary::Sin), kFloatsH},
    {"cos", unary_kernel(Unary::Cos), kFloatsH},
    {"reciprocal", unary_kernel(Unary::Reciprocal), kFloatsH},
    {"logical_not", unary_kernel(Unary::LogicalNot), kAllH},
    {"trunc", unary_kernel(Unary::Trunc), kNumericH},
    {"isnan", unary_kernel(Unary::IsNan), kAllH},
    {"isinf", unary_kernel(Unary::IsInf), kAllH},
    {"isfinite", unary_kernel(Unary::IsFinite), kAllH},
    {"expm1", unary_kernel(Unary::Expm1), kFloatsH},
    {"log1p", unary_kernel(Unary::Log1p), kFloatsH},
    {"log2", unary_kernel(Unary::Log2), kFloatsH},
    {"log10", unary_kernel(Unary::Log10), kFloatsH},
    {"tan", unary_kernel(Unary::Tan), kFloatsH},
    {"asin", unary_kernel(Unary::Asin), kFloatsH},
    {"acos", unary_kernel(Unary::Acos), kFloatsH},
    {"atan", unary_kernel(Unary::Atan), kFloatsH},
    {"sinh", unary_kernel(Unary::Sinh), kFloatsH},
    {"cosh", unary_kernel(Unary::Cosh), kFloatsH},
    {"asinh", unary_kernel(Unary::Asinh), kFloatsH},
    {"acosh", unary_kernel(Unary::Acosh), kFloatsH},
    {"atanh", unary_kernel(Unary::Atanh), kFloatsH},
    {"erf", unary_kernel(Unary::Erf), kFloatsH},
    // activations (activation.cc): the attribute-free ones are unary maps
    {"silu", unary_kernel(Unary::Silu), kFloatsH},
    {"relu6", unary_kernel(Unary::Relu6), kFloatsH},
    {"hardswish", unary_kernel(Unary::Hardswish), kFloatsH},
    {"gelu", gelu_kernel, kFloatsH},
    {"leaky_relu", leaky_relu_kernel, kFloatsH},
    {"elu", elu_kernel, kFloatsH},
    {"hardsigmoid", hardsigmoid_kernel, kFloatsH},
    {"softplus", softplus_kernel, kFloatsH},
    {"celu", act2_kernel("celu"), kFloatsH},
    {"selu", act2_kernel("selu"), kFloatsH},
    {"mish", act2_kernel("mish"), kFloatsH},
    {"softsign", act2_kernel("softsign"), kFloatsH},
    {"softshrink", act2_kernel("softshrink"), kFloatsH},
    {"hardshrink", act2_kernel("hardshrink"), kFloatsH},
    {"hardtanh", act2_kernel("hardtanh"), kFloatsH},
    {"tanhshrink", act2_kernel("tanhshrink"), kFloatsH},
    {"thresholded_relu", act2_kernel("thresholded_relu"), kFloatsH},
    {"log_sigmoid", act2_kernel("log_sigmoid"), kFloatsH},
    {"swish", act2_kernel("swish"), kFloatsH},
    {"act2_grad", act2_grad_kernel, kFloatsH},
    {"act2_grad2", act2_grad2_kernel, kFloatsH},
    {"clip", clip_kernel, kNumericH},
    // scalar-attribute maps, creation and copies
    {"scale", scale_kernel, kNumericH},
    {"pow", pow_kernel, kNumericH},
    {"full", full_kernel, kStorage},
    {"arange", arange_kernel, kNumericH},
    {"cast", cast_kernel, kStorage},
    {"assign", assign_kernel, kStorage},
    {"copy_", copy_kernel, kStorage},
    {"where", where_kernel, kStorage},
    {"masked_fill", masked_fill_kernel, kStorage},
    {"round", round_kernel, kNumericH},
    {"concat", concat_kernel, kStorage},
    // reductions
    {"sum", reduce_kernel(Reduce::Sum), kAllH},
    {"mean", reduce_kernel(Reduce::Mean), kAllH},
    {"max", reduce_kernel(Reduce::Max), kAllH},
    {"min", reduce_kernel(Reduce::Min), kAllH},
    {"amax", reduce_kernel(Reduce::Max), kAllH},
    {"amin", reduce_kernel(Reduce::Min), kAllH},
    {"prod", reduce_kernel(Reduce::Prod), kAllH},
    {"all", reduce_kernel(Reduce::All), kStorage},
    {"any", reduce_kernel(Reduce::Any), kStorage},
    {"logsumexp", reduce_kernel(Reduce::LogSumExp), kFloatsH},
    {"p_norm", reduce_kernel(Reduce::PNorm), kFloatsH},
    {"argmax", arg_reduce_kernel, kAllH},
    {"argmin", arg_reduce_kernel, kAllH},
    // indexing, keyed by x (by the index when x is bool; embedding and one_hot by the ids)
    {"index_select", index_select_kernel, kStorage},
    {"gather", index_select_kernel, kStorage},
    {"index_add", index_add_kernel, kAllH},
    {"take_along_axis_base", take_along_axis_kernel, kStorage},
    {"embedding_base", embedding_kernel, kInts},
    {"one_hot", one_hot_kernel, kInts},
    {"embedding_grad", embedding_grad_kernel, kInts},
    // normalisation
    {"layer_norm_base", layer_norm_kernel, kFloats},
    {"batch_norm_base", batch_norm_kernel, kFloats},
    {"hard_cross_entropy", hard_cross_entropy_kernel, kFloats},
    // convolution and pooling
    {"convolution", convolution_kernel, kFloatsH},
    {"convolution_input_grad", convolution_input_grad_kernel, kFloatsH},
    {"convolution_weight_grad", convolution_weight_grad_kernel, kFloatsH},
    {"pool_max", pool_max_kernel, kFloatsH},
    {"pool_avg", pool_avg_kernel, kFloatsH},
    {"pool_avg_grad", pool_avg_grad_kernel, kFloatsH},
    {"pool_max_grad", pool_max_grad_kernel, kFloatsH},
    {"pool_max_gather", pool_max_gather_kernel, kFloatsH},
    // shape
    {"flip", flip_kernel, kStorage},
    {"tile", tile_kernel, kStorage},
    {"tril", tril_triu_kernel, kStorage},
    {"triu", tril_triu_kernel, kStorage},
    {"pad_nd", pad_kernel, kFloats},
    {"pad_nd_grad", pad_grad_kernel, kFloats},
    {"slice_grad", slice_grad_kernel, kStorage},
    {"strided_slice_grad", strided_slice_grad_kernel, kStorage},
    {"check_values", check_values_kernel, kStorage},
    // ordering, scattering and scans along an axis
    {"argsort", argsort_kernel, kAllH},
    {"topk_indices", topk_indices_kernel, kAllH},
    {"put_along_axis_base", put_along_axis_kernel, kAllH},
    {"cumsum_scan", cum_scan_kernel, kAllH},
    {"cumprod_scan", cum_scan_kernel, kAllH},
    {"logcumsumexp_scan", logcumsumexp_kernel, kFloatsH},
    {"cum_extreme_scan", cum_extreme_kernel, kNumericH},
    // resampling
    {"interp", interp_kernel, kFloatsH},
    {"interp_grad", interp_grad_kernel, kFloatsH},
    {"grid_sample_base", grid_sample_kernel, kFloats},
    {"affine_grid_base", affine_grid_base_kernel, kFloats},
    {"rnn_layer", rnn_layer_kernel, kFloats},
    {"sdpa_core", sdpa_core_kernel, kFloats},
    // rnn_grad.cc
    {"rnn_layer_grad", rnn_layer_grad_kernel, kFloats},
    // norm_grad.cc: fused normalisation gradients
    {"layer_norm_grad", layer_norm_grad_kernel, kFloats},
    {"batch_norm_grad", batch_norm_grad_kernel, kFloats},
    // random.cc: random draws (registered under the output's dtype; bernoulli under p's)
    {"random_uniform", random_uniform_kernel, kFloatsH},
    {"random_normal", random_normal_kernel, kFloatsH},
    {"random_randint", random_randint_kernel, kInts | kSmallInts},
    {"random_bernoulli", random_bernoulli_kernel, kFloatsH},
    {"random_dropout_mask", random_dropout_mask_kernel, kFloatsH},
    // linear algebra
    {"matmul", matmul_kernel, kNumericH},
    {"softmax_base", softmax_kernel, kFloatsH},
    {"log_softmax_base", log_softmax_kernel, kFloatsH},
    // optimizer.cc: fused optimizer updates (in place), keyed by the parameter's dtype
    {"optimizer_sgd", optimizer_sgd_kernel, kFloatsH},
    {"optimizer_momentum", optimizer_momentum_kernel, kFloatsH},
    {"optimizer_adam", optimizer_adam_kernel, kFloatsH},
    // misc.cc: special functions, integer bit ops, float helpers
    {"lgamma", special_unary_kernel("lgamma"), kFloatsH},
    {"digamma", special_unary_kernel("digamma"), kFloatsH},
    {"erfinv", special_unary_kernel("erfinv"), kFloatsH},
    {"i0", special_unary_kernel("i0"), kFloatsH},
    {"i0e", special_unary_kernel("i0e"), kFloatsH},
    {"i1", special_unary_kernel("i1"), kFloatsH},
    {"i1e", special_unary_kernel("i1e"), kFloatsH},
    {"polygamma", polygamma_kernel, kFloatsH},
    {"gammainc", gammainc_kernel, kFloatsH},
    {"gammaincc", gammaincc_kernel, kFloatsH},
    {"bitwise_and", bitwise_and_kernel, kBool | kInts | kSmallInts},
    {"bitwise_or", bitwise_or_kernel, kBool | kInts | kSmallInts},
    {"bitwise_xor", bitwise_xor_kernel, kBool | kInts | kSmallInts},
    {"bitwise_not", bitwise_not_kernel, kBool | kInts | kSmallInts},
    {"bitwise_left_shift", bitwise_left_shift_kernel, kInts | kSmallInts},
    {"bitwise_right_shift", bitwise_right_shift_kernel, kInts | kSmallInts},
    {"gcd", gcd_kernel, kInts | kSmallInts},
    {"lcm", lcm_kernel, kInts | kSmallInts},
    {"copysign", copysign_kernel, kNumericH | kSmallInts},
    {"heaviside", heaviside_kernel, kNumericH | kSmallInts},
    {"nextafter", nextafter_kernel, kFloats},
    {"isclose", isclose_kernel, kNumericH | kSmallInts},
    {"frexp", frexp_kernel, kFloatsH},
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
