// Inference convolutions in oneDNN's terms (the pass named "blocked_conv"), in two steps:
//  1. Epilogue fusion: conv2d and fused_conv2d_bias_act (float32, NCHW, explicit padding,
//     activation none or relu) become conv2d_fused (oar/ops/specs/blocked.yaml); a following
//     add of a same-typed value (the residual of a ResNet block) and then relu join it when the
//     conv (then the add) has no other reader, as the primitive's sum and eltwise post-ops.
//  2. First layers: a conv2d_fused with few taps (C * kh * kw <= 64), few filters (not worth
//     blocking, as below), stride 1, no dilation, groups or residual, read only by a max_pool2d,
//     becomes conv2d_max_pool_fused with that pool (kernels/cpu/conv_pool_fused.h), NCHW out:
//     LeNet's 1 -> 6 conv no longer writes its 28x28 output padded to 16 channels.
//  3. Blocked layout: a conv2d_fused whose result feeds a max_pool2d, a global average pool or
//     another conv2d_fused (that one only when the channel count rounds up to a multiple of 16
//     by at most a quarter: 64, 70, 128, not 6 or 17) writes channel-blocked activations (kernels/cpu/blocked_layout.h);
//     those pools then run on the blocked values too (max_pool2d_blocked,
//     global_avg_pool2d_blocked), and every other reader (flatten, fetch, elementwise ops...)
//     reads one to_plain_layout per value. A residual that is not blocked gets to_blocked_layout.
// Results are those of the plain ops up to float rounding (the same oneDNN kernels compute
// them). Programs with a `grad` op are left alone: the new ops have no gradient.
#pragma once
#include "oar/pass/pass.h"

namespace oar::pass {

class BlockedConvolutions : public Pass {
 public:
  std::string name() const override { return "blocked_conv"; }
  bool run(ir::Program& program) override;
};

}  // namespace oar::pass
