// Backward formulas of the Fourier transform ops (oar/ops/specs/fft.yaml). Written with other
// ops, so they differentiate again (create_graph=True).
//
// With Paddle's convention for complex gradients (for a real loss L, dL/dz = dL/dRe z + i dL/dIm z),
// the gradient of a linear map is its adjoint applied to the output's gradient. The adjoint of a
// DFT scaled by s is the DFT of the opposite sign scaled by s, and swapping "forward" and
// "backward" normalisation (ortho stays) keeps s when the direction flips.
#pragma once
#include <string>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

namespace oar {

// The normalisation that gives the opposite direction the same scale.
std::string fft_adjoint_norm(const std::string& normalization);

// d fft_r2c / d x: the half spectrum's gradient zero-extended to the full one, transformed back,
// real part.
Tensor fft_r2c_grad_x(const Tensor& x, const Tensor& grad, const IntArray& axes, const std::string& normalization,
                      bool forward, bool onesided);
// d fft_c2r / d x: the real gradient's half spectrum; entries whose mirror image the output also
// used (0 < k < n/2) count twice. Cut or zero-extended to x's length on the last axis.
Tensor fft_c2r_grad_x(const Tensor& x, const Tensor& grad, const IntArray& axes, const std::string& normalization,
                      bool forward);

}  // namespace oar
