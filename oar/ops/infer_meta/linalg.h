// Shape/dtype rules for the linear algebra ops.
#pragma once
#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// NumPy matmul: a 1-D x is [1, K] and a 1-D y is [K, 1] (that dim is dropped from the result;
// their transpose flags are ignored); batch dims broadcast. x and y must share a dtype.
Meta matmul(const char* op, const Tensor& x, const Tensor& y, bool transpose_x,
            bool transpose_y);
// x's meta after checking that it is a batch of square matrices [..., n, n] of a floating or
// complex dtype.
Meta matrix_exp(const char* op, const Tensor& x);

}  // namespace oar::infer_meta
