// Shape/dtype rules and argument checks for special functions, integer elementwise ops
// (gcd, lcm, shifts), frexp and the scans cummax/cummin/logcumsumexp.
#pragma once
#include <vector>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// Broadcast of two floating-point tensors (TypeError naming the op for other dtypes).
Meta float_broadcast(const char* op, const Tensor& x, const Tensor& y);
// Broadcast of two integer tensors (bool excluded); attributes do not change the meta.
Meta int_broadcast(const char* op, const Tensor& x, const Tensor& y);
template <typename... Attrs>
Meta int_broadcast_attrs(const char* op, const Tensor& x, const Tensor& y, const Attrs&...) {
  return int_broadcast(op, x, y);
}
// polygamma: x floating, n >= 0.
Meta polygamma(const char* op, const Tensor& x, int64_t n);
// frexp: {mantissa, exponent}, both x's shape and (floating) dtype.
std::vector<Meta> frexp(const char* op, const Tensor& x);
// cummax/cummin along axis: {values like x, indices of x's shape in dtype (int32 or int64)}.
std::vector<Meta> cum_extreme(const char* op, const Tensor& x, int64_t axis, bool is_max,
                              DType dtype);
// logcumsumexp along axis: x floating, axis in range.
Meta logcumsumexp(const char* op, const Tensor& x, int64_t axis, bool reverse);

}  // namespace oar::infer_meta

namespace oar::infer_meta {

// real / imag: complex x -> its float dtype (TypeError for real dtypes).
Meta complex_part(const char* op, const Tensor& x);
// complex(real, imag): float32/float64 of one dtype, broadcast -> complex64/complex128.
Meta make_complex(const char* op, const Tensor& re, const Tensor& im);

}  // namespace oar::infer_meta
