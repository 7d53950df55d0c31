// Products of a CSR sparse matrix with dense matrices (paddle.sparse.matmul, mv, addmm and
// masked_matmul, and their gradients).
//
// The sparse matrix A [M, K] is given by crows (int64 [M + 1]: row i's entries are
// positions crows[i] .. crows[i + 1]), cols (int64 [nnz], each in [0, K)) and values ([nnz]).
// Dense operands and results are contiguous row-major 2-D tensors of values' dtype (float32 or
// float64). Batched sparse tensors are flattened into one block-diagonal matrix by the caller.
// A malformed pattern (crows not starting at 0, decreasing, not ending at nnz, a column out of
// range) raises InvalidArgument/OutOfRange naming the op and the position.
//
// Work is split by output row; every row sums its entries in storage order, so results are the
// same on every run and with any thread count.
#pragma once
#include "oar/core/tensor.h"

namespace oar::kernels {

// out [M, N] = A · b, with b [K, N].
void csr_matmul(const char* op, const Tensor& crows, const Tensor& cols, const Tensor& values, const Tensor& b,
                const Tensor& out);

// out [K, N] = Aᵀ · g, with g [M, N] (A's pattern transposed by a stable counting sort first).
void csr_matmul_transposed(const char* op, const Tensor& crows, const Tensor& cols, const Tensor& values,
                           const Tensor& g, const Tensor& out);

// out [nnz]: out[p] = x[row(p)] · y[cols[p]], the dense product x · yᵀ sampled at A's pattern
// (x [M, R], y [K, R]). masked_matmul is this with y = its second operand transposed; the
// gradient of csr_matmul with respect to values is this with x = the output's gradient.
void csr_sampled_dot(const char* op, const Tensor& crows, const Tensor& cols, const Tensor& x, const Tensor& y,
                     const Tensor& out);

}  // namespace oar::kernels
