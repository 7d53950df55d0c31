// take_along_axis / put_along_axis: gather and scatter along one axis, indices and values having
// the same number of dims as arr (other dims already broadcast by the op layer, so arr's dims are
// at least the indices' ones).
#pragma once
#include <cstdint>
#include <string>

#include "oar/core/tensor.h"

namespace oar::kernels {

// out[..., j, ...] = arr[..., indices[..., j, ...], ...] along `axis` (out has indices' shape).
void take_along_axis(const Tensor& arr, const Tensor& indices, int64_t axis, const Tensor& out);
// out = arr, then out[..., indices[..., j, ...], ...] (reduce)= values[..., j, ...] along `axis`;
// reduce is assign, add, mul (or multiply), mean, amax or amin; without include_self the
// positions written start from the first value instead of arr's.
void put_along_axis(const Tensor& arr, const Tensor& indices, const Tensor& values, int64_t axis,
                    const std::string& reduce, bool include_self, const Tensor& out);

}  // namespace oar::kernels
