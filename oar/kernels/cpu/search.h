// Sorting and searching kernels: argsort and top-k indices along an axis, nonzero,
// searchsorted, and unique / unique_consecutive of a flattened tensor or along an axis.
// NaN order (as Paddle): ascending sorts put NaNs last, descending ones (and top-k largest) first.
#pragma once
#include <cstdint>
#include <vector>

#include "oar/core/tensor.h"

namespace oar::kernels {

// out (int64, x's shape): for each slice of x along `axis`, the indices that sort it. Equal
// values keep their order (a stable sort, which is also a valid unstable one).
void argsort(const Tensor& x, int64_t axis, bool descending, const Tensor& out);
// out (int64, x's shape with dim `axis` = k): the indices of the k largest (or smallest) values
// of each slice, in sorted order.
void topk_indices(const Tensor& x, int64_t k, int64_t axis, bool largest, const Tensor& out);
// The coordinates of x's nonzero elements, [count, x.ndim()] int64, in row-major order.
Tensor nonzero(const Tensor& x);
// For each value, its insertion index into the sorted last dim of `seq` (1-D, or with the same
// leading dims as values): the first position with seq >= v (seq > v when `right`).
void searchsorted(const Tensor& seq, const Tensor& values, bool right, const Tensor& out);
// Unique values of flattened x: {values, index of first occurrence, inverse (x's shape),
// counts}; values ascending, or, when `consecutive`, one per run of equal neighbours.
std::vector<Tensor> unique_flat(const Tensor& x, bool consecutive, DType index_dtype);
// Unique rows of 2-D x ([n, m]: the slices along unique's axis, flattened): {index of each
// group's first row, inverse [n], counts}; groups in lexicographic row order or, when
// `consecutive`, one per run of equal neighbouring rows. A row holding NaN equals no other row.
std::vector<Tensor> unique_rows(const Tensor& x, bool consecutive, DType index_dtype);

}  // namespace oar::kernels
