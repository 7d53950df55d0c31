// The fusion passes and the standard pipeline.
//   make_fusion_pass():            matmul/conv bias and activation, softmax and layer_norm
//                                  (fusion_patterns.h), applied greedily to a fixpoint.
//   make_conv_batch_norm_fold_pass(params): conv2d + inference batch_norm -> conv2d with
//                                  folded parameters (added to `params`).
//   add_inference_passes(pm, params): the order an inference program is optimised in:
//     simplify, CSE, (BN folding when params are given), fusions, elementwise chains, DCE.
#pragma once
#include <memory>

#include "oar/pass/pass_manager.h"
#include "oar/pass/parameter_store.h"

namespace oar::pass {

std::unique_ptr<Pass> make_fusion_pass();
std::unique_ptr<Pass> make_conv_batch_norm_fold_pass(ParameterStore& params);
void add_inference_passes(PassManager& pm, ParameterStore* params = nullptr);

}  // namespace oar::pass
