// Vectorised transcendental math over contiguous runs of float32/float64 (SLEEF's 1-ulp
// functions), used by the unary kernels in place of one libm call per element.
#pragma once
#include <cstdint>

#include "oar/kernels/cpu/elementwise.h"

namespace oar::kernels {

// out[i] = f(in[i]) for i < n; in and out may be the same pointer.
template <typename T>
using SpanFn = void (*)(const T* in, T* out, int64_t n);

// The vectorised kernel of `op`, or nullptr when it has none (or oar was built without AVX2).
SpanFn<float> vec_span_f32(UnaryOp op);
SpanFn<double> vec_span_f64(UnaryOp op);

}  // namespace oar::kernels
