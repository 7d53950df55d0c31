#include "oar/ops/infer_meta/search.h"

#include "oar/ops/infer_meta/index.h"

namespace oar::infer_meta {

int64_t sort_axis(const char* op, const Tensor& x, int64_t axis) {
  return normalize_axis(axis, std::max<int64_t>(x.ndim(), 1), op, "axis");
}

Meta argsort(const char* op, const Tensor& x, int64_t axis, bool, bool) {
  sort_axis(op, x, axis);
  OAR_ENFORCE(!is_complex(x.dtype()), TypeMismatch, op, ": unsupported dtype ",
              dtype_name(x.dtype()), " for argument 'x'; complex values have no order");
  return {x.shape(), DType::Int64};
}

Meta topk_indices(const char*, const Tensor& x, int64_t k, int64_t axis, bool) {
  const char* op = "topk";  // topk_indices is topk's internal op: errors name topk
  const int64_t a = sort_axis(op, x, axis);
  OAR_ENFORCE(!is_complex(x.dtype()), TypeMismatch, op, ": unsupported dtype ",
              dtype_name(x.dtype()), " for argument 'x'; complex values have no order");
  const int64_t n = x.ndim() ? x.shape()[a] : 1;
  OAR_ENFORCE_ARG(k >= 0 && k <= n, op, ": argument 'k' must be in [0, ", n, "] (the size of ",
                  "axis ", a, " of x, shape ", shape_str(x.shape()), "), got ", k);
  Shape s = x.shape();
  if (!s.empty()) s[a] = k;
  return {s, DType::Int64};
}

Meta searchsorted(const char* op, const Tensor& seq, const Tensor& values, bool out_int32, bool) {
  OAR_ENFORCE(seq.dtype() == values.dtype(), TypeMismatch, op, ": argument 'sorted_sequence' (",
              dtype_name(seq.dtype()), ") and 'values' (", dtype_name(values.dtype()),
              ") must have the same dtype");
  OAR_ENFORCE_ARG(seq.ndim() >= 1, op, ": argument 'sorted_sequence' must be at least 1-D, got ",
                  "a 0-D tensor");
  if (seq.ndim() > 1) {
    bool ok = values.ndim() == seq.ndim();
    for (int64_t d = 0; ok && d + 1 < seq.ndim(); ++d) ok = seq.shape()[d] == values.shape()[d];
    OAR_ENFORCE_ARG(ok, op, ": the leading dims of 'sorted_sequence' ", shape_str(seq.shape()),
                    " and 'values' ", shape_str(values.shape()), " must match (all but the last)");
  }
  return {values.shape(), out_int32 ? DType::Int32 : DType::Int64};
}

Meta take_along_axis(const char* op, const Tensor& arr, const Tensor& indices, int64_t axis) {
  check_index_dtype(op, "indices", indices);
  OAR_ENFORCE_ARG(arr.ndim() == indices.ndim(), op, ": 'indices' and 'arr' must have the same ",
                  "number of dimensions, got ", shape_str(indices.shape()), " and ",
                  shape_str(arr.shape()));
  OAR_ENFORCE_ARG(arr.ndim() > 0, op, ": argument 'arr' must be at least 1-D");
  const int64_t a = normalize_axis(axis, arr.ndim(), op, "axis");
  for (int64_t d = 0; d < arr.ndim(); ++d)
    OAR_ENFORCE_ARG(d == a || indices.shape()[d] <= arr.shape()[d], op, ": 'indices' ",
                    shape_str(indices.shape()), " is larger than 'arr' ", shape_str(arr.shape()),
                    " in dim ", d);
  return {indices.shape(), arr.dtype()};
}

Meta put_along_axis(const char* op, const Tensor& arr, const Tensor& indices,
                    const Tensor& values, int64_t axis, const std::string&, bool) {
  take_along_axis(op, arr, indices, axis);
  OAR_ENFORCE_ARG(values.shape() == indices.shape(), op, ": 'values' ", shape_str(values.shape()),
                  " must have the shape of 'indices' ", shape_str(indices.shape()));
  return {arr.shape(), arr.dtype()};
}

Meta nonzero_coords(const char*, const Tensor& x) {
  return {Shape{-1, x.ndim()}, DType::Int64};
}

std::vector<Meta> unique_flat(const char*, const Tensor& x, bool, DType index_dtype) {
  return {{Shape{-1}, x.dtype()}, {Shape{-1}, index_dtype}, {x.shape(), index_dtype}, {Shape{-1}, index_dtype}};
}

std::vector<Meta> unique_rows(const char* op, const Tensor& x, bool, DType index_dtype) {
  OAR_ENFORCE_ARG(x.ndim() == 2, op, ": argument 'x' must be 2-D, got shape ", shape_str(x.shape()), ".");
  return {{Shape{-1}, index_dtype}, {Shape{x.shape()[0]}, index_dtype}, {Shape{-1}, index_dtype}};
}

}  // namespace oar::infer_meta
