// The fusions, written as DRR patterns (drr.h). Each function returns the patterns of one
// fusion; fusion_passes.h bundles them into passes.
//   matmul + add(bias) (+ activation)        -> fused_matmul_bias
//   linear(x, w, b) + activation             -> fused_matmul_bias
//   conv2d + add(reshaped bias)              -> conv2d with its bias operand
//   conv2d (+ bias) + activation             -> fused_conv2d_bias_act
//   max / subtract / exp / sum / divide      -> softmax (and the form without the max)
//   mean / subtract / square / mean / add(eps) / sqrt / divide -> layer_norm, then
//   layer_norm * weight (+ bias)            -> layer_norm with its weight (and bias)
//   conv2d + batch_norm (inference)          -> conv2d with the BN folded into new parameters
//   multi-head attention (heads transposed, scaled q, softmax, transposed back) -> fused_attention
// Activations: relu, gelu (exact and tanh forms), silu, sigmoid, tanh (fused.yaml's names).
#pragma once
#include <vector>

#include "oar/pass/drr.h"
#include "oar/pass/parameter_store.h"

namespace oar::pass {

std::vector<drr::Pattern> matmul_bias_patterns();
std::vector<drr::Pattern> conv_bias_patterns();
std::vector<drr::Pattern> conv_activation_patterns();
std::vector<drr::Pattern> softmax_patterns();
std::vector<drr::Pattern> layer_norm_patterns();
// transpose q/k/v heads, q * scale, q k^T, softmax, p v, transpose back -> fused_attention
// (inference only: it has no gradient).
std::vector<drr::Pattern> attention_patterns();
// A converted (PTQ/QAT) Linear: linear(dequantize(quantize(x)), dequantize(integer weight), bias)
// -> quantized_linear (int8 GEMM), and the same for Conv2D -> quantized_conv2d (int8
// convolution). Inference only, and before constant folding (which would fold the weight's
// dequantize into a float constant).
std::vector<drr::Pattern> quantized_linear_patterns();
// The quantize -> dequantize pairs left (around observed layers) -> quantize_dequantize, one pass.
// After quantized_linear_patterns, whose matches start with such pairs.
std::vector<drr::Pattern> quantize_dequantize_patterns();
// Reads the conv weight/bias and BN statistics from `params` (all must be `parameter` ops of
// the program with tensors in the store) and adds the folded weight and bias to it.
std::vector<drr::Pattern> conv_batch_norm_fold_patterns(ParameterStore& params);

}  // namespace oar::pass
