// Quantization kernels (paddle.quantization): symmetric linear quantization to `bit_length`
// signed integers, qmax = 2^(bits-1) - 1, with the scale s being the abs-max threshold (the
// integer step is s / qmax), as Paddle's kernels:
//   fake_quantize_dequantize: round(clip(x, -s, s) / s * qmax) * s / qmax   (QAT; ints in [-qmax, qmax])
//   quantize_linear:          clip(round(x / s * qmax), -qmax - 1, qmax)     (the ints, as floats)
//   dequantize_linear:        x * s / qmax
// round_type 0 rounds halves to even, 1 away from zero. A zero scale maps everything to 0.
// Scales are per tensor (quant_axis -1) or one per index of quant_axis.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "oar/core/tensor.h"

namespace oar::kernels {

// Rounding half to even without a library call, so loops over it vectorise: adding and
// subtracting 1.5 * 2^23 (2^52 for double) rounds in the default rounding mode. |t| must be well
// below that (the kernels clamp first).
template <typename C>
inline C round_half_even(C t) {
  constexpr C magic = std::is_same_v<C, float> ? C(12582912.0) : C(6755399441055744.0);
  return (t + magic) - magic;
}

// An integer held as a float (or t = x / scale * 127) as int8: clamped to [-128, 127], rounded
// half to even, as quantize_linear does for 8 bits.
inline int8_t to_int8(float t) {
  return static_cast<int8_t>(round_half_even(std::min(std::max(t, -128.0f), 127.0f)));
}

void fake_quantize_dequantize(const Tensor& x, const Tensor& scale, int64_t bit_length, int64_t round_type,
                              const Tensor& out);
void quantize_linear(const Tensor& x, const Tensor& scale, const Tensor& zero_point, int64_t quant_axis,
                     int64_t bit_length, int64_t round_type, const Tensor& out);
void dequantize_linear(const Tensor& x, const Tensor& scale, const Tensor& zero_point, int64_t quant_axis,
                       int64_t bit_length, const Tensor& out);
// dequantize_linear(quantize_linear(x, scale), dequant_scale) in one pass (per-tensor scales; the
// predictor's rewrite of the pairs PTQ leaves around observed layers).
void quantize_dequantize(const Tensor& x, const Tensor& scale, const Tensor& dequant_scale, int64_t bit_length,
                         int64_t round_type, const Tensor& out);

}  // namespace oar::kernels
