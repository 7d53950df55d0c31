// Indexing kernels: gather/index_select, index_add, masked_fill/select/scatter, and NumPy-style
// advanced indexing (index_tensor reads, index_put writes). Index values are checked on the
// calling thread before any parallel work (out-of-range raises OutOfRange -> IndexError).
#pragma once
#include <cstdint>
#include <vector>

#include "oar/core/scalar.h"
#include "oar/core/tensor.h"

namespace oar::kernels {

// The values of an int32/int64 index tensor (row-major) as int64, negative ones wrapped into
// [0, n); raises OutOfRange naming op, arg and axis for values outside [-n, n).
std::vector<int64_t> read_index(const char* op, const char* arg, const Tensor& index, int64_t n,
                                int64_t axis);

// Advanced indexing resolved: the index tensors (int32/int64, a bool mask standing for its
// nonzero coordinates; host tensors) checked against x's shape (OutOfRange -> IndexError) and
// broadcast together to B; offsets[i] = sum_d index_d * strides[d] per position of B.
struct AdvancedIndex {
  Shape shape;                   // the index tensors broadcast together (B)
  int64_t dims = 0;              // how many leading dims of x they address (k)
  std::vector<int64_t> offsets;  // per position of B (row-major): sum_d index_d * strides[d]
};
AdvancedIndex resolve_indices(const char* op, const Shape& x_shape, const Strides& strides,
                              const std::vector<Tensor>& indices);

// out = x indexed by `index` along `axis` (out is x's shape with that dim = index.numel(), or
// without it for a 0-D index).
void index_select(const char* op, const Tensor& x, const Tensor& index, int64_t axis,
                  const Tensor& out);
// out = x, then out[..., index[j], ...] += value[..., j, ...] along `axis` (repeats accumulate).
void index_add(const char* op, const Tensor& x, const Tensor& index, int64_t axis,
               const Tensor& value, const Tensor& out);

// out = where(mask, value, x) with broadcasting.
void masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value, const Tensor& out);
// The elements of x (broadcast with mask) where mask is true, as a new 1-D tensor.
Tensor masked_select(const Tensor& x, const Tensor& mask);
// out = x broadcast with mask; the positions where mask is true take value's elements in order.
void masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& value, const Tensor& out);

// repeat_interleave's picks: index i repeated repeats[i] times (repeats[0] times when it holds one
// count), int64 [sum]; repeats is an int32/int64 tensor of 1 or n counts, none negative.
Tensor repeat_interleave_index(const Tensor& repeats, int64_t n);

// Advanced indexing over the leading dims of x: each index tensor (int32/int64, or a bool mask
// standing for its nonzero coordinates) addresses one dim (a mask: as many as it has); all are
// broadcast together to shape B. index_tensor returns B + x.shape[k:].
Tensor index_tensor(const char* op, const Tensor& x, const std::vector<Tensor>& indices);
// out = x with out[indices] = value (or += with accumulate; repeated positions then add up);
// value broadcasts to B + x.shape[k:].
void index_put(const char* op, const Tensor& x, const std::vector<Tensor>& indices,
               const Tensor& value, bool accumulate, const Tensor& out);

}  // namespace oar::kernels
