// Shape/dtype rules for elementwise ops (shared by eager and static mode).
#pragma once
#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// Output like x (extra arguments are attributes that do not change the meta).
template <typename... Attrs>
Meta same_as_x(const char*, const Tensor& x, const Attrs&...) { return {x.shape(), x.dtype()}; }

// Output like x, but real for complex x (abs: the magnitude of complex64 is float32).
inline Meta magnitude(const char*, const Tensor& x) {
  if (x.dtype() == DType::Complex64) return {x.shape(), DType::Float32};
  if (x.dtype() == DType::Complex128) return {x.shape(), DType::Float64};
  return {x.shape(), x.dtype()};
}

// Output like x but bool (isnan, logical_not, ...).
template <typename... Attrs>
Meta bool_like_x(const char*, const Tensor& x, const Attrs&...) { return {x.shape(), DType::Bool}; }

Meta broadcast(const char* op, const Tensor& x, const Tensor& y);
template <typename... Attrs>
Meta broadcast_bool(const char* op, const Tensor& x, const Tensor& y, const Attrs&...) {
  return {broadcast(op, x, y).shape, DType::Bool};
}
Meta where(const char* op, const Tensor& cond, const Tensor& x, const Tensor& y);
Meta cast(const char* op, const Tensor& x, DType dtype);
// Ops on floats only: rejects integer and bool inputs with a TypeError naming the op.
template <typename... Attrs>
Meta float_only(const char* op, const Tensor& x, const Attrs&...) {
  OAR_ENFORCE(is_floating(x.dtype()) || is_complex(x.dtype()), TypeMismatch, op,
              ": argument 'x' must be a floating-point tensor (float16, bfloat16, float32, ",
              "float64), got ", dtype_name(x.dtype()));
  return {x.shape(), x.dtype()};
}

}  // namespace oar::infer_meta
