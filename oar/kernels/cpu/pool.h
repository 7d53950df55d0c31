// Pooling kernels (max with the argmax mask, average; plain or adaptive windows) over 1 to 3
// spatial dims, channel-first or channel-last, float32 and float64.
//
// Windows follow Paddle: output o covers [o * stride - pad_before, + kernel) clipped to the
// input (adaptive: [floor(o * in / out), ceil((o + 1) * in / out))). An average divides by the
// window's size after clipping (exclusive, and always when adaptive) or by the kernel's volume;
// a max over an empty window is -FLT_MAX with mask -1. The mask holds the flat index of the
// maximum within its image plane ((d * H + h) * W + w); NaN wins over numbers.
#pragma once
#include <cstdint>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar::kernels {

// Whether v replaces best in a max window: NaN wins, the first maximum is kept; no short-circuit,
// so the compiler can select without branching (random data makes these branches unpredictable).
template <typename T>
inline bool pool_better(T v, T best) {
  return (v > best) | ((v != v) & (best == best));
}

void pool_max(const Tensor& x, const IntArray& kernel_size, const IntArray& stride,
              const IntArray& padding, bool adaptive, bool channel_last, const Tensor& out,
              const Tensor& mask);
void pool_avg(const Tensor& x, const IntArray& kernel_size, const IntArray& stride,
              const IntArray& padding, bool exclusive, bool adaptive, bool channel_last,
              const Tensor& out);
// dx = the gradient of pool_avg given out_grad (dx has the input's shape).
void pool_avg_grad(const Tensor& out_grad, const IntArray& kernel_size, const IntArray& stride,
                   const IntArray& padding, bool exclusive, bool adaptive, bool channel_last,
                   const Tensor& dx);
// dx[plane][mask[o]] += out_grad[o] (the gradient of pool_max; dx has the input's shape).
void pool_max_grad(const Tensor& out_grad, const Tensor& mask, bool channel_last,
                   const Tensor& dx);
// out[o] = x[plane][mask[o]] (0 where mask is -1): the adjoint of pool_max_grad.
void pool_max_gather(const Tensor& x, const Tensor& mask, bool channel_last, const Tensor& out);

}  // namespace oar::kernels
