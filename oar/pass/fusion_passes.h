// The fusion passes and the standard pipeline.
//   make_fusion_pass(params):      matmul/conv bias and activation, softmax and layer_norm
//                                  (fusion_patterns.h), and conv + batch_norm folding when a
//                                  parameter store is given, applied greedily to a fixpoint
//                                  (one set, so conv + bias + BN + relu folds in any order).
//   make_conv_batch_norm_fold_pass(params): conv2d + inference batch_norm -> conv2d with
//                                  folded parameters (added to `params`).
//   add_inference_passes(pm, params): the order an inference program is optimised in:
//     simplify, CSE, DCE, fusions (with BN folding when a store is given), constant folding
//     (parameters frozen when a store is given), convolutions with oneDNN epilogues and
//     channel-blocked activations (blocked_conv.h), elementwise chains, DCE.
//   add_device_inference_passes(pm, params): for a program that runs on a device: the same
//     simplifications and folding, without the fusions, whose fused and blocked-layout ops
//     have host kernels only.
#pragma once
#include <memory>

#include "oar/pass/pass_manager.h"
#include "oar/pass/parameter_store.h"

namespace oar::pass {

std::unique_ptr<Pass> make_fusion_pass(ParameterStore* params = nullptr);
std::unique_ptr<Pass> make_conv_batch_norm_fold_pass(ParameterStore& params);
void add_inference_passes(PassManager& pm, ParameterStore* params = nullptr);
void add_device_inference_passes(PassManager& pm, ParameterStore* params = nullptr);

}  // namespace oar::pass
