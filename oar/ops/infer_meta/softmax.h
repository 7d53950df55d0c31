// Shape/dtype rules for softmax and log_softmax: the output is like x, which must be floating.
#pragma once
#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// Errors name the user-facing op (softmax / log_softmax), not the internal one in `op`.
Meta softmax(const char* op, const Tensor& x, int64_t axis);
Meta log_softmax(const char* op, const Tensor& x, int64_t axis);
// softmax_grad: dx like out; grad must have out's shape and dtype.
Meta softmax_grad(const char* op, const Tensor& out, const Tensor& grad, int64_t axis, bool log);
// softmax_mask: like x (floating, at least 2-D); mask of x's dtype broadcasts to x.
Meta softmax_mask(const char* op, const Tensor& x, const Tensor& mask, bool upper_triangle);

}  // namespace oar::infer_meta
