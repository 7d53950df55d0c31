// The plug-in's entry point: registers device type "gpu" and every (op, dtype) kernel from one
// table.
//
// Contract: oar dlopens liboar_cuda.so and calls oar_plugin_init once. Registration never touches
// the GPU, so the library loads and registers on a machine without a driver or GPU (oar then sees
// device_count() == 0). A kernel is registered under the dtype of the op's first input tensor
// (the output's for full); kernels that convert between dtypes (cast, copy_, sum with a dtype,
// where keyed by its bool condition) check the other dtypes themselves at run time.
#include "oar/device/device_ext.h"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

// Dtype sets, as bit masks over OarDType.
constexpr uint32_t bit(int d) { return 1u << d; }
constexpr uint32_t kFloat =
    bit(OAR_FLOAT16) | bit(OAR_BFLOAT16) | bit(OAR_FLOAT32) | bit(OAR_FLOAT64);
constexpr uint32_t kNumeric = kFloat | bit(OAR_INT32) | bit(OAR_INT64);
constexpr uint32_t kAll = kNumeric | bit(OAR_BOOL);
constexpr uint32_t kStorage = kAll | bit(OAR_INT8) | bit(OAR_UINT8) | bit(OAR_INT16);
// shape.cu / norm.cu / pool.cu: the ops custom_cpu has for float32 and float64 only.
constexpr uint32_t kF32F64 = bit(OAR_FLOAT32) | bit(OAR_FLOAT64);

// special.cu, misc.cu: every integer dtype.
constexpr uint32_t kMiscInts =
    bit(OAR_INT8) | bit(OAR_UINT8) | bit(OAR_INT16) | bit(OAR_INT32) | bit(OAR_INT64);

struct Entry {
  const char* op;
  OarKernelFn fn;
  uint32_t dtypes;
};

