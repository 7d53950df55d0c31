// Dtype dispatch: turns a runtime DType into a compile-time type for a kernel body.
//   dispatch_floating(x.dtype(), "exp", [&](auto tag) { using T = decltype(tag); ... });
#pragma once
#include "oar/core/dtype.h"
#include "oar/core/error.h"

namespace oar::kernels {

[[noreturn]] void unsupported_dtype(const char* op, DType t, const char* supported);

#define OAR_CASE(D, T) case DType::D: return f(T{});

template <typename F> decltype(auto) dispatch_floating(DType t, const char* op, F&& f) {
  switch (t) {
    OAR_CASE(Float32, float) OAR_CASE(Float64, double) OAR_CASE(Float16, float16)
    OAR_CASE(BFloat16, bfloat16)
    default: unsupported_dtype(op, t, "float16, bfloat16, float32, float64");
  }
}

template <typename F> decltype(auto) dispatch_integral(DType t, const char* op, F&& f) {
  switch (t) {
    OAR_CASE(Int8, int8_t) OAR_CASE(UInt8, uint8_t) OAR_CASE(Int16, int16_t)
    OAR_CASE(Int32, int32_t) OAR_CASE(Int64, int64_t)
    default: unsupported_dtype(op, t, "int8, uint8, int16, int32, int64");
  }
}

// float32 and float64 only (kernels without half or integer variants).
template <typename F> decltype(auto) dispatch_f32_f64(DType t, const char* op, F&& f) {
  switch (t) {
    OAR_CASE(Float32, float) OAR_CASE(Float64, double)
    default: unsupported_dtype(op, t, "float32, float64");
  }
}

// Integers and floats, no bool or complex.
template <typename F> decltype(auto) dispatch_real(DType t, const char* op, F&& f) {
  switch (t) {
    OAR_CASE(Int8, int8_t) OAR_CASE(UInt8, uint8_t) OAR_CASE(Int16, int16_t)
    OAR_CASE(Int32, int32_t) OAR_CASE(Int64, int64_t) OAR_CASE(Float32, float)
    OAR_CASE(Float64, double) OAR_CASE(Float16, float16) OAR_CASE(BFloat16, bfloat16)
    default:
      unsupported_dtype(op, t, "int8, uint8, int16, int32, int64, float16, bfloat16, float32, float64");
  }
}

// Real types plus bool.
template <typename F> decltype(auto) dispatch_real_bool(DType t, const char* op, F&& f) {
  if (t == DType::Bool) return f(bool{});
  return dispatch_real(t, op, std::forward<F>(f));
}

// Every type.
template <typename F> decltype(auto) dispatch_all(DType t, const char* op, F&& f) {
  switch (t) {
    OAR_CASE(Complex64, complex64) OAR_CASE(Complex128, complex128)
    default: return dispatch_real_bool(t, op, std::forward<F>(f));
  }
}

#undef OAR_CASE

}  // namespace oar::kernels
