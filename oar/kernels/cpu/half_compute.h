// float16/bfloat16 kernels that compute in float32: widen the half inputs, run the float32
// kernel into a float32 result, narrow that into the half output. Used where a kernel's
// arithmetic (sums of windows, interpolation weights) would lose too much in half precision.
#pragma once
#include "oar/core/tensor.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/shape.h"

namespace oar::kernels {

inline bool is_half_dtype(DType d) { return d == DType::Float16 || d == DType::BFloat16; }

// A float32 copy of a half tensor.
inline Tensor to_float32(const Tensor& t) { return as_contiguous(t, DType::Float32); }

// A float32 tensor shaped as out, to compute into before narrowing with copy(tmp, out).
inline Tensor float32_like(const Tensor& out) { return Tensor::make(out.shape(), DType::Float32); }

}  // namespace oar::kernels
