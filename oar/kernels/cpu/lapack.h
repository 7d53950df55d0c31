// Dense factorizations and solvers through LAPACK (Debian's liblapack), batched over leading
// dims, float32 and float64. Inputs are [..., m, n] row-major tensors of any strides; outputs
// are preallocated contiguous tensors. Failures (singular matrix, not positive definite) raise
// InvalidArgument naming the op and the batch entry.
#pragma once
#include "oar/core/tensor.h"

namespace oar::kernels {

// LU with partial pivoting: lu (x's shape) holds L (unit, below) and U; pivots [..., min(m,n)]
// int32 1-based (LAPACK's and Paddle's convention); infos [...] int32 (0, or the first zero pivot).
void lu_factor(const Tensor& x, const Tensor& lu, const Tensor& pivots, const Tensor& infos);
void inverse(const Tensor& x, const Tensor& out);
// out [2, ...]: sign (or 0) and log|det| of each matrix (det is exp of the second times the first).
void slogdet(const Tensor& x, const Tensor& out);
void det(const Tensor& x, const Tensor& out);
// out = x^-1 y for square x [..., n, n] and y [..., n, k] (same batch dims).
void solve(const Tensor& x, const Tensor& y, const Tensor& out);
// The lower (or upper) Cholesky factor; zeros in the other triangle.
void cholesky(const Tensor& x, bool upper, const Tensor& out);
// out = op(x)^-1 y with x triangular (the other triangle is not read).
void triangular_solve(const Tensor& x, const Tensor& y, bool upper, bool transpose,
                      bool unitriangular, const Tensor& out);
// Eigenvalues (ascending, [..., n]) and eigenvectors (columns, [..., n, n]) of symmetric x, read
// from its lower (or upper) triangle. vectors may be undefined (values only).
void eigh(const Tensor& x, bool lower, const Tensor& values, const Tensor& vectors);
// Thin (or full) SVD: u [..., m, k|m], s [..., k], vh [..., k|n, n]; u and vh may be undefined.
void svd(const Tensor& x, bool full_matrices, const Tensor& u, const Tensor& s, const Tensor& vh);
// QR: q [..., m, k] (or [..., m, m] when complete) and r [..., k|m, n]; q undefined for mode 'r'.
void qr(const Tensor& x, bool complete, const Tensor& q, const Tensor& r);

}  // namespace oar::kernels
