// Every entry point the plug-in registers with oar: the device interface (device.cc) and one
// OarKernelFn per op. plugin.cc holds the table that pairs each with the dtypes it accepts.
//
// Contract: each kernel follows oar/device/device_ext.h (inputs after type promotion, outputs
// allocated and contiguous except copy_'s, work enqueued on ctx->stream) and checks the dtypes it
// is handed at run time, so one function can be registered under several dtypes.
#pragma once

#include "oar/device/device_ext.h"

namespace oar_cuda {

inline constexpr const char kDeviceType[] = "gpu";

const OarDeviceInterface* device_interface();

// elementwise.cu: binary arithmetic and comparisons (x, y broadcast to out).
OarStatus k_add(const OarKernelContext* ctx);
OarStatus k_subtract(const OarKernelContext* ctx);
OarStatus k_multiply(const OarKernelContext* ctx);
OarStatus k_divide(const OarKernelContext* ctx);
OarStatus k_maximum(const OarKernelContext* ctx);
OarStatus k_minimum(const OarKernelContext* ctx);
OarStatus k_elementwise_pow(const OarKernelContext* ctx);
OarStatus k_equal(const OarKernelContext* ctx);
OarStatus k_not_equal(const OarKernelContext* ctx);
OarStatus k_greater_than(const OarKernelContext* ctx);
OarStatus k_greater_equal(const OarKernelContext* ctx);
OarStatus k_less_than(const OarKernelContext* ctx);
OarStatus k_less_equal(const OarKernelContext* ctx);

// unary.cu: unary math, scale and pow with a Scalar exponent.
OarStatus k_relu(const OarKernelContext* ctx);
OarStatus k_exp(const OarKernelContext* ctx);
OarStatus k_log(const OarKernelContext* ctx);
OarStatus k_sqrt(const OarKernelContext* ctx);
OarStatus k_rsqrt(const OarKernelContext* ctx);
OarStatus k_tanh(const OarKernelContext* ctx);
OarStatus k_sigmoid(const OarKernelContext* ctx);
OarStatus k_abs(const OarKernelContext* ctx);
OarStatus k_neg(const OarKernelContext* ctx);
OarStatus k_square(const OarKernelContext* ctx);
OarStatus k_sin(const OarKernelContext* ctx);
OarStatus k_cos(const OarKernelContext* ctx);
OarStatus k_reciprocal(const OarKernelContext* ctx);
OarStatus k_scale(const OarKernelContext* ctx);
OarStatus k_pow(const OarKernelContext* ctx);

// copy.cu: value movement: cast, assign, copy_ (strided destination), full, where.
OarStatus k_cast(const OarKernelContext* ctx);
OarStatus k_assign(const OarKernelContext* ctx);
OarStatus k_copy_(const OarKernelContext* ctx);
OarStatus k_full(const OarKernelContext* ctx);
OarStatus k_where(const OarKernelContext* ctx);

// reduce.cu
OarStatus k_sum(const OarKernelContext* ctx);
OarStatus k_mean(const OarKernelContext* ctx);
OarStatus k_max(const OarKernelContext* ctx);
OarStatus k_min(const OarKernelContext* ctx);

// matmul.cc
OarStatus k_matmul(const OarKernelContext* ctx);

// softmax.cu: softmax_base / log_softmax_base (x; axis), one warp per row.
OarStatus k_softmax(const OarKernelContext* ctx);
OarStatus k_log_softmax(const OarKernelContext* ctx);

// conv.cu, attention.cu, interp.cu (GEMMs through conv_blas.cc): convolutions, attention,
// resampling.
OarStatus k_convolution(const OarKernelContext* ctx);
OarStatus k_convolution_input_grad(const OarKernelContext* ctx);
OarStatus k_convolution_weight_grad(const OarKernelContext* ctx);
OarStatus k_sdpa_core(const OarKernelContext* ctx);
OarStatus k_interp(const OarKernelContext* ctx);
OarStatus k_interp_grad(const OarKernelContext* ctx);
OarStatus k_grid_sample(const OarKernelContext* ctx);
OarStatus k_affine_grid_base(const OarKernelContext* ctx);

}  // namespace oar_cuda
