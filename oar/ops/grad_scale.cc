#include "oar/ops/grad_scale.h"

#include "oar/autograd/grad_mode.h"
#include "oar/kernels/cpu/amp_scale.h"
#include "oar/ops/generated/api/elementwise.h"
#include "oar/ops/generated/api/reduce.h"
#include "oar/ops/op_helpers.h"

namespace oar::amp {

bool unscale_grads(const std::vector<Tensor>& grads, double inv_scale) {
  autograd::NoGradGuard no_grad;  // a gradient's own rescaling is not part of any graph
  bool finite = true;
  for (Tensor g : grads) {
    if (!g.defined() || g.numel() == 0) continue;
    if (g.place().is_host() && g.is_contiguous()) {
      finite &= kernels::unscale_and_check_finite(g, inv_scale);
    } else {
      finite &= oar::all(oar::isfinite(g)).item<bool>();
      assign_inplace(g, oar::scale(g, inv_scale));
    }
  }
  return finite;
}

}  // namespace oar::amp
