#include "oar/ops/infer_meta/index.h"

namespace oar::infer_meta {

void check_index_dtype(const char* op, const char* arg, const Tensor& index) {
  OAR_ENFORCE(index.defined(), InvalidArgument, op, ": argument '", arg,
              "' is not an initialised tensor.");
  OAR_ENFORCE(index.dtype() == DType::Int32 || index.dtype() == DType::Int64, TypeMismatch, op,
              ": argument '", arg, "' must be an int32 or int64 tensor, but received dtype ",
              dtype_name(index.dtype()), ".");
}

void check_mask_dtype(const char* op, const char* arg, const Tensor& mask) {
  OAR_ENFORCE(mask.defined(), InvalidArgument, op, ": argument '", arg,
              "' is not an initialised tensor.");
  OAR_ENFORCE(mask.dtype() == DType::Bool, TypeMismatch, op, ": argument '", arg,
              "' must be a bool tensor, but received dtype ", dtype_name(mask.dtype()), ".");
}

namespace {

// Number of indices in a 1-D (or [N, 1]) index; 0-D allowed when `allow_0d`.
int64_t index_count(const char* op, const Tensor& index, bool allow_0d) {
  const bool ok = index.ndim() == 1 || (allow_0d && index.ndim() == 0) ||
                  (index.ndim() == 2 && index.shape()[1] == 1);
  OAR_ENFORCE_ARG(ok, op, ": argument 'index' must be a ", allow_0d ? "0-D or " : "",
                  "1-D tensor (or 2-D with shape [N, 1]), but received index's shape = ",
                  shape_str(index.shape()), ".");
  return index.numel();
}

int64_t indexed_axis(const char* op, const Tensor& x, int64_t axis) {
  OAR_ENFORCE_ARG(x.ndim() > 0, op, ": argument 'x' must be at least 1-D, but received a 0-D ",
                  "tensor.");
  return normalize_axis(axis, x.ndim(), op, "axis");
}

}  // namespace

Meta gather(const char* op, const Tensor& x, const Tensor& index, int64_t axis) {
  check_index_dtype(op, "index", index);
  const int64_t a = indexed_axis(op, x, axis);
  const int64_t n = index_count(op, index, true);
  Shape out = x.shape();
  if (index.ndim() == 0) out.erase(out.begin() + a);
  else out[a] = n;
  return {out, x.dtype()};
}

Meta index_select(const char* op, const Tensor& x, const Tensor& index, int64_t axis) {
  check_index_dtype(op, "index", index);
  const int64_t a = indexed_axis(op, x, axis);
  Shape out = x.shape();
  out[a] = index_count(op, index, false);
  return {out, x.dtype()};
}

Meta index_add(const char* op, const Tensor& x, const Tensor& index, int64_t axis,
               const Tensor& value) {
  check_index_dtype(op, "index", index);
  const int64_t a = indexed_axis(op, x, axis);
  Shape expected = x.shape();
  expected[a] = index_count(op, index, true);
  OAR_ENFORCE_ARG(value.shape() == expected, op, ": argument 'value' must have the shape of x ",
                  "with dimension ", a, " set to the number of indices, i.e. ",
                  shape_str(expected), ", but received value's shape = ", shape_str(value.shape()),
                  " (x's shape = ", shape_str(x.shape()), ", index's shape = ",
                  shape_str(index.shape()), ").");
  return {x.shape(), x.dtype()};
}

Meta masked_fill(const char* op, const Tensor& x, const Tensor& mask, const Scalar&) {
  check_mask_dtype(op, "mask", mask);
  return {broadcast_shapes(x.shape(), mask.shape(), op), x.dtype()};
}

Meta masked_scatter(const char* op, const Tensor& x, const Tensor& mask, const Tensor& value) {
  check_mask_dtype(op, "mask", mask);
  OAR_ENFORCE_ARG(value.defined(), op, ": argument 'value' is not an initialised tensor.");
  return {broadcast_shapes(x.shape(), mask.shape(), op), x.dtype()};
}

Meta index_put(const char* op, const Tensor& x, const std::vector<Tensor>& indices,
               const Tensor& value, bool) {
  OAR_ENFORCE_ARG(!indices.empty(), op, ": argument 'indices' must hold at least one index tensor.");
  OAR_ENFORCE_ARG(value.defined(), op, ": argument 'value' is not an initialised tensor.");
  int64_t dims = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const Tensor& t = indices[i];
    OAR_ENFORCE(t.defined(), InvalidArgument, op, ": indices[", i, "] is not an initialised tensor.");
    OAR_ENFORCE(t.dtype() == DType::Int32 || t.dtype() == DType::Int64 || t.dtype() == DType::Bool,
                TypeMismatch, op, ": indices[", i, "] must be an int32, int64 or bool tensor, but ",
                "received dtype ", dtype_name(t.dtype()), ".");
    dims += t.dtype() == DType::Bool ? t.ndim() : 1;
  }
  OAR_ENFORCE(dims <= x.ndim(), OutOfRange, op, ": too many indices for a tensor of dimension ",
              x.ndim(), " (the index tensors address ", dims, " dimensions); x's shape = ",
              shape_str(x.shape()), ".");
  return {x.shape(), x.dtype()};
}

