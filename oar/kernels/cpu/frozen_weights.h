// A promise, for the scope of a run, that the weights a kernel reads do not change (an inference
// predictor's parameters, loaded once and never written). Kernels may then cache work derived
// from a weight (oneDNN's reordered convolution weights), keyed by the weight's storage, which
// they check is still the same object. Outside such a scope nothing is cached: eager tensors can
// be written at any time (optimizers, numpy() views).
#pragma once

namespace oar::kernels {

bool weights_frozen();

class FrozenWeightsScope {
 public:
  FrozenWeightsScope();
  ~FrozenWeightsScope();
  FrozenWeightsScope(const FrozenWeightsScope&) = delete;
  FrozenWeightsScope& operator=(const FrozenWeightsScope&) = delete;

 private:
  bool previous_;
};

}  // namespace oar::kernels
