// Device paths written by hand: ops whose spec names a `device_kernel` (tools/gen_ops.py) because
// their host kernel does something a backend kernel may not (device_ext.h: a kernel writes only
// its outputs). Each runs the backend's kernel for what it can do and finishes with ops.
#pragma once
#include <vector>

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

// Advanced indexing on a device (x[indices], x[indices] = value, masked_select, nonzero): the
// index tensors, or the mask, are read on the host, where they decide the result's shape (a
// bool mask's count) and are checked with the host's rules and messages (IndexError for an
// index out of range); the rows they address are then gathered (index_select) or written
// (index_add, put_along_axis) by the device's kernels. The read synchronises the device, as a
// shape-deciding read must (docs/devices.md, "Host reads").
Tensor index_tensor_on_device(const Place& place, const Tensor& x, const std::vector<Tensor>& indices);
void index_put_on_device(const Place& place, const Tensor& x, const std::vector<Tensor>& indices,
                         const Tensor& value, bool accumulate, const Tensor& out);
Tensor masked_select_on_device(const Place& place, const Tensor& x, const Tensor& mask);
Tensor nonzero_on_device(const Place& place, const Tensor& x);

}  // namespace oar::ops
