// oar's random numbers, element by element: the Philox4x32-10 block and the transforms that turn
// its words into uniform, normal, randint, bernoulli and dropout values. One definition shared by
// oar's host kernels (oar/kernels/cpu/creation.cc, nn_common.cc), the custom_cpu plug-in
// (plugins/custom_cpu/random.cc) and the CUDA plug-in (plugins/cuda/random.cu), so a draw gives
// the same bits on every backend for the same (seed, offset).
//
// Contract:
// - element i of a draw of n values reserved at generator offset `offset` uses the block
//   philox4x32(offset + i, 0, seed); dropout masks pack four draws per block (element i uses
//   word i % 4 of block offset + i / 4);
// - the float transforms are written so that every compiler gives the same double: each
//   product that feeds a sum is an explicit fused multiply-add (or exact), so neither GCC's
//   -ffp-contract=fast nor nvcc's --fmad changes a rounding, and the normal's log and cos are
//   evaluated here with +, *, fma and sqrt only (IEEE-exact operations), not by a libm whose
//   last bit differs between glibc and CUDA;
// - values reach the 16-bit floats through float (double -> float -> half, as oar's convert), with
//   the bit-exact conversions below (round to nearest even; NaN -> a quiet NaN as oar's half.h).
// Plain header: C++17, no oar dependency; __host__ __device__ under nvcc.
#pragma once

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define OAR_RNG_FN __host__ __device__ __forceinline__
#else
#include <cmath>
#define OAR_RNG_FN inline
#endif

namespace oar_rng {

struct Block {
  uint32_t w[4];
};

// Philox4x32-10: counter (c0, c1) = `counter`, (c2, c3) = `subsequence`, key = `key` (the seed).
OAR_RNG_FN Block philox4x32(uint64_t counter, uint64_t subsequence, uint64_t key) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = static_cast<uint32_t>(subsequence), c3 = static_cast<uint32_t>(subsequence >> 32);
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0;
    const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return Block{{c0, c1, c2, c3}};
}

// ---- exact building blocks ----

OAR_RNG_FN double fma(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

OAR_RNG_FN double sqrt(double x) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(x);
#else
  return std::sqrt(x);
#endif
}

OAR_RNG_FN uint64_t double_bits(double d) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(d));
#else
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
#endif
}

OAR_RNG_FN double bits_double(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double d;
  memcpy(&d, &u, 8);
  return d;
#endif
}

OAR_RNG_FN uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
#endif
}

// ---- uniform words ----

// [0, 1) with 53 random bits (exact: an integer below 2^53 times 2^-53).
OAR_RNG_FN double uniform_double(uint32_t hi, uint32_t lo) {
  return static_cast<double>((static_cast<uint64_t>(hi) << 21) ^ (lo >> 11)) * (1.0 / 9007199254740992.0);
}

// [0, 1) with 24 random bits.
OAR_RNG_FN float uniform_float(uint32_t x) { return static_cast<float>(x >> 8) * (1.0f / 16777216.0f); }

// ---- the normal's log and cos ----

