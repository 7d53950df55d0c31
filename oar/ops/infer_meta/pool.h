// Shape rules and argument resolution for pooling (max/avg, plain and adaptive, 1-3 spatial dims).
//
// The user-facing ops take Paddle's arguments (kernel_size/stride as one value or one per
// spatial dim, stride empty meaning the kernel size; Paddle's padding forms; padding_algorithm
// "EXPLICIT", "SAME" or "VALID") and resolve them here into the kernel ops' form: one kernel
// size and stride per spatial dim and a before/after padding pair per spatial dim. For the
// adaptive ops, kernel_size holds the output sizes.
#pragma once
#include <string>
#include <vector>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

struct PoolArgs {
  IntArray kernel, stride, padding;  // padding: before/after pairs per spatial dim
  bool channel_last = false;
};

PoolArgs pool_args(const char* op, int64_t nd, const Tensor& x, const IntArray& kernel_size,
                   const IntArray& stride, const IntArray& padding, bool ceil_mode,
                   const std::string& data_format, const std::string& padding_algorithm);
// output_size: one value or one per spatial dim (each > 0).
PoolArgs adaptive_pool_args(const char* op, int64_t nd, const Tensor& x,
                            const IntArray& output_size, const std::string& data_format);

// The kernel ops (resolved arguments). Output spatial sizes follow Paddle: (in - k + pads) / s
// + 1 with C division (rounded up with ceil_mode), or the given sizes when adaptive.
std::vector<Meta> pool_max(const char* op, const Tensor& x, const IntArray& kernel_size,
                           const IntArray& stride, const IntArray& padding, bool ceil_mode,
                           bool adaptive, bool channel_last);
Meta pool_avg(const char* op, const Tensor& x, const IntArray& kernel_size,
              const IntArray& stride, const IntArray& padding, bool ceil_mode, bool exclusive,
              bool adaptive, bool channel_last);
Meta pool_avg_grad(const char* op, const Tensor& out_grad, const IntArray& input_shape,
                   const IntArray& kernel_size, const IntArray& stride, const IntArray& padding,
                   bool ceil_mode, bool exclusive, bool adaptive, bool channel_last);
Meta pool_max_grad(const char* op, const Tensor& out_grad, const Tensor& mask,
                   const IntArray& input_shape, bool channel_last);
Meta pool_max_gather(const char* op, const Tensor& x, const Tensor& mask, bool channel_last);

// Output spatial sizes of a pooling of an input of shape x (resolved arguments).
Shape pool_out_spatial(const char* op, const Shape& x, const IntArray& kernel_size,
                       const IntArray& stride, const IntArray& padding, bool ceil_mode,
                       bool adaptive, bool channel_last);

}  // namespace oar::infer_meta