Meta index_tensor(const char* op, const Tensor& x, const std::vector<Tensor>& indices) {
  OAR_ENFORCE_ARG(!indices.empty(), op, ": argument 'indices' must hold at least one index tensor.");
  Shape b;
  int64_t dims = 0;  // dims of x the indices address (a bool mask addresses as many as it has)
  bool masked = false, only_single_ints = true;
  for (size_t i = 0; i < indices.size(); ++i) {
    const Tensor& t = indices[i];
    OAR_ENFORCE(t.defined(), InvalidArgument, op, ": indices[", i, "] is not an initialised tensor.");
    if (t.dtype() == DType::Bool) {
      OAR_ENFORCE(!masked, Unimplemented, op, ": two bool mask indices in one static-program index; ",
                  "index with nonzero(mask) instead");
      OAR_ENFORCE(t.ndim() > 0, InvalidArgument, op, ": indices[", i, "] is a 0-D bool tensor; ",
                  "a 0-D bool index is not supported here (index with a 1-D mask instead).");
      masked = true;
      dims += t.ndim();
      continue;
    }
    OAR_ENFORCE(t.dtype() == DType::Int32 || t.dtype() == DType::Int64, TypeMismatch, op, ": indices[", i,
                "] must be an int32, int64 or bool tensor, but received dtype ", dtype_name(t.dtype()), ".");
    only_single_ints &= t.numel() == 1;
    b = broadcast_shapes(b, t.shape(), op);
    ++dims;
  }
  if (masked) {
    // The mask's coordinates broadcast with the int indices: a count known only at run time.
    OAR_ENFORCE(only_single_ints, Unimplemented, op, ": a bool mask beside index tensors of more than ",
                "one element has a result shape that depends on the mask's values; index with ",
                "nonzero(mask) instead");
    b = Shape{-1};
  }
  OAR_ENFORCE(dims <= x.ndim(), OutOfRange, op, ": too many indices for a tensor of dimension ", x.ndim(),
              " (the index tensors address ", dims, " dimensions); x's shape = ", shape_str(x.shape()), ".");
  for (int64_t d = dims; d < x.ndim(); ++d) b.push_back(x.shape()[d]);
  return {b, x.dtype()};
}

Meta masked_select(const char* op, const Tensor& x, const Tensor& mask) {
  check_mask_dtype(op, "mask", mask);
  broadcast_shapes(x.shape(), mask.shape(), op);
  return {Shape{-1}, x.dtype()};
}

Meta repeat_interleave_index(const char* op, const Tensor& repeats, int64_t n) {
  check_index_dtype(op, "repeats", repeats);
  OAR_ENFORCE_ARG(repeats.numel() == 1 || repeats.numel() == n, "repeat_interleave: 'repeats' must hold one ",
                  "count or ", n, " (one per element along the axis), got ", repeats.numel());
  return {Shape{-1}, DType::Int64};
}

}  // namespace oar::infer_meta