// log(u) for u in [2^-53, 1] (any positive normal double, in fact): u = m * 2^e with m in
// [sqrt(1/2), sqrt(2)), log(m) = log(1 + f) = f - f^2/2 + s * (f^2/2 + R(s^2)), s = f / (2 + f),
// R the atanh series 2z/3 + 2z^2/5 + ... (|s| < 0.172: 11 terms leave < 1e-19). Within about
// one ulp of the true value.
OAR_RNG_FN double log_positive(double u) {
  const uint64_t b = double_bits(u);
  int e = static_cast<int>(b >> 52) - 1023;
  double m = bits_double((b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);  // [1, 2)
  if (m > 0x1.6a09e667f3bcdp+0) {  // sqrt(2)
    m *= 0.5;  // exact
    e += 1;
  }
  const double f = m - 1.0;  // exact
  const double s = f / (2.0 + f);
  const double z = s * s;
  double p = 0x1.642c8590b2164p-4;  // 2/23
  p = fma(p, z, 0x1.8618618618618p-4);  // 2/21
  p = fma(p, z, 0x1.af286bca1af28p-4);  // 2/19
  p = fma(p, z, 0x1.e1e1e1e1e1e1ep-4);  // 2/17
  p = fma(p, z, 0x1.1111111111111p-3);  // 2/15
  p = fma(p, z, 0x1.3b13b13b13b14p-3);  // 2/13
  p = fma(p, z, 0x1.745d1745d1746p-3);  // 2/11
  p = fma(p, z, 0x1.c71c71c71c71cp-3);  // 2/9
  p = fma(p, z, 0x1.2492492492492p-2);  // 2/7
  p = fma(p, z, 0x1.999999999999ap-2);  // 2/5
  p = fma(p, z, 0x1.5555555555555p-1);  // 2/3
  const double r = z * p;
  const double hf = 0.5 * f;  // exact; f^2/2 = hf * f
  const double dk = static_cast<double>(e);
  const double t = fma(s, fma(hf, f, r), dk * 0x1.a39ef35793c76p-33);  // s*(f^2/2 + R) + e*ln2_lo
  const double a = fma(hf, f, -t);                                      // f^2/2 - t
  return fma(dk, 0x1.62e42fee00000p-1, f - a);  // e*ln2_hi (exact) + (f - a)
}

// cos(2 pi t) for t in [0, 1]: t = r + q/4 with |r| <= 1/8 (exact), then +-cos or +-sin of
// 2 pi r from their Taylor series (|2 pi r| <= pi/4: the dropped terms are below 1e-20).
OAR_RNG_FN double cos_2pi(double t) {
  const int q = static_cast<int>(4.0 * t + 0.5);  // 4t is exact, so one rounding either way
  const double r = t - 0.25 * static_cast<double>(q);  // exact (Sterbenz)
  const double x = r * r;
  if (q & 1) {  // sin(2 pi r)
    double p = -0x1.8a404211f9547p-7;
    p = fma(p, x, 0x1.aaec32af93359p-4);
    p = fma(p, x, -0x1.6fadb9f155744p-1);
    p = fma(p, x, 0x1.e8f434d018d63p+1);
    p = fma(p, x, -0x1.e3074fde8871fp+3);
    p = fma(p, x, 0x1.50783487ee782p+5);
    p = fma(p, x, -0x1.32d2cce62bd86p+6);
    p = fma(p, x, 0x1.466bc6775aae2p+6);
    p = fma(p, x, -0x1.4abbce625be53p+5);
    p = fma(p, x, 0x1.921fb54442d18p+2);  // 2 pi
    const double sn = r * p;
    return q == 1 ? -sn : sn;  // cos(2 pi r + pi/2) = -sin, cos(2 pi r + 3pi/2) = sin
  }
  double p = 0x1.ef6e308d6d1c4p-9;
  p = fma(p, x, -0x1.2a0c591af8314p-5);
  p = fma(p, x, 0x1.20c62c2f2d7f5p-2);
  p = fma(p, x, -0x1.b6e24f44b128fp+0);
  p = fma(p, x, 0x1.f9d38a3763cc3p+2);
  p = fma(p, x, -0x1.a6d1f2a204a8cp+4);
  p = fma(p, x, 0x1.e1f506891babbp+5);
  p = fma(p, x, -0x1.55d3c7e3cbffap+6);
  p = fma(p, x, 0x1.03c1f081b5ac4p+6);
  p = fma(p, x, -0x1.3bd3cc9be45dep+4);
  p = fma(p, x, 1.0);
  return q == 2 ? -p : p;
}

// ---- one element of each draw ----

// uniform: low + (high - low) * u, one rounding (a fused multiply-add).
OAR_RNG_FN double uniform_value(double low, double high, const Block& r) {
  return fma(high - low, uniform_double(r.w[0], r.w[1]), low);
}

// normal: Box-Muller, mean + std * sqrt(-2 log u1) cos(2 pi u2) with u1 in (0, 1].
OAR_RNG_FN double normal_value(double mean, double std, const Block& r) {
  const double u1 = 1.0 - uniform_double(r.w[0], r.w[1]);  // exact
  const double u2 = uniform_double(r.w[2], r.w[3]);
  const double z = sqrt(-2.0 * log_positive(u1)) * cos_2pi(u2);
  return fma(std, z, mean);
}

// randint: low + v mod (high - low) over 64 random bits, in unsigned arithmetic (the range of
// [INT64_MIN, INT64_MAX) does not fit int64); `range` = high - low (as uint64), not 0.
OAR_RNG_FN int64_t randint_value(int64_t low, uint64_t range, const Block& r) {
  const uint64_t v = (static_cast<uint64_t>(r.w[0]) << 32) | r.w[1];
  return static_cast<int64_t>(static_cast<uint64_t>(low) + v % range);
}

// bernoulli: 1 when a uniform double falls below p (p in the compute type of the dtype: float
// for the 16-bit floats, then widened).
OAR_RNG_FN bool bernoulli_value(double p, const Block& r) { return uniform_double(r.w[0], r.w[1]) < p; }

// dropout: word w of a block drops its element when w / 2^32 < p.
OAR_RNG_FN bool dropout_drops(uint32_t w, double p) {
  return static_cast<double>(w) * (1.0 / 4294967296.0) < p;
}

// ---- float to 16-bit floats, bit-exact with oar/core/half.h ----

// IEEE half: round to nearest even, overflow to inf, NaN to a quiet NaN.
OAR_RNG_FN uint16_t float_to_half_bits(float f) {
  const uint32_t x = float_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u));
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (a < 0x38800000u) {  // a half subnormal (or zero): units of 2^-24, rounded to nearest even
    if (a <= 0x33000000u) return static_cast<uint16_t>(sign);  // <= 2^-25 rounds to 0
    const uint32_t mant = (a & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - (a >> 23);  // 14 .. 24
    uint32_t q = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return static_cast<uint16_t>(sign | q);
  }
  a += 0xc8000fffu + ((a >> 13) & 1u);  // rebias the exponent, round to nearest even
  return static_cast<uint16_t>(sign | (a >> 13));
}

// bfloat16: the top half of the float, rounded to nearest even; NaN -> 0x7fc0.
OAR_RNG_FN uint16_t float_to_bf16_bits(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

}  // namespace oar_rng

#undef OAR_RNG_FN
