// The geometry of a view, computed by the shape rules (infer_meta) and applied by the view
// kernels: plain data, so both layers can name it without depending on each other.
#pragma once
#include <cstdint>
#include <vector>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar {

// A strided window of a tensor: per dimension the first index, the step (may be negative) and
// the number of elements taken (the window's shape).
struct SlicePlan {
  Shape shape;
  std::vector<int64_t> start;
  std::vector<int64_t> step;
};

// An arbitrary geometry over a storage (as_strided): shape, strides and the offset of the first
// element, all in elements and counted from the start of the storage.
struct StridedPlan {
  Shape shape;
  Strides strides;
  int64_t offset = 0;
};

}  // namespace oar
