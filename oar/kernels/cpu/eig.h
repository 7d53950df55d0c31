// The general (non-symmetric) eigendecomposition through LAPACK's ?geev, batched over leading dims,
// and its gradient. Values and vectors are complex: complex64 for float32/complex64 input,
// complex128 for float64/complex128; each vector column has unit 2-norm and its largest component
// real (LAPACK's normalisation, as Paddle's). The order is LAPACK's.
#pragma once
#include "oar/core/tensor.h"

namespace oar::kernels {

// x [..., n, n] -> values [..., n], vectors [..., n, n] (columns); vectors may be undefined.
void eig(const Tensor& x, const Tensor& values, const Tensor& vectors);

// d eig / d x (Paddle's complex-gradient convention, dL/dRe + i dL/dIm): with M the off-diagonal
// (V^H gV - V^H V diag(Re diag(V^H gV))) / conj(L_j - L_i) plus diag(gL),
// gx = V^-H M V^H. grad_values / grad_vectors may be undefined (no gradient reached them); out is
// x's dtype (the real part for real x).
void eig_grad(const Tensor& values, const Tensor& vectors, const Tensor& grad_values, const Tensor& grad_vectors,
              const Tensor& out);

}  // namespace oar::kernels
