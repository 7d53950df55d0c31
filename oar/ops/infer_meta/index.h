// Shape/dtype rules for the indexing ops (gather, index_select, index_add, masked_fill,
// masked_scatter, index_put). masked_select and index_tensor have data-dependent shapes; their
// kernels allocate the output and check their arguments.
#pragma once
#include <vector>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// Raises TypeMismatch unless `index` is an int32 or int64 tensor.
void check_index_dtype(const char* op, const char* arg, const Tensor& index);
// Raises TypeMismatch unless `mask` is a bool tensor.
void check_mask_dtype(const char* op, const char* arg, const Tensor& mask);

// x's shape with dim `axis` replaced by index.numel() (removed when index is 0-D).
Meta gather(const char* op, const Tensor& x, const Tensor& index, int64_t axis);
// Like gather, but index must be 1-D (or [N, 1]).
Meta index_select(const char* op, const Tensor& x, const Tensor& index, int64_t axis);
// Output like x; value must have x's shape with dim `axis` equal to index.numel().
Meta index_add(const char* op, const Tensor& x, const Tensor& index, int64_t axis,
               const Tensor& value);
// Output: x broadcast with mask, x's dtype.
Meta masked_fill(const char* op, const Tensor& x, const Tensor& mask, const Scalar& value);
Meta masked_scatter(const char* op, const Tensor& x, const Tensor& mask, const Tensor& value);
// Output like x; index dtypes and count are checked (value is checked by the kernel, since a
// bool index makes the indexed shape depend on data).
Meta index_put(const char* op, const Tensor& x, const std::vector<Tensor>& indices,
               const Tensor& value, bool accumulate);
// x[indices] for programs: the int index tensors broadcast to B; the result is B + the dims they
// do not address. A bool mask stands for its nonzero coordinates, whose count is known only when
// the op runs: B is then [-1] (other index tensors must be single elements).
Meta index_tensor(const char* op, const Tensor& x, const std::vector<Tensor>& indices);
// masked_select for programs: 1-D of unknown length (-1), x's dtype; mask bool, broadcastable.
Meta masked_select(const char* op, const Tensor& x, const Tensor& mask);

// Program type of repeat_interleave_index: int64 [-1] (the sum of the counts); repeats is an
// int32/int64 tensor of one count or n.
Meta repeat_interleave_index(const char* op, const Tensor& repeats, int64_t n);

}  // namespace oar::infer_meta
