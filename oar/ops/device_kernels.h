// Device paths written by hand: ops whose spec names a `device_kernel` (tools/gen_ops.py) because
// their host kernel does something a backend kernel may not (device_ext.h: a kernel writes only
// its outputs). Each runs the backend's kernel for what it can do and finishes with ops.
#pragma once
#include "oar/core/tensor.h"

namespace oar::ops {

// batch_norm_base on a device: the backend normalises and saves the batch statistics
// (saved_mean, saved_rstd = 1/sqrt(var + epsilon)); the running statistics, which the host kernel
// updates in place, are then updated here from them, as the host does:
// running = momentum * running + (1 - momentum) * batch (the biased batch variance).
void batch_norm_on_device(const Place& place, const Tensor& x, const Tensor& running_mean,
                          const Tensor& running_var, const Tensor& weight, const Tensor& bias,
                          bool use_batch_stats, bool update_running, double momentum,
                          double epsilon, int64_t channel_axis, const Tensor& out,
                          const Tensor& saved_mean, const Tensor& saved_rstd);

}  // namespace oar::ops
