// The custom_cpu kernels, by family, as the registration table in kernels.cc lists them.
// Contract: each is an OarKernelFn (oar/device/device_ext.h): it checks its context, copies
// what it needs, enqueues the work on ctx->stream and returns; errors are synchronous
// (OAR_STATUS_ERROR with ctx->error). The op names and argument orders are oar's op specs.
#pragma once

#include "oar/device/device_ext.h"

namespace oar_custom_cpu {

// Inputs x, y (same dtype), broadcast; out has x's dtype, or bool for the comparisons and the
// logical ops.
// fmax/fmin pass NaN over; atan2 is for floats.
enum class Binary {
  Add, Subtract, Multiply, Divide, Maximum, Minimum, Pow, FloorDivide, Remainder, FMax, FMin, Atan2,
  Equal, NotEqual, GreaterThan, GreaterEqual, LessThan, LessEqual, LogicalAnd, LogicalOr, LogicalXor,
  kCount
};
OarKernelFn binary_kernel(Binary op);

// Input x; out has x's shape and dtype (bool for logical_not and the isnan family). The half
// types compute in float.
enum class Unary {
  Relu, Exp, Log, Sqrt, Rsqrt, Tanh, Sigmoid, Abs, Neg, Square, Sin, Cos, Floor, Ceil, Sign,
  LogicalNot, Reciprocal,
  Expm1, Log1p, Log2, Log10, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Erf, Trunc,
  Silu, Relu6, Hardswish, IsNan, IsInf, IsFinite,
  kCount
};
OarKernelFn unary_kernel(Unary op);

OarStatus scale_kernel(const OarKernelContext* ctx);   // x; scale, bias, bias_after_scale
OarStatus pow_kernel(const OarKernelContext* ctx);     // x; y (Scalar)
OarStatus full_kernel(const OarKernelContext* ctx);    // no inputs; fill_value
OarStatus arange_kernel(const OarKernelContext* ctx);  // no inputs; start, end, step (creation.cc)
OarStatus cast_kernel(const OarKernelContext* ctx);    // x; out's dtype is the target
OarStatus assign_kernel(const OarKernelContext* ctx);  // x
OarStatus copy_kernel(const OarKernelContext* ctx);    // copy_: src into the view outputs[0]
OarStatus where_kernel(const OarKernelContext* ctx);   // condition, x, y
OarStatus masked_fill_kernel(const OarKernelContext* ctx);  // x, mask; value
OarStatus round_kernel(const OarKernelContext* ctx);   // x; decimals (halves to even)
OarStatus concat_kernel(const OarKernelContext* ctx);  // x_0..x_{n-1}; axis

// activation.cc: x (a floating type); out alike. Attributes by the ops' spec names.
OarStatus gelu_kernel(const OarKernelContext* ctx);         // approximate
OarStatus leaky_relu_kernel(const OarKernelContext* ctx);   // negative_slope
OarStatus elu_kernel(const OarKernelContext* ctx);          // alpha
OarStatus hardsigmoid_kernel(const OarKernelContext* ctx);  // slope, offset
OarStatus softplus_kernel(const OarKernelContext* ctx);     // beta, threshold
// celu, selu, mish, softsign, softshrink, hardshrink, hardtanh, tanhshrink, thresholded_relu,
// log_sigmoid, swish by name (nullptr for another name).
OarKernelFn act2_kernel(const char* op);
OarStatus act2_grad_kernel(const OarKernelContext* ctx);   // x, out_grad; op, a, b: out_grad * f'(x)
OarStatus act2_grad2_kernel(const OarKernelContext* ctx);  // the same with f''(x)
OarStatus clip_kernel(const OarKernelContext* ctx);        // x (real); min, max

// Input x; attrs axis (empty: all), keepdim; sum also dtype (out's dtype is what counts).
// prod also dtype; p_norm porder; all/any give bool.
enum class Reduce { Sum, Mean, Max, Min, Prod, All, Any, LogSumExp, PNorm, kCount };
OarKernelFn reduce_kernel(Reduce op);
OarStatus arg_reduce_kernel(const OarKernelContext* ctx);  // argmax/argmin: x; axis (int?), keepdim

// index.cc: int32/int64 index tensors; entries outside their range read as 0 (see there).
OarStatus index_select_kernel(const OarKernelContext* ctx);      // index_select, gather: x, index; axis
OarStatus index_add_kernel(const OarKernelContext* ctx);         // x, index, value; axis
OarStatus take_along_axis_kernel(const OarKernelContext* ctx);   // take_along_axis_base: arr, indices; axis
OarStatus embedding_kernel(const OarKernelContext* ctx);         // embedding_base: x, weight; padding_idx
OarStatus embedding_grad_kernel(const OarKernelContext* ctx);    // x, out_grad; num_weights, padding_idx
OarStatus one_hot_kernel(const OarKernelContext* ctx);           // x; num_classes (out's last extent)

// norm.cc: float32/float64; outputs out, mean/saved_mean, rstd/saved_rstd.
OarStatus layer_norm_kernel(const OarKernelContext* ctx);  // layer_norm_base: x, weight?, bias?; epsilon, begin_norm_axis
OarStatus batch_norm_kernel(const OarKernelContext* ctx);  // batch_norm_base (no running-statistics update)

// loss.cc: input [M, C] float32/float64, label [M], weight? [C]; outputs loss, weight_sum, lse.
OarStatus hard_cross_entropy_kernel(const OarKernelContext* ctx);  // ignore_index, input_kind

// conv.cc: x [N, C, S...] or channel_last; weight [M, C / groups, K...]; stride, padding
// (before/after per dimension), dilation, groups, channel_last.
OarStatus convolution_kernel(const OarKernelContext* ctx);              // x, weight, bias?
OarStatus convolution_input_grad_kernel(const OarKernelContext* ctx);   // out_grad, weight; input_shape
OarStatus convolution_weight_grad_kernel(const OarKernelContext* ctx);  // x, out_grad; weight_shape

// pool.cc: kernel_size, stride, padding, ceil_mode, [exclusive,] adaptive, channel_last.
OarStatus pool_max_kernel(const OarKernelContext* ctx);         // x -> out, mask (int32)
OarStatus pool_avg_kernel(const OarKernelContext* ctx);         // x -> out
OarStatus pool_avg_grad_kernel(const OarKernelContext* ctx);    // out_grad; input_shape
OarStatus pool_max_grad_kernel(const OarKernelContext* ctx);    // out_grad, mask; input_shape
OarStatus pool_max_gather_kernel(const OarKernelContext* ctx);  // x, mask

// shape.cc: element moves (any dtype) and padding.
OarStatus flip_kernel(const OarKernelContext* ctx);                // x; axis
OarStatus tile_kernel(const OarKernelContext* ctx);                // x; repeat_times (out's shape)
OarStatus tril_triu_kernel(const OarKernelContext* ctx);           // tril, triu: x; diagonal
OarStatus pad_kernel(const OarKernelContext* ctx);                 // pad_nd: x; pads, mode, value
OarStatus pad_grad_kernel(const OarKernelContext* ctx);            // pad_nd_grad: out_grad; input_shape, pads, mode
OarStatus slice_grad_kernel(const OarKernelContext* ctx);          // out_grad; input_shape, axes, starts, ends
OarStatus strided_slice_grad_kernel(const OarKernelContext* ctx);  // ... and strides
OarStatus check_values_kernel(const OarKernelContext* ctx);        // x, ok; message (waits for the stream)

// search.cc: orders (NaN last, ties by index) and scatters along an axis.
OarStatus argsort_kernel(const OarKernelContext* ctx);          // x; axis, descending -> int64
OarStatus topk_indices_kernel(const OarKernelContext* ctx);     // x; k, axis, largest -> int64
OarStatus put_along_axis_kernel(const OarKernelContext* ctx);   // arr, indices, values; axis, reduce, include_self

// scan.cc: x; axis (and reverse).
OarStatus cum_scan_kernel(const OarKernelContext* ctx);      // cumsum_scan, cumprod_scan
OarStatus logcumsumexp_kernel(const OarKernelContext* ctx);  // logcumsumexp_scan
OarStatus cum_extreme_kernel(const OarKernelContext* ctx);   // cum_extreme_scan: is_max -> values, indices

// interp.cc, grid_sample.cc: resampling (channel-first).
OarStatus interp_kernel(const OarKernelContext* ctx);            // x; out_size, mode, align_corners, align_mode, scale_0..2
OarStatus interp_grad_kernel(const OarKernelContext* ctx);       // out_grad; input_shape and interp's attrs
OarStatus grid_sample_kernel(const OarKernelContext* ctx);       // grid_sample_base: {x, grid}; mode, padding_mode, align_corners
OarStatus affine_grid_base_kernel(const OarKernelContext* ctx);  // no inputs; depth, height, width, align_corners

// rnn.cc: one recurrent layer, forward (its gradient is a host composite).
OarStatus rnn_layer_kernel(const OarKernelContext* ctx);  // x, weights, biases?, h0, c0?, lengths?, weight_ho?; mode, is_reverse

// attention.cc: fused attention forward (its gradient is a host composite).
OarStatus sdpa_core_kernel(const OarKernelContext* ctx);  // {q, k, v[, mask]}, dmask?; scale, is_causal -> out, probs

// rnn_grad.cc: one recurrent layer, backward through time (kernels::rnn_layer_grad's arguments).
OarStatus rnn_layer_grad_kernel(const OarKernelContext* ctx);  // x, weights, biases?, lengths?, weight_ho?, out, reserve, grads? -> 8 gradients?
// norm_grad.cc: the fused normalisation gradients (kernels::layer_norm_grad / batch_norm_grad's
// arguments), float32/float64; outputs dx, dweight, dbias (unwanted ones absent).
OarStatus layer_norm_grad_kernel(const OarKernelContext* ctx);  // x, weight?, mean, rstd, out_grad; begin_norm_axis
OarStatus batch_norm_grad_kernel(const OarKernelContext* ctx);  // x, weight?, saved_mean, saved_rstd, out_grad; use_batch_stats, channel_axis
// random.cc: draws with the bits of oar's host kernels; seed, offset (INT) on each; no inputs
// but bernoulli's p.
OarStatus random_uniform_kernel(const OarKernelContext* ctx);       // low, high -> float out
OarStatus random_normal_kernel(const OarKernelContext* ctx);        // mean, std -> float out
OarStatus random_randint_kernel(const OarKernelContext* ctx);       // low, high (INT) -> int out
OarStatus random_bernoulli_kernel(const OarKernelContext* ctx);     // p (any view) -> p's dtype
OarStatus random_dropout_mask_kernel(const OarKernelContext* ctx);  // p, keep_value -> float out

OarStatus matmul_kernel(const OarKernelContext* ctx);  // x, y; transpose_x, transpose_y
OarStatus softmax_kernel(const OarKernelContext* ctx);  // softmax_base: x; axis
OarStatus log_softmax_kernel(const OarKernelContext* ctx);  // log_softmax_base: x; axis

// optimizer.cc: fused optimizer updates, one parameter per call, in place (outputs alias the
// inputs they write); the contract is at the top of optimizer.cc.
OarStatus optimizer_sgd_kernel(const OarKernelContext* ctx);       // param, grad, master?
OarStatus optimizer_momentum_kernel(const OarKernelContext* ctx);  // param, grad, velocity, master?
OarStatus optimizer_adam_kernel(const OarKernelContext* ctx);      // ..., moments, master?, beta pows
// misc.cc: special functions (x -> out; scalar math in plugins/common/special_math.h),
// integer bit ops and float helpers; x, y broadcast for the binary ones.
OarKernelFn special_unary_kernel(const char* op);  // lgamma, digamma, erfinv, i0, i0e, i1, i1e
OarStatus polygamma_kernel(const OarKernelContext* ctx);    // x; n
OarStatus gammainc_kernel(const OarKernelContext* ctx);     // x (a), y
OarStatus gammaincc_kernel(const OarKernelContext* ctx);    // x (a), y
OarStatus bitwise_and_kernel(const OarKernelContext* ctx);  // bool and the integers
OarStatus bitwise_or_kernel(const OarKernelContext* ctx);
OarStatus bitwise_xor_kernel(const OarKernelContext* ctx);
OarStatus bitwise_not_kernel(const OarKernelContext* ctx);
OarStatus bitwise_left_shift_kernel(const OarKernelContext* ctx);   // x, y; is_arithmetic (unused)
OarStatus bitwise_right_shift_kernel(const OarKernelContext* ctx);  // x, y; is_arithmetic
OarStatus gcd_kernel(const OarKernelContext* ctx);
OarStatus lcm_kernel(const OarKernelContext* ctx);
OarStatus copysign_kernel(const OarKernelContext* ctx);
OarStatus heaviside_kernel(const OarKernelContext* ctx);
OarStatus nextafter_kernel(const OarKernelContext* ctx);   // float32, float64
OarStatus isclose_kernel(const OarKernelContext* ctx);     // x, y; rtol, atol, equal_nan -> bool
OarStatus frexp_kernel(const OarKernelContext* ctx);       // x -> mantissa, exponent

}  // namespace oar_custom_cpu
