// Value conversion between any two element types (bool, ints, halves, floats, complex).
#pragma once
#include <type_traits>

#include "oar/core/dtype.h"
#include "oar/core/numeric_cast.h"

namespace oar::kernels {

template <typename T> struct is_complex_t : std::false_type {};
template <typename R> struct is_complex_t<std::complex<R>> : std::true_type {};

template <typename To, typename From>
inline To convert(const From& v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (std::is_same_v<From, float16> || std::is_same_v<From, bfloat16>)
      return static_cast<float>(v) != 0.0f;
    else return v != From(0);
  } else if constexpr (is_complex_t<To>::value) {
    using R = typename To::value_type;
    if constexpr (is_complex_t<From>::value) return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    else return To(convert<R>(v), R(0));
  } else if constexpr (is_complex_t<From>::value) {
    return convert<To>(v.real());
  } else if constexpr (std::is_same_v<From, float16> || std::is_same_v<From, bfloat16>) {
    return numeric_cast<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, float16> || std::is_same_v<To, bfloat16>) {
    return To(static_cast<float>(v));
  } else {
    return numeric_cast<To>(v);  // float -> integer saturates
  }
}

}  // namespace oar::kernels
