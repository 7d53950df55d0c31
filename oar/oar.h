// The public C++ API in one include: tensors, every op (free functions and Tensor methods),
// autograd (backward, grad, no-grad guards) and the random generator.
#pragma once
#include "oar/autograd/engine.h"
#include "oar/autograd/grad_mode.h"
#include "oar/core/allocator.h"
#include "oar/core/parallel.h"
#include "oar/core/random.h"
#include "oar/core/tensor.h"
#include "oar/ops/amp.h"
#include "oar/ops/generated/api.h"
#include "oar/ops/grad_scale.h"
#include "oar/ops/op_helpers.h"

namespace oar {
using autograd::NoGradGuard;
inline void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }
}  // namespace oar
