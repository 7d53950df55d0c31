// Complex numbers from and to their real and imaginary parts (real, imag, complex).
#pragma once
#include "oar/core/tensor.h"

namespace oar::kernels {

// out (float32 / float64) = the real (or imaginary) part of complex x.
void complex_part(const Tensor& x, bool imag, const Tensor& out);
// out (complex64 / complex128) = re + i im, re and im of the matching float dtype, broadcast.
void make_complex(const Tensor& re, const Tensor& im, const Tensor& out);

}  // namespace oar::kernels
