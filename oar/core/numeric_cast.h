// Floating-point to integer conversion without undefined behaviour. A C++ cast of a float
// outside the integer's range (or of NaN) is undefined (UBSan's float-cast-overflow); oar defines
// it as x86's conversion instructions do, which is what NumPy and Paddle give on these machines:
// NaN and out-of-range values become the "integer indefinite" (the minimum of int32/int64), and
// narrower integers convert through int32 and keep its low bits.
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>

namespace oar {

template <typename To, typename From>
inline To float_to_int(From v) {
  static_assert(std::is_integral_v<To> && std::is_floating_point_v<From>);
  if constexpr (sizeof(To) < 4) {
    return static_cast<To>(float_to_int<int32_t>(v));  // through int32, low bits kept
  } else if constexpr (std::is_same_v<To, uint32_t>) {
    return static_cast<To>(float_to_int<int64_t>(v));  // through int64, low bits kept
  } else if constexpr (std::is_unsigned_v<To>) {
    if (!(v > From(-1) && v < From(18446744073709551616.0))) return To(1) << 63;
    return static_cast<To>(v);
  } else {
    constexpr To lo = std::numeric_limits<To>::min();  // -2^k: exact as a float, as is 2^k
    if (!(v >= static_cast<From>(lo) && v < -static_cast<From>(lo))) return lo;
    return static_cast<To>(v);
  }
}

// static_cast, except float -> integer as above.
template <typename To, typename From>
inline To numeric_cast(From v) {
  if constexpr (std::is_integral_v<To> && !std::is_same_v<To, bool> && std::is_floating_point_v<From>)
    return float_to_int<To>(v);
  else
    return static_cast<To>(v);
}

}  // namespace oar
