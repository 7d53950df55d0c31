// Elementwise activations of nn.functional beyond activation.yaml (celu, selu, mish, softsign,
// softshrink, hardshrink, hardtanh, tanhshrink, thresholded_relu, log_sigmoid, swish, and the
// gradients of relu and gelu): one forward and one backward kernel, each op a formula on a lane vector so float32 runs 8 lanes at
// a time (exp through vec_exp.h); float64 and the half types run the same formulas per element.
#pragma once
#include <cstdint>

#include "oar/core/tensor.h"

namespace oar::kernels {

// The op, and the meaning of its two parameters (a, b).
enum class Act2 : int64_t {
  Celu = 0,             // a: alpha
  Selu = 1,             // a: scale, b: alpha
  Mish = 2,
  Softsign = 3,
  Softshrink = 4,       // a: threshold
  Hardshrink = 5,       // a: threshold
  Hardtanh = 6,         // a: min, b: max
  Tanhshrink = 7,
  ThresholdedRelu = 8,  // a: threshold, b: value
  LogSigmoid = 9,
  Swish = 10,
  // The gradients of activation.yaml's relu and gelu (their forwards have their own kernels):
  // relu's is taken at its output, which is positive exactly where its input is.
  Relu = 11,
  Gelu = 12,
  GeluTanh = 13,
};

const char* act2_name(Act2 op);
// out = op(x) (out contiguous, x's shape and dtype).
void act2(Act2 op, const Tensor& x, double a, double b, const Tensor& out);
// dx = grad * op'(x).
void act2_grad(Act2 op, const Tensor& x, const Tensor& grad, double a, double b, const Tensor& dx);
// dx = grad * op''(x) (the double backward).
void act2_grad2(Act2 op, const Tensor& x, const Tensor& grad, double a, double b, const Tensor& dx);

}  // namespace oar::kernels
