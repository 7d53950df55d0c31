// Backward formulas of the search ops too long to read inside oar/ops/specs/search.yaml, which
// names them. Written with other ops, so they differentiate again (create_graph=True).
#pragma once
#include <string>
#include <vector>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar {

// d put_along_axis_base / d arr.
Tensor put_along_axis_base_grad_arr(const Tensor& arr, const Tensor& indices, const Tensor& values,
                                    int64_t axis, const std::string& reduce, bool include_self,
                                    const Tensor& grad);
// d put_along_axis_base / d values.
Tensor put_along_axis_base_grad_values(const Tensor& indices, const Tensor& values, int64_t axis,
                                       const std::string& reduce, const Tensor& grad);

}  // namespace oar
