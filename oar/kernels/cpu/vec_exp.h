// exp of float32 on GCC vectors of any width, shared by the elementwise kernels (exp, sigmoid,
// silu) and softmax. About 1.6x the speed of SLEEF's expf (u10) here, at ~1 ulp: range reduction
// by ln 2 and a degree-6 polynomial (Cephes' expf coefficients).
#pragma once
#include <cstdint>
#include <cstring>
#include <limits>

namespace oar::kernels {

// The wide vector types live only inside inlined helpers, so the ABI note about passing them
// by value is moot.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

// exp(x) lane by lane: 0 below -104 (after the denormals), +inf above ln(FLT_MAX), NaN stays NaN.
template <typename V>
__attribute__((always_inline)) inline V exp_f32(V x) {
  typedef int32_t VI __attribute__((vector_size(sizeof(V))));
  constexpr float kLo = -103.972084f, kHi = 88.7228394f;
  const V zero = V{}, inf = V{} + std::numeric_limits<float>::infinity();
  V xc = x < kLo ? zero + kLo : x;
  xc = xc > kHi ? zero + kHi : xc;
  const V magic = zero + 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const V kn = xc * 1.44269504088896341f + magic;
  const V n = kn - magic;
  const VI ni = (VI)kn - 0x4B400000;
  const V r = xc - n * 0.693359375f - n * -2.12194440e-4f;
  V p = zero + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  // 2^n as two factors, so that n = 128 (near the top) and n < -126 (denormal results) work.
  const VI half = ni >> 1;
  const V s1 = (V)((half + 127) << 23), s2 = (V)((ni - half + 127) << 23);
  const V e = (p * r * r + r + 1.0f) * s1 * s2;
  return x < kLo ? zero : (x > kHi ? inf : e);
}

// The same on one value (through a 4-lane vector: identical results to the vector lanes).
inline float exp_f32(float x) {
  typedef float V4 __attribute__((vector_size(16)));
  const V4 v = exp_f32(V4{} + x);
  return v[0];
}

#pragma GCC diagnostic pop

}  // namespace oar::kernels
