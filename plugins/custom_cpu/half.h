// float16 and bfloat16 as storage types: 16 bits in memory, computed in float.
// Contract: the conversions are oar's own (oar/core/half.h), so a value cast on the device has
// the same bits as the same cast on the host: float -> half rounds to nearest even (NaN stays a
// quiet NaN, overflow gives inf), a double is rounded to float first (as the host does), and
// half -> float is exact. The plug-in cannot include oar's C++ headers (only the C ABI), so the
// bit manipulation is repeated here.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace oar_custom_cpu {

namespace half_detail {
inline uint32_t float_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bits_float(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
}  // namespace half_detail

struct bfloat16_t {
  uint16_t bits = 0;
  bfloat16_t() = default;
  explicit bfloat16_t(float f) {
    uint32_t u = half_detail::float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) { bits = 0x7fc0; return; }  // NaN stays quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);                                  // round to nearest even
    bits = static_cast<uint16_t>(u >> 16);
  }
  explicit operator float() const { return half_detail::bits_float(static_cast<uint32_t>(bits) << 16); }
};

struct float16_t {
  uint16_t bits = 0;
  float16_t() = default;
  explicit float16_t(float f) {
    const uint32_t x = half_detail::float_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) {  // inf or NaN
      bits = static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
      return;
    }
    if (absx >= 0x477ff000u) { bits = static_cast<uint16_t>(sign | 0x7c00u); return; }  // overflow
    if (absx < 0x38800000u) {  // subnormal or zero in half: the FPU's rounding places the bits
      const float v = half_detail::bits_float(absx) + 0.5f;
      bits = static_cast<uint16_t>(sign | (half_detail::float_bits(v) - 0x3f000000u));
      return;
    }
    const uint32_t mant_odd = (absx >> 13) & 1u;
    absx += 0xc8000fffu + mant_odd;  // rebias the exponent (-112 << 23), round to nearest even
    bits = static_cast<uint16_t>(sign | (absx >> 13));
  }
  explicit operator float() const {
    const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
    const uint32_t exp = (bits >> 10) & 0x1fu, mant = bits & 0x3ffu;
    if (exp == 0x1f) return half_detail::bits_float(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {  // zero or subnormal: mant * 2^-24
      const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
      return sign ? -v : v;
    }
    return half_detail::bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
  }
};

template <typename T>
inline constexpr bool is_half_v = std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;

// The type a kernel computes T in: float for the half types, T itself otherwise.
template <typename T> struct compute_type { using type = T; };
template <> struct compute_type<float16_t> { using type = float; };
template <> struct compute_type<bfloat16_t> { using type = float; };
template <typename T> using compute_t = typename compute_type<T>::type;

}  // namespace oar_custom_cpu
