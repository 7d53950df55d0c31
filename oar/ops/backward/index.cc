#include "oar/ops/backward/index.h"

#include "oar/ops/generated/api/creation.h"
#include "oar/ops/generated/api/index.h"
#include "oar/ops/generated/api/shape.h"
#include "oar/ops/op_helpers.h"

namespace oar {

Tensor masked_scatter_grad_value(const Tensor& mask, const Tensor& value, const Tensor& grad) {
  // The first count(mask) elements of value were used (in order); the rest get zeros.
  Tensor g = masked_select(grad, mask);
  if (g.numel() < value.numel()) g = concat({g, zeros(IntArray{value.numel() - g.numel()}, g.dtype())}, 0);
  return reshape_exact(g, value.shape());
}

}  // namespace oar
