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

// elementwise2.cu, unary2.cu, activation.cu (helpers in elementwise2.cuh): more binary maps,
// unary math and predicates, activations with their act2 gradients, clip and masked_fill.
OarStatus k_floor_divide(const OarKernelContext* ctx);
OarStatus k_remainder(const OarKernelContext* ctx);
OarStatus k_fmax(const OarKernelContext* ctx);
OarStatus k_fmin(const OarKernelContext* ctx);
OarStatus k_atan2(const OarKernelContext* ctx);
OarStatus k_logical_and(const OarKernelContext* ctx);
OarStatus k_logical_or(const OarKernelContext* ctx);
OarStatus k_logical_xor(const OarKernelContext* ctx);
OarStatus k_sign(const OarKernelContext* ctx);
OarStatus k_floor(const OarKernelContext* ctx);
OarStatus k_ceil(const OarKernelContext* ctx);
OarStatus k_trunc(const OarKernelContext* ctx);
OarStatus k_logical_not(const OarKernelContext* ctx);
OarStatus k_isnan(const OarKernelContext* ctx);
OarStatus k_isinf(const OarKernelContext* ctx);
OarStatus k_isfinite(const OarKernelContext* ctx);
OarStatus k_expm1(const OarKernelContext* ctx);
OarStatus k_log1p(const OarKernelContext* ctx);
OarStatus k_log2(const OarKernelContext* ctx);
OarStatus k_log10(const OarKernelContext* ctx);
OarStatus k_tan(const OarKernelContext* ctx);
OarStatus k_asin(const OarKernelContext* ctx);
OarStatus k_acos(const OarKernelContext* ctx);
OarStatus k_atan(const OarKernelContext* ctx);
OarStatus k_sinh(const OarKernelContext* ctx);
OarStatus k_cosh(const OarKernelContext* ctx);
OarStatus k_asinh(const OarKernelContext* ctx);
OarStatus k_acosh(const OarKernelContext* ctx);
OarStatus k_atanh(const OarKernelContext* ctx);
OarStatus k_erf(const OarKernelContext* ctx);
OarStatus k_round(const OarKernelContext* ctx);
OarStatus k_silu(const OarKernelContext* ctx);
OarStatus k_relu6(const OarKernelContext* ctx);
OarStatus k_hardswish(const OarKernelContext* ctx);
OarStatus k_gelu(const OarKernelContext* ctx);
OarStatus k_leaky_relu(const OarKernelContext* ctx);
OarStatus k_elu(const OarKernelContext* ctx);
OarStatus k_hardsigmoid(const OarKernelContext* ctx);
OarStatus k_softplus(const OarKernelContext* ctx);
OarStatus k_celu(const OarKernelContext* ctx);
OarStatus k_selu(const OarKernelContext* ctx);
OarStatus k_mish(const OarKernelContext* ctx);
OarStatus k_softsign(const OarKernelContext* ctx);
OarStatus k_softshrink(const OarKernelContext* ctx);
OarStatus k_hardshrink(const OarKernelContext* ctx);
OarStatus k_hardtanh(const OarKernelContext* ctx);
OarStatus k_tanhshrink(const OarKernelContext* ctx);
OarStatus k_thresholded_relu(const OarKernelContext* ctx);
OarStatus k_log_sigmoid(const OarKernelContext* ctx);
OarStatus k_swish(const OarKernelContext* ctx);
OarStatus k_act2_grad(const OarKernelContext* ctx);
OarStatus k_act2_grad2(const OarKernelContext* ctx);
OarStatus k_clip(const OarKernelContext* ctx);
OarStatus k_masked_fill(const OarKernelContext* ctx);
// reduce2.cu, index.cu, scan.cu (more reductions, indexing, scans and sorts).
OarStatus k_prod(const OarKernelContext* ctx);
OarStatus k_all(const OarKernelContext* ctx);
OarStatus k_any(const OarKernelContext* ctx);
OarStatus k_logsumexp(const OarKernelContext* ctx);
OarStatus k_p_norm(const OarKernelContext* ctx);
OarStatus k_argmax(const OarKernelContext* ctx);
OarStatus k_argmin(const OarKernelContext* ctx);
OarStatus k_index_select(const OarKernelContext* ctx);  // index_select and gather
OarStatus k_index_add(const OarKernelContext* ctx);
OarStatus k_take_along_axis(const OarKernelContext* ctx);
OarStatus k_put_along_axis(const OarKernelContext* ctx);
OarStatus k_embedding(const OarKernelContext* ctx);
OarStatus k_embedding_grad(const OarKernelContext* ctx);
OarStatus k_one_hot(const OarKernelContext* ctx);
OarStatus k_cumsum(const OarKernelContext* ctx);
OarStatus k_cumprod(const OarKernelContext* ctx);
OarStatus k_logcumsumexp(const OarKernelContext* ctx);
OarStatus k_cum_extreme(const OarKernelContext* ctx);
OarStatus k_argsort(const OarKernelContext* ctx);
OarStatus k_topk_indices(const OarKernelContext* ctx);
// shape.cu, norm.cu, pool.cu: shape moves, normalisation, cross entropy and pooling
// (plugins/custom_cpu/{creation,shape,norm,loss,pool}.cc are the reference).
OarStatus k_arange(const OarKernelContext* ctx);
OarStatus k_concat(const OarKernelContext* ctx);
OarStatus k_flip(const OarKernelContext* ctx);
OarStatus k_tile(const OarKernelContext* ctx);
OarStatus k_tril_triu(const OarKernelContext* ctx);  // tril and triu, told apart by ctx->op
OarStatus k_pad_nd(const OarKernelContext* ctx);
OarStatus k_pad_nd_grad(const OarKernelContext* ctx);
OarStatus k_slice_grad(const OarKernelContext* ctx);
OarStatus k_strided_slice_grad(const OarKernelContext* ctx);
OarStatus k_check_values(const OarKernelContext* ctx);
OarStatus k_layer_norm(const OarKernelContext* ctx);
OarStatus k_batch_norm(const OarKernelContext* ctx);
OarStatus k_hard_cross_entropy(const OarKernelContext* ctx);
OarStatus k_pool_max(const OarKernelContext* ctx);
OarStatus k_pool_avg(const OarKernelContext* ctx);
OarStatus k_pool_avg_grad(const OarKernelContext* ctx);
OarStatus k_pool_max_grad(const OarKernelContext* ctx);
OarStatus k_pool_max_gather(const OarKernelContext* ctx);
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
// rnn.cu: one recurrent layer (RNN tanh/relu, LSTM, GRU), forward and backward through
// time (cuBLAS GEMMs through conv_blas.cc, fused gate kernels).
OarStatus k_rnn_layer(const OarKernelContext* ctx);
OarStatus k_rnn_layer_grad(const OarKernelContext* ctx);

