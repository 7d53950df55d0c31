// float16 and bfloat16 storage types: stored as 16 bits, computed in float.
#pragma once
#include <cstdint>
#include <cstring>
// F16C (part of the x86-64-v3 baseline oar builds for) converts float16 in one instruction, and
// lets the compiler vectorise loops of conversions; device code and other targets keep the
// portable bit manipulation below (which rounds the same way: to nearest even).
#if defined(__F16C__) && !defined(__CUDA_ARCH__)
#include <immintrin.h>
#define OAR_HALF_F16C 1
#endif

namespace oar {

namespace detail {
inline uint32_t float_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bits_float(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
}  // namespace detail

struct bfloat16 {
  uint16_t bits = 0;
  bfloat16() = default;
  bfloat16(float f) {  // NOLINT: implicit like a numeric type
    uint32_t u = detail::float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) { bits = 0x7fc0; return; }  // NaN stays quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
    bits = static_cast<uint16_t>(u >> 16);
  }
  bfloat16(double d) : bfloat16(static_cast<float>(d)) {}
  template <typename I, typename = std::enable_if_t<std::is_integral_v<I>>>
  bfloat16(I i) : bfloat16(static_cast<float>(i)) {}
  operator float() const { return detail::bits_float(static_cast<uint32_t>(bits) << 16); }
};

struct float16 {
  uint16_t bits = 0;
  float16() = default;
  float16(float f) {  // NOLINT
#ifdef OAR_HALF_F16C
    bits = static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
    return;
#endif
    uint32_t x = detail::float_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) {  // inf or NaN
      bits = static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
      return;
    }
    if (absx >= 0x477ff000u) { bits = static_cast<uint16_t>(sign | 0x7c00u); return; }  // overflow
    if (absx < 0x38800000u) {  // subnormal or zero in half
      float v = detail::bits_float(absx) + 0.5f;  // uses FP rounding to place bits
      bits = static_cast<uint16_t>(sign | (detail::float_bits(v) - 0x3f000000u));
      return;
    }
    uint32_t mant_odd = (absx >> 13) & 1u;
    absx += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
    bits = static_cast<uint16_t>(sign | (absx >> 13));
  }
  float16(double d) : float16(static_cast<float>(d)) {}
  template <typename I, typename = std::enable_if_t<std::is_integral_v<I>>>
  float16(I i) : float16(static_cast<float>(i)) {}
  operator float() const {
#ifdef OAR_HALF_F16C
    return _cvtsh_ss(bits);
#endif
    uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
    uint32_t exp = (bits >> 10) & 0x1fu, mant = bits & 0x3ffu;
    if (exp == 0x1f) return detail::bits_float(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {  // zero or subnormal: mant * 2^-24
      float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
      return sign ? -v : v;
    }
    return detail::bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
  }
};

}  // namespace oar
