// Shape kernels: views (reshape, transpose, expand, slice, split, unbind) that share storage with
// their input, and copies (concat, tile, flip, roll, tril/triu, slice scatter).
// Shapes and arguments are validated by infer_meta (oar/ops/infer_meta/shape.h) before these run.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

#include "oar/core/view_plan.h"

namespace oar::kernels {

// ---- helpers shared with the index kernels ----
// `t` when it is already contiguous (or undefined), else a contiguous copy (no autograd history
// either way).
Tensor as_contiguous(const Tensor& t);
// A contiguous tensor of dtype `dtype` holding t's values (t itself when nothing changes).
Tensor as_contiguous(const Tensor& t, DType dtype);

// An opaque element of `Size` bytes: copies of any dtype go through these.
template <size_t Size> struct RawElem { unsigned char b[Size]; };
// f(RawElem<element size>{}) for the element sizes oar has (1, 2, 4, 8, 16 bytes).
template <typename F> decltype(auto) dispatch_by_size(size_t size, F&& f) {
  switch (size) {
    case 1: return f(RawElem<1>{});
    case 2: return f(RawElem<2>{});
    case 4: return f(RawElem<4>{});
    case 8: return f(RawElem<8>{});
    default: return f(RawElem<16>{});
  }
}

// Strides (in elements) that let a tensor of `shape`/`strides` be viewed with `new_shape`
// (same numel) without copying; false when no such strides exist.
bool view_strides(const Shape& shape, const Strides& strides, const Shape& new_shape,
                  Strides& out);

// ---- views (the result shares x's storage; reshape_view copies when no view exists) ----
// out (int64) = x's shape / x's element count, read when the op runs (programs with -1 dims).
void write_shape(const Tensor& x, const Tensor& out);
void write_numel(const Tensor& x, const Tensor& out);
Tensor reshape_view(const Tensor& x, const Shape& shape);
Tensor permute_view(const Tensor& x, const std::vector<int64_t>& perm);
Tensor expand_view(const Tensor& x, const Shape& shape);
Tensor slice_view(const Tensor& x, const SlicePlan& plan);
// Pieces of `sizes[i]` elements along `axis` (sizes sum to x.shape()[axis]).
std::vector<Tensor> split_views(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis);
// One view per index along `axis`, with that axis removed.
std::vector<Tensor> unbind_views(const Tensor& x, int64_t axis);

// A view of x's storage with plan's geometry (validated by infer_meta::as_strided).
Tensor as_strided_view(const Tensor& x, const StridedPlan& plan);

// ---- copies into a preallocated contiguous `out` ----
// out = the inputs joined along `axis` (converted to out's dtype); zero-size inputs are skipped.
void concat(const std::vector<Tensor>& xs, int64_t axis, const Tensor& out);
// out = x repeated to out's shape (x's shape is left-padded with 1s to out's rank).
void tile(const Tensor& x, const Tensor& out);
// out = x reversed along the (normalised, distinct) axes.
void flip(const Tensor& x, const std::vector<int64_t>& axes, const Tensor& out);
// out = x rolled by `shifts` along `axis` (flattened when axis is empty); validated by infer_meta.
void roll(const Tensor& x, const IntArray& shifts, const IntArray& axis, const Tensor& out);
// out = the lower (tril) or upper (triu) triangle of the last two dims of x, zeros elsewhere.
void tril_triu(const Tensor& x, int64_t diagonal, bool lower, const Tensor& out);
// out = zeros with the window `plan` of out set to src (converted to out's dtype).
void slice_scatter(const Tensor& src, const SlicePlan& plan, const Tensor& out);

// as_strided's backward: out (x's shape) = the gradient of the view `plan` of x's storage. Each
// element of out_grad is added at its storage position (overlapping positions sum), and out reads
// that buffer at x's own positions (storage elements outside x get no gradient).
void as_strided_grad(const Tensor& out_grad, const Tensor& x, const StridedPlan& plan, const Tensor& out);
// Its adjoint (the backward of as_strided_grad): grad (x's shape) written at x's storage positions,
// then read at plan's positions into out (plan's shape).
void as_strided_grad_adjoint(const Tensor& grad, const Tensor& x, const StridedPlan& plan,
                             const Tensor& out);

}  // namespace oar::kernels
