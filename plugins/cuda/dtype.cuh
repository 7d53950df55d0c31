// Element types of the CUDA kernels: the C++ type of each OarDType, the type arithmetic runs in
// (float for the 16-bit floats, as oar's CPU kernels), value conversion, and run-time dispatch
// from an OarDType to a type tag.
//
// Contract: dispatch<Types<...>>(dtype, f) calls f(Tag<T>{}) for the T whose OarDType is dtype
// and returns false when dtype is not in the list, so each op instantiates only the types it
// supports (compile time grows with every instantiation).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "oar/device/device_ext.h"

namespace oar_cuda {

using half = __half;
using bf16 = __nv_bfloat16;

template <class T> struct Tag { using type = T; };
template <class... Ts> struct Types {};

template <class T> constexpr int32_t dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return OAR_BOOL;
  else if constexpr (std::is_same_v<T, int8_t>) return OAR_INT8;
  else if constexpr (std::is_same_v<T, uint8_t>) return OAR_UINT8;
  else if constexpr (std::is_same_v<T, int16_t>) return OAR_INT16;
  else if constexpr (std::is_same_v<T, int32_t>) return OAR_INT32;
  else if constexpr (std::is_same_v<T, int64_t>) return OAR_INT64;
  else if constexpr (std::is_same_v<T, half>) return OAR_FLOAT16;
  else if constexpr (std::is_same_v<T, bf16>) return OAR_BFLOAT16;
  else if constexpr (std::is_same_v<T, float>) return OAR_FLOAT32;
  else if constexpr (std::is_same_v<T, double>) return OAR_FLOAT64;
  else static_assert(sizeof(T) == 0, "unsupported element type");
}

using FloatTypes = Types<float, double, half, bf16>;
using NumericTypes = Types<float, double, half, bf16, int32_t, int64_t>;
using AllTypes = Types<float, double, half, bf16, int32_t, int64_t, bool>;
// Every real dtype oar stores: what moves values without arithmetic (cast, assign, copy_, full,
// where) handles; arithmetic kernels take AllTypes (oar promotes the small integers first).
using StorageTypes = Types<float, double, half, bf16, int32_t, int64_t, bool, int8_t, uint8_t, int16_t>;

template <class... Ts, class F>
bool dispatch(Types<Ts...>, int32_t dtype, F&& f) {
  return ((dtype == dtype_of<Ts>() ? (f(Tag<Ts>{}), true) : false) || ...);
}

template <class T> constexpr bool is_half_v = std::is_same_v<T, half> || std::is_same_v<T, bf16>;
template <class T> constexpr bool is_float_v = is_half_v<T> || std::is_floating_point_v<T>;
template <class T> using compute_t = std::conditional_t<is_half_v<T>, float, T>;

// A stored value in its compute type.
template <class T>
__host__ __device__ __forceinline__ compute_t<T> to_compute(T v) {
  if constexpr (std::is_same_v<T, half>) return __half2float(v);
  else if constexpr (std::is_same_v<T, bf16>) return __bfloat162float(v);
  else return v;
}

// Any value to element type To, with oar's conversion rules: to bool means != 0; the 16-bit
// floats go through float; float -> integer truncates (the GPU saturates, NaN gives 0).
template <class To, class From>
__host__ __device__ __forceinline__ To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_half_v<From>) {
    return convert<To>(to_compute(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<To, half>) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bf16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace oar_cuda
