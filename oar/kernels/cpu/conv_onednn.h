// float32 (and bfloat16) convolution through oneDNN's primitives (forward, backward data, backward weights).
// Primitives and their layout reorders are created once per problem shape and cached; tensors
// stay in oar's plain layouts (the reorders to oneDNN's blocked layouts run inside each call,
// into buffers from oar's caching allocator).
#pragma once
#include "oar/kernels/cpu/conv.h"

namespace oar::kernels::onednn {

// False when the environment sets OAR_CONV_ONEDNN=0 (read once): every float32 convolution then
// runs through im2col + GEMM.
bool conv_enabled();

// Each returns false, having done nothing, when oneDNN has no implementation for the problem;
// the caller then falls back. Pointers are to contiguous tensors in the layout `s` describes;
// bias may be null.
// Under FrozenWeightsScope (frozen_weights.h), `w_owner` (w's storage) lets the reordered weights
// be cached and reused.
bool conv_forward(const ConvShape& s, const float* x, const float* w, const float* bias,
                  float* y, const std::shared_ptr<Storage>& w_owner = nullptr);
// An inference convolution with its epilogue in the primitive (post-ops):
//   y = relu?(x (*) w + bias + residual)
// x and y are plain (NCHW...) or channel-blocked (nChw16c: [N, ceil(C/16), H, W, 16], the padded
// channels zero); the residual is in y's layout and may alias y.
struct FusedConv {
  bool blocked_in = false, blocked_out = false, relu = false;
  const float* residual = nullptr;
};
bool conv_forward_fused(const ConvShape& s, const FusedConv& f, const float* x, const float* w,
                        const float* bias, float* y, const std::shared_ptr<Storage>& w_owner = nullptr);
bool conv_backward_data(const ConvShape& s, const float* dy, const float* w, float* dx);
bool conv_backward_weight(const ConvShape& s, const float* x, const float* dy, float* dw);

// The same three passes on bfloat16 x, w, y, dy, dx and dw (bias float32), for CPUs with
// bfloat16 dot products (cpu_has_bf16_dot()): bfloat16 products accumulated in float32.
bool conv_forward_bf16(const ConvShape& s, const void* x, const void* w, const float* bias, void* y);
bool conv_backward_data_bf16(const ConvShape& s, const void* dy, const void* w, void* dx);
bool conv_backward_weight_bf16(const ConvShape& s, const void* x, const void* dy, void* dw);

}  // namespace oar::kernels::onednn
