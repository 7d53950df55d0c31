#include "oar/pass/fusion_passes.h"

#include "oar/pass/algebraic_simplification.h"
#include "oar/pass/blocked_conv.h"
#include "oar/pass/common_subexpression_elimination.h"
#include "oar/pass/constant_folding.h"
#include "oar/pass/dead_code_elimination.h"
#include "oar/pass/drr.h"
#include "oar/pass/elementwise_fusion.h"
#include "oar/pass/fusion_patterns.h"

namespace oar::pass {

std::unique_ptr<Pass> make_fusion_pass(ParameterStore* params) {
  std::vector<drr::Pattern> all;
  if (params)
    for (auto& p : conv_batch_norm_fold_patterns(*params)) all.push_back(std::move(p));
  for (auto patterns : {conv_bias_patterns(), matmul_bias_patterns(), conv_activation_patterns(),
                        softmax_patterns(), layer_norm_patterns()})
    for (auto& p : patterns) all.push_back(std::move(p));
  return std::make_unique<drr::PatternRewritePass>("fusion", std::move(all));
}

std::unique_ptr<Pass> make_conv_batch_norm_fold_pass(ParameterStore& params) {
  return std::make_unique<drr::PatternRewritePass>("conv_batch_norm_fold", conv_batch_norm_fold_patterns(params));
}

void add_inference_passes(PassManager& pm, ParameterStore* params) {
  // Converted (quantized) Linear layers in int8, before anything folds their weights' dequantize.
  pm.add(std::make_unique<drr::PatternRewritePass>("quantized_linear", quantized_linear_patterns()));
  pm.add(std::make_unique<drr::PatternRewritePass>("quantize_dequantize", quantize_dequantize_patterns()));
  pm.add<AlgebraicSimplification>();
  pm.add<CommonSubexpressionElimination>();
  pm.add<DeadCodeElimination>();
  // Fusions before folding: folding first would turn a bias reshape or a BN statistic into an
  // anonymous constant that the patterns no longer recognise.
  pm.add(make_fusion_pass(params));
  // Its fused op has no gradient: inference programs only, hence not in make_fusion_pass.
  pm.add(std::make_unique<drr::PatternRewritePass>("attention_fusion", attention_patterns()));
  pm.add<ConstantFolding>(params, /*frozen_parameters=*/params != nullptr);
  // Before elementwise chains, which would take the residual add and relu it fuses.
  pm.add<BlockedConvolutions>();
  pm.add<ElementwiseFusion>();
  pm.add<DeadCodeElimination>();
}

void add_device_inference_passes(PassManager& pm, ParameterStore* params) {
  pm.add<AlgebraicSimplification>();
  pm.add<CommonSubexpressionElimination>();
  pm.add<DeadCodeElimination>();
  pm.add<ConstantFolding>(params, /*frozen_parameters=*/params != nullptr);  // folds on the host, at load
  pm.add<DeadCodeElimination>();
}

}  // namespace oar::pass
