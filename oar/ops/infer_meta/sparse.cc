#include "oar/ops/infer_meta/sparse.h"

namespace oar::infer_meta {
namespace {

bool known(int64_t a, int64_t b) { return a >= 0 && b >= 0; }

// crows 1-D int64 with at least one entry, cols 1-D int64.
void check_pattern(const char* op, const Tensor& crows, const Tensor& cols) {
  OAR_ENFORCE(crows.dtype() == DType::Int64, TypeMismatch, op, ": crows must be int64, got ",
              dtype_name(crows.dtype()));
  OAR_ENFORCE(cols.dtype() == DType::Int64, TypeMismatch, op, ": cols must be int64, got ", dtype_name(cols.dtype()));
  OAR_ENFORCE_ARG(crows.ndim() == 1 && crows.shape()[0] != 0, op, ": crows must be 1-D with rows + 1 entries, got ",
                  shape_str(crows.shape()));
  OAR_ENFORCE_ARG(cols.ndim() == 1, op, ": cols must be 1-D, got ", shape_str(cols.shape()));
}

void check_matrix(const char* op, const char* arg, const Tensor& t, const Tensor& like) {
  check_float32_or_64(op, arg, t);
  OAR_ENFORCE(t.dtype() == like.dtype(), TypeMismatch, op, ": '", arg, "' must have the sparse values' dtype ",
              dtype_name(like.dtype()), ", got ", dtype_name(t.dtype()));
  OAR_ENFORCE_ARG(t.ndim() == 2, op, ": '", arg, "' must be 2-D, got ", shape_str(t.shape()));
}

void check_values(const char* op, const Tensor& cols, const Tensor& values) {
  check_float32_or_64(op, "values", values);
  OAR_ENFORCE_ARG(values.ndim() == 1, op, ": values must be 1-D (one per entry), got ", shape_str(values.shape()));
  OAR_ENFORCE_ARG(!known(values.shape()[0], cols.shape()[0]) || values.shape()[0] == cols.shape()[0], op,
                  ": values and cols must have one entry each per stored element, got ", values.shape()[0], " and ",
                  cols.shape()[0]);
}

int64_t rows_of(const Tensor& crows) { return crows.shape()[0] < 0 ? -1 : crows.shape()[0] - 1; }

}  // namespace

Meta sparse_csr_matmul(const char* op, const Tensor& crows, const Tensor& cols, const Tensor& values,
                       const Tensor& dense) {
  check_pattern(op, crows, cols);
  check_values(op, cols, values);
  check_matrix(op, "dense", dense, values);
  return {Shape{rows_of(crows), dense.shape()[1]}, values.dtype()};
}

Meta sparse_csr_matmul_t(const char* op, const Tensor& crows, const Tensor& cols, const Tensor& values,
                         const Tensor& g, int64_t k) {
  check_pattern(op, crows, cols);
  check_values(op, cols, values);
  check_matrix(op, "g", g, values);
  OAR_ENFORCE_ARG(!known(g.shape()[0], rows_of(crows)) || g.shape()[0] == rows_of(crows), op, ": g must have ",
                  rows_of(crows), " rows (the sparse matrix's), got ", g.shape()[0]);
  OAR_ENFORCE_ARG(k >= 0, op, ": the column count must be non-negative, got ", k);
  return {Shape{k, g.shape()[1]}, values.dtype()};
}

Meta sparse_csr_sampled_dot(const char* op, const Tensor& crows, const Tensor& cols, const Tensor& x,
                            const Tensor& y) {
  check_pattern(op, crows, cols);
  check_matrix(op, "x", x, x);
  check_matrix(op, "y", y, x);
  OAR_ENFORCE_ARG(!known(x.shape()[0], rows_of(crows)) || x.shape()[0] == rows_of(crows), op, ": x must have ",
                  rows_of(crows), " rows (the pattern's), got ", x.shape()[0]);
  OAR_ENFORCE_ARG(!known(x.shape()[1], y.shape()[1]) || x.shape()[1] == y.shape()[1], op,
                  ": x and y must have the same number of columns, got ", shape_str(x.shape()), " and ",
                  shape_str(y.shape()));
  return {Shape{cols.shape()[0]}, x.dtype()};
}

}  // namespace oar::infer_meta
