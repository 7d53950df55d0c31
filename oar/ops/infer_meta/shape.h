// Shape/dtype rules for the shape ops (reshape, transpose, squeeze, expand, slice, split, concat,
// tile, flip, roll, tril/triu). View ops call these from their kernel expressions; a few helpers
// (inverse_perm, tile_grad_plan, concat_sizes) serve backward formulas.
#pragma once
#include <utility>
#include <vector>

#include "oar/core/view_plan.h"
#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// ---- reshape family ----
// Paddle's reshape rules: 0 copies the input dim at that index, one -1 is inferred.
Shape reshape_target(const char* op, const Shape& in, const IntArray& shape);
// x's shape (or element count) as an int64 tensor: [ndim] (or []).
Meta shape_tensor(const char* op, const Tensor& x);
Meta numel_tensor(const char* op, const Tensor& x);
Meta reshape(const char* op, const Tensor& x, const IntArray& shape);
// `shape` taken literally (no 0/-1 rules): every dim >= 0 and the same numel as x.
Meta reshape_exact(const char* op, const Tensor& x, const IntArray& shape);
Meta squeeze(const char* op, const Tensor& x, const IntArray& axis);
// Axes are inserted one after another, each counted against the rank reached so far.
Meta unsqueeze(const char* op, const Tensor& x, const IntArray& axis);
// For unsqueeze's backward: the output shape with the inserted dims taken out again (so the
// node need not keep x).
IntArray unsqueeze_grad_shape(const Shape& out_shape, const IntArray& axis);
Meta flatten(const char* op, const Tensor& x, int64_t start_axis, int64_t stop_axis);

// ---- transpose ----
// The normalised permutation (checks its length, range and uniqueness).
std::vector<int64_t> transpose_perm(const char* op, const Tensor& x, const IntArray& perm);
// The permutation that undoes `perm` (negative entries counted against perm.size()).
IntArray inverse_perm(const IntArray& perm);

// ---- expand / broadcast_to / expand_as ----
// -1 keeps x's dim; x's dims must be 1 or equal to the target.
Meta expand(const char* op, const Tensor& x, const IntArray& shape);

// ---- slicing ----
// Paddle's slice: negative starts/ends count from the end, then both clamp to [0, dim].
SlicePlan slice(const char* op, const Shape& in, const IntArray& axes,
                         const IntArray& starts, const IntArray& ends);
// strided_slice: as slice for positive strides; for negative strides start clamps to dim - 1,
// and end == -1 (or any end before -dim) means "through index 0".
SlicePlan strided_slice(const char* op, const Shape& in, const IntArray& axes,
                                 const IntArray& starts, const IntArray& ends,
                                 const IntArray& strides);
Meta slice_grad(const char* op, const Tensor& out_grad, const IntArray& input_shape,
                const IntArray& axes, const IntArray& starts, const IntArray& ends);
Meta strided_slice_grad(const char* op, const Tensor& out_grad, const IntArray& input_shape,
                        const IntArray& axes, const IntArray& starts, const IntArray& ends,
                        const IntArray& strides);

// ---- as_strided ----
// The geometry of as_strided(x, shape, stride, offset) over x's storage (elements, from the
// storage start): shape dims and strides >= 0, one stride per dim, offset >= 0, and every element
// inside the storage (Paddle reads past it; oar refuses).
StridedPlan as_strided(const char* op, const Tensor& x, const IntArray& shape,
                                const IntArray& stride, int64_t offset);
// as_strided_grad: x's shape, out_grad's dtype (out_grad must have the view's shape).
Meta as_strided_grad(const char* op, const Tensor& out_grad, const Tensor& x, const IntArray& shape,
                     const IntArray& stride, int64_t offset);
// as_strided_grad_adjoint: the view's shape (grad must have x's shape).
Meta as_strided_grad_adjoint(const char* op, const Tensor& x_grad, const Tensor& x,
                             const IntArray& shape, const IntArray& stride, int64_t offset);

// ---- split / unbind ----
// Section sizes from a list (one entry may be -1); they must add up to the dim.
std::vector<int64_t> split_sections(const char* op, const Tensor& x, const IntArray& sections,
                                    int64_t axis);
// `num` equal sections; the dim must be divisible by num.
IntArray split_num(const char* op, const Tensor& x, int64_t num, int64_t axis);
// Normalised axis for unbind (x must be at least 1-D).
int64_t unbind_axis(const char* op, const Tensor& input, int64_t axis);

// ---- concat / stack ----
// Inputs are promoted to a common dtype. Like Paddle, zero-size inputs are left out (when some
// input is non-empty) and then need not match the others' shapes.
Meta concat(const char* op, const std::vector<Tensor>& x, int64_t axis);
// Normalised axis of a concat of x.
int64_t concat_axis(const char* op, const std::vector<Tensor>& x, int64_t axis);
// Each input's size along the concat axis, or -1 for an input that was left out.
std::vector<int64_t> concat_sizes(const char* op, const std::vector<Tensor>& x, int64_t axis);
// Checks that all inputs share one shape; returns the normalised axis in [0, rank].
int64_t stack_axis(const char* op, const std::vector<Tensor>& x, int64_t axis);

// ---- tile ----
Meta tile(const char* op, const Tensor& x, const IntArray& repeat_times);
// For tile's backward: grad of shape [r0*d0, r1*d1, ...] reshaped to [r0, d0, r1, d1, ...]
// (first) and summed over the repeat dims (second).
std::pair<IntArray, IntArray> tile_grad_plan(const Shape& x_shape, const IntArray& repeat_times);

// ---- flip / roll / tril / triu ----
Meta flip(const char* op, const Tensor& x, const IntArray& axis);
std::vector<int64_t> flip_axes(const char* op, const Tensor& x, const IntArray& axis);
Meta roll(const char* op, const Tensor& x, const IntArray& shifts, const IntArray& axis);
Meta tril_triu(const char* op, const Tensor& x, int64_t diagonal);

// Program type of keep_if_all: x's dtype, x's rank (at least 1) with every dim -1 (x itself or
// an empty [0] tensor, decided by the values of ok).
Meta keep_if_all(const char* op, const Tensor& x, const Tensor& ok);

}  // namespace oar::infer_meta
