// Element types, their sizes and names, and Paddle's type promotion.
#pragma once
#include <complex>
#include <cstdint>
#include <string>

#include "oar/core/float8.h"
#include "oar/core/half.h"

namespace oar {

// The float8 types come last: storage only (cast in and out, copies, fills), as in Paddle.
enum class DType : uint8_t {
  Bool, Int8, UInt8, Int16, Int32, Int64, Float16, BFloat16, Float32, Float64, Complex64,
  Complex128, Float8E4M3FN, Float8E5M2
};
constexpr int kNumDTypes = 14;

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

size_t dtype_size(DType t);
const char* dtype_name(DType t);  // Paddle's spelling: "float32", "int64", "bool", ...
DType dtype_from_name(const std::string& name);  // throws InvalidArgument on an unknown name

inline bool is_floating(DType t) {
  return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 || t == DType::Float64;
}
inline bool is_complex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }
// float8 values are not "floating" for ops (no arithmetic on them; Paddle's is_floating_point()
// is False for them too).
inline bool is_float8(DType t) { return t == DType::Float8E4M3FN || t == DType::Float8E5M2; }
inline bool is_integral(DType t, bool include_bool = false) {
  return (t >= DType::Int8 && t <= DType::Int64) || (include_bool && t == DType::Bool);
}
// Whether autograd may flow through values of this type.
inline bool is_differentiable(DType t) { return is_floating(t) || is_complex(t); }

// Result type of a binary op between two tensors, as Paddle 3.x: floats promote among
// themselves, complex with real floats; any other mix raises TypeMismatch naming `op`.
DType promote_types(DType a, DType b, const char* op = "promote_types");

// C++ type <-> DType.
template <typename T> struct DTypeOf;
#define OAR_DTYPE_OF(T, D) template <> struct DTypeOf<T> { static constexpr DType value = DType::D; };
OAR_DTYPE_OF(bool, Bool)
OAR_DTYPE_OF(int8_t, Int8)
OAR_DTYPE_OF(uint8_t, UInt8)
OAR_DTYPE_OF(int16_t, Int16)
OAR_DTYPE_OF(int32_t, Int32)
OAR_DTYPE_OF(int64_t, Int64)
OAR_DTYPE_OF(float16, Float16)
OAR_DTYPE_OF(bfloat16, BFloat16)
OAR_DTYPE_OF(float, Float32)
OAR_DTYPE_OF(double, Float64)
OAR_DTYPE_OF(complex64, Complex64)
OAR_DTYPE_OF(complex128, Complex128)
OAR_DTYPE_OF(float8_e4m3fn, Float8E4M3FN)
OAR_DTYPE_OF(float8_e5m2, Float8E5M2)
#undef OAR_DTYPE_OF
template <typename T> inline constexpr DType dtype_of = DTypeOf<T>::value;

// Arithmetic type used to compute on T (half types compute in float).
template <typename T> struct ComputeType { using type = T; };
template <> struct ComputeType<float16> { using type = float; };
template <> struct ComputeType<bfloat16> { using type = float; };
template <typename T> using compute_t = typename ComputeType<T>::type;

DType default_float_dtype();
void set_default_float_dtype(DType t);  // float16, bfloat16, float32 or float64

}  // namespace oar
