// Loss scaling's gradient pass (GradScaler.unscale_ in Python, usable from C++ as is): divide
// every gradient by the loss scale and report whether any held an inf or nan.
#pragma once
#include <vector>

#include "oar/core/tensor.h"

namespace oar::amp {

// grads[i] *= inv_scale in place, for every defined gradient; true when all were finite.
// Host gradients take one fused pass (kernels/cpu/amp_scale.h); others run through ops on
// their own device.
bool unscale_grads(const std::vector<Tensor>& grads, double inv_scale);

}  // namespace oar::amp
