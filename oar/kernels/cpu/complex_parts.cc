#include "oar/kernels/cpu/complex_parts.h"

#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/loops.h"

namespace oar::kernels {

void complex_part(const Tensor& x, bool imag, const Tensor& out) {
  if (x.dtype() == DType::Complex64) {
    unary_loop<float, complex64>(x, out, [imag](complex64 v) { return imag ? v.imag() : v.real(); });
  } else if (x.dtype() == DType::Complex128) {
    unary_loop<double, complex128>(x, out, [imag](complex128 v) { return imag ? v.imag() : v.real(); });
  } else {
    unsupported_dtype(imag ? "imag" : "real", x.dtype(), "complex64, complex128");
  }
}

void make_complex(const Tensor& re, const Tensor& im, const Tensor& out) {
  if (re.dtype() == DType::Float32) {
    binary_loop<complex64, float, float>(re, im, out, [](float a, float b) { return complex64(a, b); });
  } else if (re.dtype() == DType::Float64) {
    binary_loop<complex128, double, double>(re, im, out, [](double a, double b) { return complex128(a, b); });
  } else {
    unsupported_dtype("complex", re.dtype(), "float32, float64");
  }
}

}  // namespace oar::kernels
