// Elementwise-chain fusion: a chain of elementwise ops (relu, exp, tanh, sigmoid, neg, sqrt,
// abs, log, square, silu, exact gelu, rsqrt; add, subtract, multiply, divide, maximum, minimum)
// over float32/float64 values of one shape and dtype becomes one fused_elementwise op, whose
// kernel runs the whole chain block by block (oar/kernels/cpu/fused_elementwise.h).
// An op joins the chain of an operand's producer when every reader of that operand is itself a
// chain candidate; a chain whose intermediates turn out to be read outside it (only its last
// result may be) is left alone, so every intermediate dies inside the chain. Ops that broadcast
// or promote never join. Chains of two ops or more are rewritten. (This is a
// dedicated pass rather than a DRR pattern: a chain has any length, a DRR pattern a fixed shape.)
#pragma once
#include "oar/pass/pass.h"

namespace oar::pass {

class ElementwiseFusion : public Pass {
 public:
  std::string name() const override { return "elementwise_fusion"; }
  bool run(ir::Program& program) override;
};

}  // namespace oar::pass
