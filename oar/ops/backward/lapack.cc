#include "oar/ops/backward/lapack.h"

#include "oar/ops/generated/api/creation.h"
#include "oar/ops/generated/api/lapack.h"
#include "oar/ops/generated/api/linalg.h"
#include "oar/ops/generated/api/shape.h"
#include "oar/ops/op_helpers.h"

namespace oar {

Tensor cholesky_grad_x(bool upper, const Tensor& out, const Tensor& grad) {
  const Tensor L = upper ? mT(out) : out;
  const Tensor G = upper ? mT(grad) : grad;
  const Tensor LG = matmul(L, G, true, false);
  const Tensor P = (tril(LG, 0) + tril(LG, -1)) * 0.5;
  const Tensor PLinv = mT(triangular_solve(L, mT(P), false, true, false));
  const Tensor S = triangular_solve(L, PLinv, false, true, false);
  return (S + mT(S)) * 0.5;
}

Tensor triangular_solve_grad_x(const Tensor& x, bool upper, bool transpose, bool unitriangular,
                               const Tensor& out, const Tensor& grad) {
  const Tensor gy = triangular_solve(x, grad, upper, !transpose, unitriangular);
  const Tensor g = transpose ? -matmul(out, gy, false, true) : -matmul(gy, out, false, true);
  // Only the triangle that was read gets a gradient (not the unit diagonal).
  const int64_t diag = unitriangular ? 1 : 0;
  return upper ? triu(g, diag) : tril(g, -diag);
}

Tensor eigh_grad_x(const Tensor& eigenvalues, const Tensor& eigenvectors, const Tensor& grad_eigenvalues,
                   const Tensor& grad_eigenvectors) {
  const Tensor& w = eigenvalues;
  const Tensor& V = eigenvectors;
  const int64_t n = w.shape().back();
  const Tensor I = eye(n, n, w.dtype());
  const Tensor E = unsqueeze(w, {-2}) - unsqueeze(w, {-1}) + I;
  const Tensor inner =
      (1.0 - I) / E * matmul(V, grad_eigenvectors, true, false) + I * unsqueeze(grad_eigenvalues, {-1});
  return matmul(matmul(V, inner), V, false, true);
}

Tensor svd_grad_x(const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& grad_u,
                  const Tensor& grad_s, const Tensor& grad_vh) {
  const int64_t k = s.shape().back();
  const int64_t m = u.shape()[u.ndim() - 2], n = vh.shape().back();
  const Tensor U = slice(u, {-1}, {0}, {k});
  const Tensor V = mT(slice(vh, {-2}, {0}, {k}));
  const Tensor gU = slice(grad_u, {-1}, {0}, {k});
  const Tensor gV = mT(slice(grad_vh, {-2}, {0}, {k}));
  const Tensor s2 = s * s;
  const Tensor I = eye(k, k, s.dtype());
  const Tensor F = (1.0 - I) / (unsqueeze(s2, {-2}) - unsqueeze(s2, {-1}) + I);
  const Tensor Sinv = unsqueeze(1.0 / s, {-2});
  const Tensor inner = I * unsqueeze(grad_s, {-1}) +
                       F * (matmul(U, gU, true, false) - matmul(gU, U, true, false)) * unsqueeze(s, {-2}) +
                       unsqueeze(s, {-1}) * (F * (matmul(V, gV, true, false) - matmul(gV, V, true, false)));
  Tensor gx = matmul(matmul(U, inner), V, false, true);
  if (m > k) gx = gx + matmul((gU - matmul(U, matmul(U, gU, true, false))) * Sinv, V, false, true);
  if (n > k) gx = gx + matmul(U, (gV - matmul(V, matmul(V, gV, true, false))) * Sinv, false, true);
  return gx;
}

}  // namespace oar
