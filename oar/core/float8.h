// float8 storage types (paddle.float8_e4m3fn, paddle.float8_e5m2): one byte, no arithmetic of
// their own. Tensors of them are made by cast and read back by cast, as in Paddle (whose CPU
// build has kernels for little else), and conversions follow Paddle's rounding exactly:
// - e4m3fn (bias 7, 3 mantissa bits, no infinities): round to nearest even, saturating to
//   +-448 for larger values and for infinities; NaN becomes 0x7E (448), as Paddle's does;
// - e5m2 (bias 15, 2 mantissa bits): the value as float16 (round to nearest even), then the
//   float16 bits rounded to their top byte (nearest even, which may reach infinity); a value
//   that is infinite as float16 saturates to +-57344; NaN is 0x7F.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "oar/core/half.h"

namespace oar {

struct float8_e4m3fn {
  uint8_t bits = 0;
  float8_e4m3fn() = default;
  float8_e4m3fn(double v) {  // NOLINT: implicit like a numeric type
    if (std::isnan(v)) { bits = 0x7e; return; }
    const uint8_t sign = std::signbit(v) ? 0x80 : 0;
    const double a = std::fabs(v);
    if (a >= 448.0) { bits = sign | 0x7e; return; }
    if (a < 0.015625) {  // below 2^-6: subnormal, in steps of 2^-9 (8 steps reach 2^-6 itself)
      bits = sign | static_cast<uint8_t>(std::nearbyint(a * 512.0));
      return;
    }
    int e;
    std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
    int exponent = e - 1;
    double q = std::nearbyint((std::ldexp(a, -exponent) - 1.0) * 8.0);
    if (q == 8.0) { q = 0.0; ++exponent; }
    const int biased = exponent + 7;
    if (biased > 15 || (biased == 15 && q == 7.0)) { bits = sign | 0x7e; return; }
    bits = sign | static_cast<uint8_t>(biased << 3) | static_cast<uint8_t>(q);
  }
  float8_e4m3fn(float v) : float8_e4m3fn(static_cast<double>(v)) {}  // NOLINT
  template <typename I, typename = std::enable_if_t<std::is_integral_v<I>>>
  float8_e4m3fn(I i) : float8_e4m3fn(static_cast<double>(i)) {}  // NOLINT
  operator float() const {
    const float sign = bits & 0x80 ? -1.0f : 1.0f;
    if ((bits & 0x7f) == 0x7f) return std::nanf("");
    const int exponent = (bits >> 3) & 0xf, mantissa = bits & 7;
    if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -9);
    return sign * std::ldexp(1.0f + mantissa / 8.0f, exponent - 7);
  }
};

struct float8_e5m2 {
  uint8_t bits = 0;
  float8_e5m2() = default;
  float8_e5m2(float v) {  // NOLINT
    if (std::isnan(v)) { bits = 0x7f; return; }
    const uint16_t h = float16(v).bits;
    if ((h & 0x7fff) == 0x7c00) { bits = static_cast<uint8_t>((h >> 8) & 0x80) | 0x7b; return; }
    uint16_t upper = h >> 8;
    const uint16_t lower = h & 0xff;
    if (lower > 0x80 || (lower == 0x80 && (upper & 1))) ++upper;
    bits = static_cast<uint8_t>(upper);
  }
  float8_e5m2(double v) : float8_e5m2(static_cast<float>(v)) {}  // NOLINT
  template <typename I, typename = std::enable_if_t<std::is_integral_v<I>>>
  float8_e5m2(I i) : float8_e5m2(static_cast<float>(i)) {}  // NOLINT
  operator float() const {
    float16 h;
    h.bits = static_cast<uint16_t>(bits) << 8;
    return static_cast<float>(h);
  }
};

}  // namespace oar
