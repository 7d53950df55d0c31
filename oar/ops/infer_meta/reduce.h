// Shape/dtype rules for the reduction ops (sum, mean, prod, max/min/amax/amin, all/any,
// argmax/argmin, p_norm, cumsum/cumprod), plus the helpers their backward formulas use.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// The dims to reduce: normalised and sorted; an empty list means every dim. Repeated dims and
// out-of-range axes raise InvalidArgument as Paddle does.
// A 0-D tensor accepts axis 0 / -1 and has nothing to reduce. Message for an out-of-range axis:
// "sum: The reduce dim index 0 should be in the range [-2, 2), but received 3 (argument 'axis'...".
std::vector<int64_t> reduce_axes(const char* op, const IntArray& axis, int64_t rank);
// `in` without the reduced dims (size 1 there when keepdim).
Shape reduced_shape(const Shape& in, const std::vector<int64_t>& axes, bool keepdim);
// How many input values go into each output value.
int64_t reduced_count(const Shape& in, const std::vector<int64_t>& axes);

// sum: dtype when given; otherwise bool and int32 sum to int64 (as Paddle), others keep x's.
Meta reduce_sum(const char* op, const Tensor& x, const IntArray& axis, std::optional<DType> dtype,
                bool keepdim);
// Output of x's dtype (mean -- integer means truncate, as Paddle -- and the composites that
// validate their axes with it).
Meta reduce_mean(const char* op, const Tensor& x, const IntArray& axis, bool keepdim);
// prod: dtype when given, else x's (bool -> int64).
Meta reduce_prod(const char* op, const Tensor& x, const IntArray& axis, bool keepdim,
                 std::optional<DType> dtype);
// max/min/amax/amin: as reduce_mean, but reducing a zero-size dim raises InvalidArgument.
Meta reduce_minmax(const char* op, const Tensor& x, const IntArray& axis, bool keepdim);
// all/any: bool output.
Meta reduce_logical(const char* op, const Tensor& x, const IntArray& axis, bool keepdim);
// argmax/argmin: axis None reduces the flattened tensor (shape [] or, with keepdim, all ones);
// dtype must be int32 or int64.
Meta reduce_arg(const char* op, const Tensor& x, std::optional<int64_t> axis, bool keepdim,
                DType dtype);
// p_norm: x must be floating; inf/-inf norms of a zero-size dim raise InvalidArgument.
Meta reduce_p_norm(const char* op, const Tensor& x, double porder, const IntArray& axis,
                   bool keepdim);
// cumsum_scan/cumprod_scan: output like x; validates axis (0-D accepts 0 / -1).
Meta reduce_scan(const char* op, const Tensor& x, int64_t axis, bool reverse);

}  // namespace oar::infer_meta

namespace oar {

// Number of values reduced into each output (as a double, for dividing).
double reduce_count(const Tensor& x, const IntArray& axis);

}  // namespace oar
