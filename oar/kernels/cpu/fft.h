// Discrete Fourier transforms over any set of axes (paddle.fft's three primitives), on FFTW.
//
// Contract shared by the three kernels:
// - `axes` are distinct, non-negative and already checked; the transform runs over all of them
//   at once (one n-dimensional DFT per position of the other axes).
// - `forward` picks the sign of the exponent: exp(-2 pi i jk/n) when true, exp(+...) when false.
// - `norm` is "backward" (no scale on the forward direction, 1/n on the inverse), "forward" (the
//   opposite) or "ortho" (1/sqrt(n) both ways); n is the product of the transform's signal sizes.
// - x may be any strided view; out is a fresh contiguous tensor of the shape infer_meta gave.
// - float32/complex64 run in single precision, float64/complex128 in double.
#pragma once
#include <string>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar::kernels {

// The scale a transform of n points applies in direction `forward` under `norm`.
double fft_scale(const std::string& norm, bool forward, int64_t n);

// Complex to complex: out (x's shape and dtype).
void fft_c2c(const Tensor& x, const IntArray& axes, const std::string& norm, bool forward, const Tensor& out);
// Real to complex. onesided: out keeps n/2 + 1 entries of the last axis in `axes` (the rest follow
// by Hermitian symmetry); otherwise the whole spectrum, filled in from that half.
void fft_r2c(const Tensor& x, const IntArray& axes, const std::string& norm, bool forward, bool onesided,
             const Tensor& out);
// Complex (a half spectrum) to real: the last axis in `axes` holds n/2 + 1 entries of a spectrum
// of n = out.shape[axes.back()] points (missing entries count as zero, extra ones are ignored);
// the imaginary parts that Hermitian symmetry makes zero are ignored.
void fft_c2r(const Tensor& x, const IntArray& axes, const std::string& norm, bool forward, const Tensor& out);

}  // namespace oar::kernels
