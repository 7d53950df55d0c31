// Backward formulas of the lapack ops too long to read inside oar/ops/specs/lapack.yaml, which
// names them. Written with other ops, so they differentiate again (create_graph=True).
#pragma once
#include <vector>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar {

// d cholesky / d x: With L the lower factor and G its gradient: P = Phi(L^T G) (lower triangle,
// diagonal halved), S = L^-T P L^-1, and the gradient is the symmetric part of S.
Tensor cholesky_grad_x(bool upper, const Tensor& out, const Tensor& grad);
// d triangular_solve / d x.
Tensor triangular_solve_grad_x(const Tensor& x, bool upper, bool transpose, bool unitriangular,
                               const Tensor& out, const Tensor& grad);
// d eigh / d x: V (diag(gw) + F o (V^T gV)) V^T with F_ij = 1 / (w_j - w_i) off the diagonal.
Tensor eigh_grad_x(const Tensor& eigenvalues, const Tensor& eigenvectors, const Tensor& grad_eigenvalues,
                   const Tensor& grad_eigenvectors);
// d svd / d x: The thin-SVD gradient (Townsend 2016), with F_ij = 1 / (s_j^2 - s_i^2) off the
// diagonal; only the first k = min(m, n) columns of u and rows of vh (the ones x depends on) count.
Tensor svd_grad_x(const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& grad_u,
                  const Tensor& grad_s, const Tensor& grad_vh);

}  // namespace oar
