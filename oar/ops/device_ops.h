// Moving tensors between places: the differentiable copy behind Tensor.to / .cuda() / .cpu().
#pragma once
#include "oar/core/tensor.h"

namespace oar {

// x on `place` (x itself when it is there already). Gradients flow back to x's place.
Tensor to_place(const Tensor& x, const Place& place);

}  // namespace oar
