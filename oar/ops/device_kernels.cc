#include "oar/ops/device_kernels.h"

#include "oar/autograd/grad_mode.h"
#include "oar/ops/device_dispatch.h"
#include "oar/ops/generated/api/elementwise.h"

namespace oar::ops {

void batch_norm_on_device(const Place& place, const Tensor& x, const Tensor& running_mean,
                          const Tensor& running_var, const Tensor& weight, const Tensor& bias,
                          bool use_batch_stats, bool update_running, double momentum,
                          double epsilon, int64_t channel_axis, const Tensor& out,
                          const Tensor& saved_mean, const Tensor& saved_rstd) {
  launch("batch_norm_base", place, {x, running_mean, running_var, weight, bias},
         ir::AttributeMap{{"use_batch_stats", ir::to_attribute(use_batch_stats)},
                          {"update_running", ir::to_attribute(false)},
                          {"momentum", ir::to_attribute(momentum)},
                          {"epsilon", ir::to_attribute(epsilon)},
                          {"channel_axis", ir::to_attribute(channel_axis)}},
         {out, saved_mean, saved_rstd});
  if (!use_batch_stats || !update_running || !running_mean.defined()) return;
  autograd::NoGradGuard no_grad;  // buffers, not part of the graph
  const Tensor var = scale(reciprocal(square(saved_rstd)), 1.0, -epsilon);
  Tensor rm = running_mean, rv = running_var;  // handles to the buffers' storage
  rm.copy_(add(scale(running_mean, momentum), scale(saved_mean, 1.0 - momentum)));
  if (rv.defined()) rv.copy_(add(scale(running_var, momentum), scale(var, 1.0 - momentum)));
}

}  // namespace oar::ops