// norm_grad.cu: the fused normalisation gradients (kernels::layer_norm_grad / batch_norm_grad's
// arguments; plugins/custom_cpu/norm_grad.cc is the reference), float32 and float64.
OarStatus k_layer_norm_grad(const OarKernelContext* ctx);  // x, weight?, mean, rstd, out_grad; begin_norm_axis
OarStatus k_batch_norm_grad(const OarKernelContext* ctx);  // x, weight?, saved_mean, saved_rstd, out_grad; use_batch_stats, channel_axis

// random.cu: random draws with the bits of oar's host kernels (seed, offset INT attributes).
OarStatus k_random_uniform(const OarKernelContext* ctx);       // low, high -> float out
OarStatus k_random_normal(const OarKernelContext* ctx);        // mean, std -> float out
OarStatus k_random_randint(const OarKernelContext* ctx);       // low, high (INT) -> int out
OarStatus k_random_bernoulli(const OarKernelContext* ctx);     // p (any view) -> p's dtype
OarStatus k_random_dropout_mask(const OarKernelContext* ctx);  // p, keep_value -> float out

// optimizer.cu: fused optimizer updates, one parameter per call, in place (outputs alias the
// inputs they write; plugins/custom_cpu/optimizer.cc is the reference and the contract).
OarStatus k_optimizer_sgd(const OarKernelContext* ctx);
OarStatus k_optimizer_momentum(const OarKernelContext* ctx);
OarStatus k_optimizer_adam(const OarKernelContext* ctx);

// special.cu, misc.cu: special functions (scalar math in
// plugins/common/special_math.h), integer and float bit helpers, isclose, and roll, linspace,
// searchsorted, masked_scatter, unfold/fold, max_unpool.
OarStatus k_lgamma(const OarKernelContext* ctx);
OarStatus k_digamma(const OarKernelContext* ctx);
OarStatus k_polygamma(const OarKernelContext* ctx);
OarStatus k_erfinv(const OarKernelContext* ctx);
OarStatus k_i0(const OarKernelContext* ctx);
OarStatus k_i0e(const OarKernelContext* ctx);
OarStatus k_i1(const OarKernelContext* ctx);
OarStatus k_i1e(const OarKernelContext* ctx);
OarStatus k_gammainc(const OarKernelContext* ctx);
OarStatus k_gammaincc(const OarKernelContext* ctx);
OarStatus k_bitwise_and(const OarKernelContext* ctx);
OarStatus k_bitwise_or(const OarKernelContext* ctx);
OarStatus k_bitwise_xor(const OarKernelContext* ctx);
OarStatus k_bitwise_not(const OarKernelContext* ctx);
OarStatus k_bitwise_left_shift(const OarKernelContext* ctx);
OarStatus k_bitwise_right_shift(const OarKernelContext* ctx);
OarStatus k_gcd(const OarKernelContext* ctx);
OarStatus k_lcm(const OarKernelContext* ctx);
OarStatus k_copysign(const OarKernelContext* ctx);
OarStatus k_heaviside(const OarKernelContext* ctx);
OarStatus k_nextafter(const OarKernelContext* ctx);
OarStatus k_frexp(const OarKernelContext* ctx);
OarStatus k_isclose(const OarKernelContext* ctx);
OarStatus k_roll(const OarKernelContext* ctx);
OarStatus k_linspace(const OarKernelContext* ctx);
OarStatus k_searchsorted(const OarKernelContext* ctx);
OarStatus k_masked_scatter(const OarKernelContext* ctx);
OarStatus k_unfold(const OarKernelContext* ctx);
OarStatus k_fold(const OarKernelContext* ctx);
OarStatus k_max_unpool(const OarKernelContext* ctx);

}  // namespace oar_cuda
