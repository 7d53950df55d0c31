// Reduction kernels: sum/mean/prod/max/min/all/any over any set of axes, arg-max/min along one
// axis, vector p-norms, and cumulative sums/products. Outputs are preallocated by the op layer
// (their shape comes from infer_meta/reduce.h; keepdim does not change the element order).
#pragma once
#include <optional>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar::kernels {

enum class ReduceOp { Sum, Mean, Prod, Max, Min, All, Any };
const char* reduce_op_name(ReduceOp op);

// out = op over `axis` of x (empty axis = every axis; axes already validated).
// Sum/Mean/Prod/Max/Min compute in out's dtype (x is converted first when it differs; integer
// means truncate toward zero and a bool mean is "any", as Paddle);
// All/Any test x != 0 for any input dtype and write bool.
// Float sums accumulate short blocks in float and the block sums in double; float16/bfloat16
// compute in float.
void reduce(ReduceOp op, const Tensor& x, const IntArray& axis, const Tensor& out);

// Index of the first max (is_min=false) or min along `axis`, or over the flattened tensor when
// axis is empty. NaN counts as the extreme (the first NaN wins, as NumPy). out is int32 or int64.
void arg_reduce(bool is_min, const Tensor& x, std::optional<int64_t> axis, const Tensor& out);

// log(sum(exp(x))) over `axis` in one pass (a running max keeps it from overflowing); -inf for
// an empty reduction. Floating dtypes only.
void logsumexp_reduce(const Tensor& x, const IntArray& axis, const Tensor& out);

// Vector p-norm over `axis`: p = inf -> max|x|, -inf -> min|x|, 0 -> count of nonzeros,
// 1 -> sum|x|, 2 -> sqrt(sum x^2), otherwise (sum |x|^p)^(1/p). Floating dtypes only.
void norm_reduce(const Tensor& x, double porder, const IntArray& axis, const Tensor& out);

// Inclusive cumulative sum (is_prod=false) or product along `axis` (validated), running from the
// end when `reverse`. out has x's shape and dtype.
void cum_scan(bool is_prod, const Tensor& x, int64_t axis, bool reverse, const Tensor& out);

}  // namespace oar::kernels