const Entry kKernels[] = {
    // elementwise.cu
    {"add", k_add, kAll},
    {"subtract", k_subtract, kNumeric},
    {"multiply", k_multiply, kAll},
    {"elementwise_div", k_divide, kNumeric},
    {"maximum", k_maximum, kAll},
    {"minimum", k_minimum, kAll},
    {"elementwise_pow", k_elementwise_pow, kNumeric},
    {"equal", k_equal, kAll},
    {"not_equal", k_not_equal, kAll},
    {"greater_than", k_greater_than, kAll},
    {"greater_equal", k_greater_equal, kAll},
    {"less_than", k_less_than, kAll},
    {"less_equal", k_less_equal, kAll},
    // unary.cu
    {"relu", k_relu, kNumeric},
    {"exp", k_exp, kFloat},
    {"log", k_log, kFloat},
    {"sqrt", k_sqrt, kFloat},
    {"rsqrt", k_rsqrt, kFloat},
    {"tanh", k_tanh, kFloat},
    {"sigmoid", k_sigmoid, kFloat},
    {"abs", k_abs, kNumeric},
    {"neg", k_neg, kNumeric},
    {"square", k_square, kNumeric},
    {"sin", k_sin, kFloat},
    {"cos", k_cos, kFloat},
    {"reciprocal", k_reciprocal, kFloat},
    {"scale", k_scale, kNumeric},
    {"pow", k_pow, kNumeric},
    // copy.cu: where is keyed by its condition (bool) but registered for every dtype, in case
    // oar keys it by x instead.
    {"cast", k_cast, kStorage},
    {"assign", k_assign, kStorage},
    {"copy_", k_copy_, kStorage},
    {"full", k_full, kStorage},
    {"where", k_where, kStorage},
    // reduce.cu
    {"sum", k_sum, kAll},
    {"mean", k_mean, kAll},
    {"max", k_max, kAll},
    {"min", k_min, kAll},
    // matmul.cc
    {"matmul", k_matmul, kFloat},
    {"softmax_base", k_softmax, kFloat},
    {"log_softmax_base", k_log_softmax, kFloat},
    // elementwise2.cu, unary2.cu, activation.cu
    {"floor_divide", k_floor_divide, kNumeric},
    {"remainder", k_remainder, kNumeric},
    {"fmax", k_fmax, kAll},
    {"fmin", k_fmin, kAll},
    {"atan2", k_atan2, kFloat},
    {"logical_and", k_logical_and, kAll},
    {"logical_or", k_logical_or, kAll},
    {"logical_xor", k_logical_xor, kAll},
    {"sign", k_sign, kNumeric},
    {"floor", k_floor, kNumeric},
    {"ceil", k_ceil, kNumeric},
    {"trunc", k_trunc, kNumeric},
    {"logical_not", k_logical_not, kAll},
    {"isnan", k_isnan, kAll},
    {"isinf", k_isinf, kAll},
    {"isfinite", k_isfinite, kAll},
    {"expm1", k_expm1, kFloat},
    {"log1p", k_log1p, kFloat},
    {"log2", k_log2, kFloat},
    {"log10", k_log10, kFloat},
    {"tan", k_tan, kFloat},
    {"asin", k_asin, kFloat},
    {"acos", k_acos, kFloat},
    {"atan", k_atan, kFloat},
    {"sinh", k_sinh, kFloat},
    {"cosh", k_cosh, kFloat},
    {"asinh", k_asinh, kFloat},
    {"acosh", k_acosh, kFloat},
    {"atanh", k_atanh, kFloat},
    {"erf", k_erf, kFloat},
    {"round", k_round, kNumeric},
    {"silu", k_silu, kFloat},
    {"relu6", k_relu6, kFloat},
    {"hardswish", k_hardswish, kFloat},
    {"gelu", k_gelu, kFloat},
    {"leaky_relu", k_leaky_relu, kFloat},
    {"elu", k_elu, kFloat},
    {"hardsigmoid", k_hardsigmoid, kFloat},
    {"softplus", k_softplus, kFloat},
    {"celu", k_celu, kFloat},
    {"selu", k_selu, kFloat},
    {"mish", k_mish, kFloat},
    {"softsign", k_softsign, kFloat},
    {"softshrink", k_softshrink, kFloat},
    {"hardshrink", k_hardshrink, kFloat},
    {"hardtanh", k_hardtanh, kFloat},
    {"tanhshrink", k_tanhshrink, kFloat},
    {"thresholded_relu", k_thresholded_relu, kFloat},
    {"log_sigmoid", k_log_sigmoid, kFloat},
    {"swish", k_swish, kFloat},
    {"act2_grad", k_act2_grad, kFloat},
    {"act2_grad2", k_act2_grad2, kFloat},
    {"clip", k_clip, kNumeric},
    {"masked_fill", k_masked_fill, kAll},
    // reduce2.cu (amax/amin are reduce.cu's max/min, as on custom_cpu), index.cu, scan.cu.
    // Index ops are keyed by x (by the index when x is bool; embedding and one_hot by the ids).
    {"amax", k_max, kAll},
    {"amin", k_min, kAll},
    {"prod", k_prod, kAll},
    {"all", k_all, kAll},
    {"any", k_any, kAll},
    {"logsumexp", k_logsumexp, kFloat},
    {"p_norm", k_p_norm, kFloat},
    {"argmax", k_argmax, kAll},
    {"argmin", k_argmin, kAll},
    {"index_select", k_index_select, kAll},
    {"gather", k_index_select, kAll},
    {"index_add", k_index_add, kAll},
    {"take_along_axis_base", k_take_along_axis, kAll},
    {"put_along_axis_base", k_put_along_axis, kAll},
    {"embedding_base", k_embedding, bit(OAR_INT32) | bit(OAR_INT64)},
    {"embedding_grad", k_embedding_grad, bit(OAR_INT32) | bit(OAR_INT64)},
    {"one_hot", k_one_hot, bit(OAR_INT32) | bit(OAR_INT64)},
    {"cumsum_scan", k_cumsum, kAll},
    {"cumprod_scan", k_cumprod, kAll},
    {"logcumsumexp_scan", k_logcumsumexp, kFloat},
    {"cum_extreme_scan", k_cum_extreme, kNumeric},
    {"argsort", k_argsort, kAll},
    {"topk_indices", k_topk_indices, kAll},
    // shape.cu, norm.cu, pool.cu (dtype sets as custom_cpu's; pad_nd and its gradient also
    // take the 16-bit floats)
    {"arange", k_arange, kNumeric},
    {"concat", k_concat, kAll},
    {"flip", k_flip, kAll},
    {"tile", k_tile, kAll},
    {"tril", k_tril_triu, kAll},
    {"triu", k_tril_triu, kAll},
    {"pad_nd", k_pad_nd, kFloat},
    {"pad_nd_grad", k_pad_nd_grad, kFloat},
    {"slice_grad", k_slice_grad, kAll},
    {"strided_slice_grad", k_strided_slice_grad, kAll},
    {"check_values", k_check_values, kAll},
    {"layer_norm_base", k_layer_norm, kF32F64},
    {"batch_norm_base", k_batch_norm, kF32F64},
    {"hard_cross_entropy", k_hard_cross_entropy, kF32F64},
    {"pool_max", k_pool_max, kFloat},
    {"pool_avg", k_pool_avg, kFloat},
    {"pool_avg_grad", k_pool_avg_grad, kFloat},
    {"pool_max_grad", k_pool_max_grad, kFloat},
    {"pool_max_gather", k_pool_max_gather, kFloat},
    // conv.cu, attention.cu, interp.cu
    {"convolution", k_convolution, kFloat},
    {"convolution_input_grad", k_convolution_input_grad, kFloat},
    {"convolution_weight_grad", k_convolution_weight_grad, kFloat},
    {"sdpa_core", k_sdpa_core, kFloat},
    {"interp", k_interp, kFloat},
    {"interp_grad", k_interp_grad, kFloat},
    {"grid_sample_base", k_grid_sample, kFloat},
    {"affine_grid_base", k_affine_grid_base, kFloat},
    // rnn.cu: float32 and float64, as the host
    {"rnn_layer", k_rnn_layer, kF32F64},
    {"rnn_layer_grad", k_rnn_layer_grad, kF32F64},
    // norm_grad.cu: fused normalisation gradients (dtypes as the forwards')
    {"layer_norm_grad", k_layer_norm_grad, kF32F64},
    {"batch_norm_grad", k_batch_norm_grad, kF32F64},
    // random.cu: random draws (keyed by the output's dtype; bernoulli by p's)
    {"random_uniform", k_random_uniform, kFloat},
    {"random_normal", k_random_normal, kFloat},
    {"random_randint", k_random_randint,
     bit(OAR_INT32) | bit(OAR_INT64) | bit(OAR_INT8) | bit(OAR_UINT8) | bit(OAR_INT16)},
    {"random_bernoulli", k_random_bernoulli, kFloat},
    {"random_dropout_mask", k_random_dropout_mask, kFloat},
    // optimizer.cu: fused optimizer updates (in place), keyed by the parameter's dtype
    {"optimizer_sgd", k_optimizer_sgd, kFloat},
    {"optimizer_momentum", k_optimizer_momentum, kFloat},
    {"optimizer_adam", k_optimizer_adam, kFloat},
    // special.cu, misc.cu: dtype sets as oar's CPU kernels
    {"lgamma", k_lgamma, kFloat},
    {"digamma", k_digamma, kFloat},
    {"polygamma", k_polygamma, kFloat},
    {"erfinv", k_erfinv, kFloat},
    {"i0", k_i0, kFloat},
    {"i0e", k_i0e, kFloat},
    {"i1", k_i1, kFloat},
    {"i1e", k_i1e, kFloat},
    {"gammainc", k_gammainc, kFloat},
    {"gammaincc", k_gammaincc, kFloat},
    {"bitwise_and", k_bitwise_and, kMiscInts | bit(OAR_BOOL)},
    {"bitwise_or", k_bitwise_or, kMiscInts | bit(OAR_BOOL)},
    {"bitwise_xor", k_bitwise_xor, kMiscInts | bit(OAR_BOOL)},
    {"bitwise_not", k_bitwise_not, kMiscInts | bit(OAR_BOOL)},
    {"bitwise_left_shift", k_bitwise_left_shift, kMiscInts},
    {"bitwise_right_shift", k_bitwise_right_shift, kMiscInts},
    {"gcd", k_gcd, kMiscInts},
    {"lcm", k_lcm, kMiscInts},
    {"copysign", k_copysign, kFloat | kMiscInts},
    {"heaviside", k_heaviside, kFloat | kMiscInts},
    {"nextafter", k_nextafter, kF32F64},
    {"frexp", k_frexp, kFloat},
    {"isclose", k_isclose, kFloat | kMiscInts},
    {"roll", k_roll, kStorage},
    {"linspace", k_linspace, kFloat | kMiscInts},
    {"searchsorted", k_searchsorted, kFloat | kMiscInts},
    {"masked_scatter", k_masked_scatter, kStorage},
    {"unfold_base", k_unfold, kF32F64},
    {"fold_base", k_fold, kF32F64},
    {"max_unpool_base", k_max_unpool, kF32F64},
};

}  // namespace
}  // namespace oar_cuda

extern "C" __attribute__((visibility("default"))) OarStatus oar_plugin_init(
    const OarRegistrar* registrar) {
  using namespace oar_cuda;
  if (!registrar || registrar->abi_version != OAR_DEVICE_ABI_VERSION) return OAR_STATUS_ERROR;
  if (OarStatus st = registrar->register_device(device_interface())) return st;
  for (const Entry& e : kKernels) {
    for (int d = 0; d < 32; ++d) {
      if (!(e.dtypes & bit(d))) continue;
      if (OarStatus st = registrar->register_kernel(kDeviceType, e.op, d, e.fn)) return st;
    }
  }
  return OAR_STATUS_OK;
}
