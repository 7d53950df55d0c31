#include "oar/ops/infer_meta/lapack.h"

#include <algorithm>

namespace oar::infer_meta {

Meta matrices(const char* op, const Tensor& x, bool square) {
  OAR_ENFORCE(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, TypeMismatch, op,
              ": unsupported dtype ", dtype_name(x.dtype()), " for argument 'x'; supported: ",
              "float32, float64");
  OAR_ENFORCE_ARG(x.ndim() >= 2, op, ": argument 'x' must be a matrix or a batch of matrices ",
                  "(at least 2-D), got shape ", shape_str(x.shape()));
  if (square)
    OAR_ENFORCE_ARG(x.shape()[x.ndim() - 1] == x.shape()[x.ndim() - 2], op, ": argument 'x' must ",
                    "hold square matrices, got shape ", shape_str(x.shape()));
  return {x.shape(), x.dtype()};
}

Meta inv(const char* op, const Tensor& x) { return matrices(op, x, true); }

namespace {
// eig's input: a batch of square matrices of a float or complex dtype; its result's complex dtype.
DType eig_dtype(const char* op, const Tensor& x) {
  OAR_ENFORCE(x.dtype() == DType::Float32 || x.dtype() == DType::Float64 || is_complex(x.dtype()), TypeMismatch, op,
              ": unsupported dtype ", dtype_name(x.dtype()), " for argument 'x'; supported: float32, float64, ",
              "complex64, complex128");
  OAR_ENFORCE_ARG(x.ndim() >= 2, op, ": argument 'x' must be a matrix or a batch of matrices (at least 2-D), got ",
                  "shape ", shape_str(x.shape()));
  OAR_ENFORCE_ARG(x.shape()[x.ndim() - 1] == x.shape()[x.ndim() - 2], op, ": argument 'x' must hold square ",
                  "matrices, got shape ", shape_str(x.shape()));
  return x.dtype() == DType::Float32 || x.dtype() == DType::Complex64 ? DType::Complex64 : DType::Complex128;
}
}  // namespace

std::vector<Meta> eig(const char* op, const Tensor& x) {
  const DType c = eig_dtype(op, x);
  return {{Shape(x.shape().begin(), x.shape().end() - 1), c}, {x.shape(), c}};
}

Meta eigvals(const char* op, const Tensor& x) { return eig(op, x)[0]; }

Meta eig_grad(const char* op, const Tensor& x, const Tensor& eigenvalues, const Tensor& eigenvectors,
              const Tensor& grad_eigenvalues, const Tensor& grad_eigenvectors) {
  const std::vector<Meta> m = eig(op, x);
  check_same_meta(op, "eigenvalues", eigenvalues, m[0].shape, m[0].dtype);
  check_same_meta(op, "eigenvectors", eigenvectors, m[1].shape, m[1].dtype);
  if (grad_eigenvalues.defined()) check_same_meta(op, "grad_eigenvalues", grad_eigenvalues, m[0].shape, m[0].dtype);
  if (grad_eigenvectors.defined())
    check_same_meta(op, "grad_eigenvectors", grad_eigenvectors, m[1].shape, m[1].dtype);
  return {x.shape(), x.dtype()};
}

Meta det(const char* op, const Tensor& x) {
  matrices(op, x, true);
  return {Shape(x.shape().begin(), x.shape().end() - 2), x.dtype()};
}

Meta slogdet(const char* op, const Tensor& x) {
  Meta m = det(op, x);
  m.shape.insert(m.shape.begin(), 2);
  return m;
}

Meta solve_like(const char* op, const Tensor& x, const Tensor& y) {
  matrices(op, x, true);
  OAR_ENFORCE(y.dtype() == x.dtype(), TypeMismatch, op, ": 'x' (", dtype_name(x.dtype()),
              ") and 'y' (", dtype_name(y.dtype()), ") must have the same dtype");
  const Shape& xs = x.shape();
  const Shape& ys = y.shape();
  const bool ok = ys.size() == xs.size() && std::equal(xs.begin(), xs.end() - 2, ys.begin()) &&
                  ys[ys.size() - 2] == xs.back();
  OAR_ENFORCE_ARG(ok, op, ": 'y' must be [..., ", xs.back(), ", k] with the batch dims of 'x' ",
                  shape_str(xs), ", got ", shape_str(ys));
  return {ys, y.dtype()};
}

Meta solve(const char* op, const Tensor& x, const Tensor& y) { return solve_like(op, x, y); }

Meta cholesky(const char* op, const Tensor& x, bool) { return matrices(op, x, true); }

Meta triangular_solve(const char* op, const Tensor& x, const Tensor& y, bool, bool, bool) {
  return solve_like(op, x, y);
}

std::vector<Meta> eigh(const char* op, const Tensor& x, const std::string& UPLO) {
  matrices(op, x, true);
  OAR_ENFORCE_ARG(UPLO == "L" || UPLO == "U", op, ": argument 'UPLO' must be 'L' or 'U', got '",
                  UPLO, "'");
  return {{Shape(x.shape().begin(), x.shape().end() - 1), x.dtype()}, {x.shape(), x.dtype()}};
}

std::vector<Meta> svd(const char* op, const Tensor& x, bool full_matrices) {
  matrices(op, x, false);
  const int64_t m = x.shape()[x.ndim() - 2], n = x.shape().back(), k = std::min(m, n);
  Shape batch(x.shape().begin(), x.shape().end() - 2);
  auto with = [&](std::initializer_list<int64_t> tail) {
    Shape s = batch;
    s.insert(s.end(), tail);
    return Meta{s, x.dtype()};
  };
  return {with({m, full_matrices ? m : k}), with({k}), with({full_matrices ? n : k, n})};
}

std::vector<Meta> qr(const char* op, const Tensor& x, const std::string& mode) {
  matrices(op, x, false);
  OAR_ENFORCE_ARG(mode == "reduced" || mode == "complete" || mode == "r", op, ": argument 'mode' ",
                  "must be 'reduced', 'complete' or 'r', got '", mode, "'");
  const int64_t m = x.shape()[x.ndim() - 2], n = x.shape().back(), k = std::min(m, n);
  const bool complete = mode == "complete";
  Shape q(x.shape().begin(), x.shape().end() - 2), r = q;
  q.insert(q.end(), {m, complete ? m : k});
  r.insert(r.end(), {complete ? m : k, n});
  return {{q, x.dtype()}, {r, x.dtype()}};
}

std::vector<Meta> lu(const char* op, const Tensor& x) {
  matrices(op, x, false);
  const int64_t m = x.shape()[x.ndim() - 2], n = x.shape().back();
  Shape batch(x.shape().begin(), x.shape().end() - 2), piv = batch;
  piv.push_back(std::min(m, n));
  return {{x.shape(), x.dtype()}, {piv, DType::Int32}, {batch, DType::Int32}};
}

}  // namespace oar::infer_meta
