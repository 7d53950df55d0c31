// Shape/dtype rules and argument checks of the Fourier transform ops (oar/ops/specs/fft.yaml).
#pragma once
#include <string>

#include "oar/core/int_array.h"
#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// fft_c2c: x complex; axes distinct, in [0, ndim), non-empty, each of a non-zero size; out like x.
Meta fft_c2c(const char* op, const Tensor& x, const IntArray& axes, const std::string& normalization,
             bool forward);
// fft_r2c: x float32/float64; out complex, with n/2 + 1 entries on axes' last axis when onesided.
Meta fft_r2c(const char* op, const Tensor& x, const IntArray& axes, const std::string& normalization,
             bool forward, bool onesided);
// fft_c2r: x complex; out real, with last_dim_size entries on axes' last axis (0: 2 (m - 1) for
// the input's m).
Meta fft_c2r(const char* op, const Tensor& x, const IntArray& axes, const std::string& normalization,
             bool forward, int64_t last_dim_size);

}  // namespace oar::infer_meta
