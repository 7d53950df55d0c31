// Backward formulas of the reduction ops (oar/ops/specs/reduce.yaml names them), too long to
// read inside the spec. They are written with other ops, so they differentiate again
// (create_graph=True); they may read values (prod and cumprod test for zeros), which is why they
// live here and not beside the shape rules in infer_meta/.
#pragma once
#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar {

// t (the result of reducing x over axis) reshaped to the keepdim shape, so it broadcasts to x.
Tensor reduce_keepdim(const Tensor& t, const Tensor& x, const IntArray& axis, bool keepdim);
// grad of a sum-like reduction expanded back to x's shape (and cast to x's dtype).
Tensor reduce_grad_expand(const Tensor& grad, const Tensor& x, const IntArray& axis, bool keepdim);
// prod: grad * prod(others), exact when x holds zeros.
Tensor prod_grad(const Tensor& x, const Tensor& out, const Tensor& grad, const IntArray& axis, bool keepdim);
// max/min (every position equal to the result gets the whole grad) and amax/amin (split_ties: the
// grad is shared evenly among the tied positions).
Tensor minmax_grad(const Tensor& x, const Tensor& out, const Tensor& grad, const IntArray& axis, bool keepdim,
                   bool split_ties);
// p_norm; zero norms give zero gradients instead of NaN.
Tensor p_norm_grad(const Tensor& x, const Tensor& out, const Tensor& grad, double porder,
                   const IntArray& axis, bool keepdim);
// cumprod_scan, exact when x holds zeros.
Tensor cumprod_grad(const Tensor& x, const Tensor& out, const Tensor& grad, int64_t axis, bool reverse);

}  // namespace oar
