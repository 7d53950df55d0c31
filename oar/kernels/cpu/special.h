// Special functions and the remaining elementwise math: gamma-family functions (lgamma, digamma,
// polygamma, regularised incomplete gamma), erfinv, modified Bessel functions I0/I1 (and their
// exponentially scaled forms), inverse hyperbolics, float bit helpers (nextafter, copysign,
// frexp), integer gcd/lcm/shifts, and scans along an axis (cummax/cummin, logcumsumexp).
// Inputs arrive already promoted (and cast to a float dtype where the op needs one).
#pragma once
#include <cstdint>

#include "oar/core/tensor.h"

namespace oar::kernels {

enum class SpecialUnary { Lgamma, Digamma, Erfinv, I0, I0e, I1, I1e, Acosh, Asinh, Atanh };
void special_unary(SpecialUnary op, const Tensor& x, const Tensor& out);
// out = polygamma(n, x), n >= 0 (n = 0 is digamma).
void polygamma(const Tensor& x, int64_t n, const Tensor& out);

enum class SpecialBinary { GammaInc, GammaIncc, NextAfter, CopySign, Heaviside };
// Inputs of out's dtype, broadcast to out's shape: floats (heaviside: any real dtype).
void special_binary(SpecialBinary op, const Tensor& x, const Tensor& y, const Tensor& out);

// |x| with the sign of y (-0.0 negative), any real dtype (x, y and out share it).
void copysign(const Tensor& x, const Tensor& y, const Tensor& out);

enum class IntBinary { Gcd, Lcm, ShiftLeft, ShiftRightArith, ShiftRightLogical };
// Integer inputs of out's dtype, broadcast to out's shape.
void int_binary(IntBinary op, const Tensor& x, const Tensor& y, const Tensor& out);

// x = mantissa * 2^exponent, |mantissa| in [0.5, 1) (0, inf and nan come back as mantissa with
// exponent 0). Both outputs have x's (float) dtype.
void frexp(const Tensor& x, const Tensor& mantissa, const Tensor& exponent);

// Running max (or min) along `axis` and the index where it was reached (the last index among
// equal values; a NaN, once met, stays the running value with its index). indices: int32/int64.
void cum_extreme(const Tensor& x, int64_t axis, bool is_max, const Tensor& values,
                 const Tensor& indices);
// out[i] = log(sum_{j<=i} exp(x[j])) along `axis` (from the end when `reverse`), computed as a
// running log-add-exp so that it neither overflows nor underflows.
void logcumsumexp(const Tensor& x, int64_t axis, bool reverse, const Tensor& out);

}  // namespace oar::kernels
