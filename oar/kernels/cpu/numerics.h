// Value statistics of a floating tensor, for the nan/inf checks of paddle.amp.debugging
// (check_numerics, the tensor checker, FLAGS_check_nan_inf).
#pragma once
#include <cstdint>

#include "oar/core/tensor.h"

namespace oar::kernels {

struct NumericStats {
  int64_t num_nan = 0, num_inf = 0, num_zero = 0;
  double max = 0, min = 0, mean = 0;  // max and min skip nan; mean is nan when any value is
};

// The statistics of the host tensor x (float16/bfloat16/float32/float64, any strides).
NumericStats numeric_stats(const Tensor& x);

}  // namespace oar::kernels
