// Interpolation (nn.functional.interpolate's nearest, linear, bilinear, trilinear and bicubic
// modes) over 1 to 3 channel-first spatial dims, float32 and float64.
//
// Each output position takes a weighted sum of input taps, separable by dim. Along a dim with
// input size `in`, output size `out` and scale (0: none given):
//   ratio = align_corners ? (out > 1 ? (in - 1) / (out - 1) : 0) : (scale > 0 ? 1 / scale : in / out)
//   nearest:  i = floor(o * ratio)
//   linear:   src = o * ratio (align_corners or align_mode 1), else max((o + 0.5) * ratio - 0.5, 0);
//             taps floor(src) and floor(src) + 1 (clamped), weights 1 - t and t
//   cubic:    src = o * ratio (align_corners), else (o + 0.5) * ratio - 0.5; four taps
//             floor(src) - 1 .. + 2 clamped to the input, the cubic convolution with A = -0.75
// As in Paddle, the ratio is a float32, and so are the nearest and linear source coordinates and
// weights (float64 results then agree with Paddle's to ~1e-7; see conformance_cases_vision.py).
#pragma once
#include <string>
#include <vector>

#include "oar/core/tensor.h"

namespace oar::kernels {

enum class InterpMode { Nearest, Linear, Cubic };
// "nearest" -> Nearest; "linear"/"bilinear"/"trilinear" -> Linear; "bicubic" -> Cubic.
InterpMode interp_mode(const std::string& mode, const char* op);

// x: [N, C, in...], out: [N, C, out...]; scales: one per spatial dim (0: none given).
void interp(const Tensor& x, const std::vector<double>& scales, InterpMode mode,
            bool align_corners, int64_t align_mode, const Tensor& out);
// The adjoint: dx (of x's shape) from out_grad.
void interp_grad(const Tensor& out_grad, const std::vector<double>& scales, InterpMode mode,
                 bool align_corners, int64_t align_mode, const Tensor& dx);

}  // namespace oar::kernels
