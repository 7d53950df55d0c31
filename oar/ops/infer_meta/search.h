// Shape/dtype rules for sorting, searching and along-axis ops (argsort, topk, searchsorted,
// take_along_axis, put_along_axis). nonzero and unique have data-dependent shapes: their kernels
// allocate the outputs, and programs see the data-dependent dims as -1 (unknown until run).
#pragma once
#include <string>
#include <vector>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// axis normalised for a sort over x (a 0-D x sorts its one element: axis -1 or 0).
int64_t sort_axis(const char* op, const Tensor& x, int64_t axis);
// int64 indices of x's shape.
Meta argsort(const char* op, const Tensor& x, int64_t axis, bool descending, bool stable);
// int64 indices of x's shape with dim `axis` = k (0 <= k <= that dim).
Meta topk_indices(const char* op, const Tensor& x, int64_t k, int64_t axis, bool largest);
// values' shape, int64 (int32 with out_int32); seq 1-D or with values' leading dims.
Meta searchsorted(const char* op, const Tensor& seq, const Tensor& values, bool out_int32,
                  bool right);
// indices' shape and arr's dtype; same ndim, indices no larger than arr off the axis.
Meta take_along_axis(const char* op, const Tensor& arr, const Tensor& indices, int64_t axis);
// arr's shape and dtype; values of indices' shape.
Meta put_along_axis(const char* op, const Tensor& arr, const Tensor& indices,
                    const Tensor& values, int64_t axis, const std::string& reduce,
                    bool include_self);
// Program types of nonzero_coords: int64 [-1, x.ndim()], one row per nonzero element (the count
// is known only when the op runs; the kernel allocates the result).
Meta nonzero_coords(const char* op, const Tensor& x);
// Program types of unique_flat: values [-1] (x's dtype), first index [-1], inverse (x's shape) and
// counts [-1] in index_dtype.
std::vector<Meta> unique_flat(const char* op, const Tensor& x, bool consecutive, DType index_dtype);
// Program types of unique_rows over 2-D x: first index [-1], inverse [rows], counts [-1].
std::vector<Meta> unique_rows(const char* op, const Tensor& x, bool consecutive, DType index_dtype);

}  // namespace oar::infer_meta
