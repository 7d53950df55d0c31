#include "oar/ops/infer_meta/special.h"

#include "oar/ops/infer_meta/elementwise.h"

#include <algorithm>

namespace oar::infer_meta {

namespace {

void check_float(const char* op, const char* arg, const Tensor& t) {
  OAR_ENFORCE(is_floating(t.dtype()), TypeMismatch, op, ": argument '", arg, "' must be a ",
              "floating-point tensor (float16, bfloat16, float32, float64), got ",
              dtype_name(t.dtype()));
}

// As Paddle, an axis out of range is an IndexError for the scans.
int64_t scan_axis(const char* op, const Tensor& x, int64_t axis) {
  const int64_t rank = std::max<int64_t>(x.ndim(), 1);
  OAR_ENFORCE(axis >= -rank && axis < rank, OutOfRange, op, ": argument 'axis' is out of range: ",
              "expected a value in [", -rank, ", ", rank, ") for a tensor of rank ", x.ndim(),
              ", got ", axis);
  return axis < 0 ? axis + rank : axis;
}

void check_int(const char* op, const char* arg, const Tensor& t) {
  OAR_ENFORCE(is_integral(t.dtype(), false), TypeMismatch, op, ": argument '", arg, "' must be ",
              "an integer tensor (int8, uint8, int16, int32, int64), got ", dtype_name(t.dtype()));
}

}  // namespace

Meta float_broadcast(const char* op, const Tensor& x, const Tensor& y) {
  check_float(op, "x", x);
  check_float(op, "y", y);
  return broadcast(op, x, y);
}

Meta int_broadcast(const char* op, const Tensor& x, const Tensor& y) {
  check_int(op, "x", x);
  check_int(op, "y", y);
  return broadcast(op, x, y);
}

Meta polygamma(const char* op, const Tensor& x, int64_t n) {
  OAR_ENFORCE_ARG(n >= 0, op, ": argument 'n' must be a non-negative integer, got ", n);
  check_float(op, "x", x);
  return {x.shape(), x.dtype()};
}

std::vector<Meta> frexp(const char* op, const Tensor& x) {
  check_float(op, "x", x);
  return {{x.shape(), x.dtype()}, {x.shape(), x.dtype()}};
}

std::vector<Meta> cum_extreme(const char*, const Tensor& x, int64_t axis, bool is_max, DType dtype) {
  const char* op = is_max ? "cummax" : "cummin";  // the user-facing name, not the scan's
  scan_axis(op, x, axis);
  OAR_ENFORCE_ARG(dtype == DType::Int32 || dtype == DType::Int64, op, ": argument 'dtype' must ",
                  "be int32 or int64, got ", dtype_name(dtype));
  OAR_ENFORCE(is_floating(x.dtype()) || x.dtype() == DType::Int32 || x.dtype() == DType::Int64, TypeMismatch, op,
              ": argument 'x' must be a float16, bfloat16, float32, float64, int32 or int64 ",
              "tensor, got ", dtype_name(x.dtype()));
  return {{x.shape(), x.dtype()}, {x.shape(), dtype}};
}

Meta logcumsumexp(const char*, const Tensor& x, int64_t axis, bool) {
  const char* op = "logcumsumexp";  // the user-facing name, not the scan's
  scan_axis(op, x, axis);
  check_float(op, "x", x);
  return {x.shape(), x.dtype()};
}

}  // namespace oar::infer_meta

namespace oar::infer_meta {

Meta complex_part(const char* op, const Tensor& x) {
  OAR_ENFORCE(is_complex(x.dtype()), TypeMismatch, op, ": argument 'x' must be a complex tensor ",
              "(complex64, complex128), got ", dtype_name(x.dtype()));
  return {x.shape(), x.dtype() == DType::Complex64 ? DType::Float32 : DType::Float64};
}

Meta make_complex(const char* op, const Tensor& re, const Tensor& im) {
  for (const Tensor* t : {&re, &im})
    OAR_ENFORCE(t->dtype() == DType::Float32 || t->dtype() == DType::Float64, TypeMismatch, op,
                ": argument '", t == &re ? "real" : "imag", "' must be a float32 or float64 ",
                "tensor, got ", dtype_name(t->dtype()));
  OAR_ENFORCE(re.dtype() == im.dtype(), TypeMismatch, op, ": arguments 'real' and 'imag' must ",
              "have the same dtype, got ", dtype_name(re.dtype()), " and ", dtype_name(im.dtype()));
  return {broadcast(op, re, im).shape,
          re.dtype() == DType::Float32 ? DType::Complex64 : DType::Complex128};
}

}  // namespace oar::infer_meta
