// make_plan: broadcast the inputs to the output's shape, drop size-1 dims and merge dims that are
// contiguous with each other in every tensor (see strided_plan.h).
#include "plugins/cuda/strided_plan.h"

namespace oar_cuda {

bool make_plan(const OarKernelContext* ctx, const OarTensor* const* tensors, int ntensors,
               HostPlan* plan) {
  const OarTensor& out = *tensors[0];
  plan->ntensors = ntensors;
  plan->ndim = 0;
  int64_t size[64];
  int64_t stride[kMaxTensors][64];
  if (out.ndim > 64) return fail(ctx, "%s: %d dims are more than the gpu kernels take", ctx->op,
                                 out.ndim), false;
  for (int t = 1; t < ntensors; ++t) {
    const OarTensor& in = *tensors[t];
    if (in.ndim > out.ndim) {
      for (int d = 0; d < in.ndim - out.ndim; ++d)
        if (in.shape[d] != 1)
          return fail(ctx, "%s: input %d with %d dims does not broadcast to %d dims", ctx->op,
                      t - 1, in.ndim, out.ndim), false;
    }
  }
  // Innermost first, size-1 dims dropped.
  int n = 0;
  for (int d = out.ndim - 1; d >= 0; --d) {
    const int64_t s = out.shape[d];
    if (s == 1) continue;
    size[n] = s;
    stride[0][n] = out.strides[d];
    for (int t = 1; t < ntensors; ++t) {
      const OarTensor& in = *tensors[t];
      const int di = d - (out.ndim - in.ndim);
      int64_t st = 0;
      if (di >= 0) {
        if (in.shape[di] == s) st = in.strides[di];
        else if (in.shape[di] != 1)
          return fail(ctx, "%s: input %d dim %d has size %lld, the output %lld", ctx->op, t - 1,
                      di, static_cast<long long>(in.shape[di]), static_cast<long long>(s)), false;
      }
      stride[t][n] = st;
    }
    ++n;
  }
  // Merge dim k+1 into the running dim when each tensor steps over both as one.
  int m = 0;
  for (int k = 0; k < n; ++k) {
    if (m > 0) {
      bool merge = true;
      for (int t = 0; t < ntensors && merge; ++t)
        merge = stride[t][k] == stride[t][m - 1] * plan->size[m - 1];
      if (merge) {
        plan->size[m - 1] *= size[k];
        continue;
      }
    }
    if (m == kMaxDims)
      return fail(ctx, "%s: more than %d dims remain after merging contiguous dims", ctx->op,
                  kMaxDims), false;
    plan->size[m] = size[k];
    for (int t = 0; t < ntensors; ++t) plan->stride[t][m] = stride[t][k];
    ++m;
  }
  if (m == 0) {  // 0-D or all sizes 1: one element
    plan->size[0] = 1;
    for (int t = 0; t < ntensors; ++t) plan->stride[t][0] = 1;
    m = 1;
  }
  plan->ndim = m;
  return true;
}

}  // namespace oar_cuda
