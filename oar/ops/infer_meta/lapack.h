// Shape/dtype rules for the LAPACK-backed linear algebra ops: float32/float64 [..., m, n]
// matrices (square where the op needs it), batch dims shared by both operands of solvers.
#pragma once
#include <string>
#include <vector>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// x's meta after checking that it is a float32/float64 batch of matrices (square if asked).
Meta matrices(const char* op, const Tensor& x, bool square);
Meta inv(const char* op, const Tensor& x);
// eig: square float/complex matrices -> complex eigenvalues [..., n] and eigenvectors [..., n, n].
std::vector<Meta> eig(const char* op, const Tensor& x);
Meta eigvals(const char* op, const Tensor& x);
Meta eig_grad(const char* op, const Tensor& x, const Tensor& eigenvalues, const Tensor& eigenvectors,
              const Tensor& grad_eigenvalues, const Tensor& grad_eigenvectors);
Meta det(const char* op, const Tensor& x);
Meta slogdet(const char* op, const Tensor& x);  // [2] + batch
Meta solve_like(const char* op, const Tensor& x, const Tensor& y);  // y's shape
Meta solve(const char* op, const Tensor& x, const Tensor& y);
Meta cholesky(const char* op, const Tensor& x, bool upper);
Meta triangular_solve(const char* op, const Tensor& x, const Tensor& y, bool upper, bool transpose,
                      bool unitriangular);
std::vector<Meta> eigh(const char* op, const Tensor& x, const std::string& UPLO);
std::vector<Meta> svd(const char* op, const Tensor& x, bool full_matrices);
std::vector<Meta> qr(const char* op, const Tensor& x, const std::string& mode);
std::vector<Meta> lu(const char* op, const Tensor& x);

}  // namespace oar::infer_meta
