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
    {"cast", k_cast, kAll},
    {"assign", k_assign, kAll},
    {"copy_", k_copy_, kAll},
    {"full", k_full, kAll},
    {"where", k_where, kAll},
    // reduce.cu
    {"sum", k_sum, kAll},
    {"mean", k_mean, kAll},
    {"max", k_max, kAll},
    {"min", k_min, kAll},
    // matmul.cc
    {"matmul", k_matmul, kFloat},
    {"softmax_base", k_softmax, kFloat},
    {"log_softmax_base", k_log_softmax, kFloat},
    // conv.cu, attention.cu, interp.cu
    {"convolution", k_convolution, kFloat},
    {"convolution_input_grad", k_convolution_input_grad, kFloat},
    {"convolution_weight_grad", k_convolution_weight_grad, kFloat},
    {"sdpa_core", k_sdpa_core, kFloat},
    {"interp", k_interp, kFloat},
    {"interp_grad", k_interp_grad, kFloat},
    {"grid_sample_base", k_grid_sample, kFloat},
    {"affine_grid_base", k_affine_grid_base, kFloat},
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
