// Composite ops of the special family (oar/ops/specs/special.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include <sstream>
#include <limits>

#include "oar/ops/composite/composite.h"

#include "oar/ops/infer_meta/special.h"

namespace OAR_COMPOSITE_NAMESPACE {

Tensor gammaln(const Tensor& x) { return lgamma(x); }

Tensor multigammaln(const Tensor& x, int64_t p) {
  OAR_ENFORCE_ARG(p >= 1, "multigammaln: argument 'p' must be a positive integer, got ", p);
  const Tensor xi = is_integral(x.dtype(), true) ? cast(x, default_float_dtype()) : x;
  const double bound = (static_cast<double>(p) - 1.0) / 2.0;
  std::ostringstream msg;  // checked when the op runs (a static program reads no data while built)
  msg << "multigammaln: all elements of argument 'x' must be greater than (p - 1) / 2 = " << bound;
  const Tensor xf = check_values(xi, greater_than(xi, scalar_tensor(bound, xi.dtype())), msg.str());
  Tensor r = lgamma(xf);
  if (p <= 64) {
    for (int64_t i = 1; i < p; ++i) r = r + lgamma(xf - 0.5 * static_cast<double>(i));
  } else {  // one op over a [..., p - 1] tensor instead of p op calls (sized, so it can fail cleanly)
    const Tensor halves = arange(Scalar(int64_t{1}), Scalar(p), Scalar(int64_t{1}), xf.dtype()) * 0.5;
    r = r + sum(lgamma(unsqueeze(xf, {-1}) - halves), {-1});
  }
  return r + 0.25 * static_cast<double>(p) * static_cast<double>(p - 1) * 1.1447298858494002;
}

Tensor stanh(const Tensor& x, double scale_a, double scale_b) { return tanh(x * scale_a) * scale_b; }

Tensor ldexp(const Tensor& x, const Tensor& y) {
  OAR_ENFORCE(is_integral(y.dtype(), false), TypeMismatch, "ldexp: argument 'y' must be an ",
              "integer tensor, got ", dtype_name(y.dtype()));
  const Tensor xf = x.dtype() == DType::Float64 ? x : cast(x, default_float_dtype());
  return xf * elementwise_pow(scalar_tensor(2.0, xf.dtype()), cast(y, xf.dtype()));
}

Tensor isposinf(const Tensor& x) {
  if (!is_floating(x.dtype())) return zeros(x.shape(), DType::Bool);
  return equal(x, scalar_tensor(std::numeric_limits<double>::infinity(), x.dtype()));
}

Tensor isneginf(const Tensor& x) {
  if (!is_floating(x.dtype())) return zeros(x.shape(), DType::Bool);
  return equal(x, scalar_tensor(-std::numeric_limits<double>::infinity(), x.dtype()));
}

Tensor isreal(const Tensor& x) {
  if (!is_complex(x.dtype())) return ones(x.shape(), DType::Bool);
  return equal(x, conj(x));
}

Tensor nan_to_num(const Tensor& x, double nan, const std::optional<Scalar>& posinf,
                  const std::optional<Scalar>& neginf) {
  if (!is_floating(x.dtype())) return assign(x);
  const DType dt = x.dtype();
  const double big = dt == DType::Float64   ? std::numeric_limits<double>::max()
                     : dt == DType::Float32 ? double(std::numeric_limits<float>::max())
                     : dt == DType::Float16 ? 65504.0
                                            : 3.3895313892515355e38;
  const double pv = posinf ? posinf->to<double>() : big;
  const double nv = neginf ? neginf->to<double>() : -big;
  const double inf = std::numeric_limits<double>::infinity();
  Tensor r = where(isnan(x), scalar_tensor(nan, dt), x);
  r = where(equal(x, scalar_tensor(inf, dt)), scalar_tensor(pv, dt), r);
  return where(equal(x, scalar_tensor(-inf, dt)), scalar_tensor(nv, dt), r);
}

Tensor bitwise_invert(const Tensor& x) {
  OAR_ENFORCE(is_integral(x.dtype(), true), TypeMismatch, "bitwise_invert: argument 'x' must be ",
              "a bool or integer tensor, got ", dtype_name(x.dtype()));
  return bitwise_not(x);
}

std::tuple<Tensor, Tensor> cummax(const Tensor& x, std::optional<int64_t> axis, DType dtype) {
  if (!axis) return cum_extreme_scan(reshape_exact(x, IntArray{x.numel()}), 0, true, dtype);
  return cum_extreme_scan(x, *axis, true, dtype);
}

std::tuple<Tensor, Tensor> cummin(const Tensor& x, std::optional<int64_t> axis, DType dtype) {
  if (!axis) return cum_extreme_scan(reshape_exact(x, IntArray{x.numel()}), 0, false, dtype);
  return cum_extreme_scan(x, *axis, false, dtype);
}

Tensor logcumsumexp(const Tensor& x, std::optional<int64_t> axis, std::optional<DType> dtype) {
  // As Paddle, integer inputs are computed in the default float dtype.
  const DType dt = dtype ? *dtype : (is_integral(x.dtype(), true) ? default_float_dtype() : x.dtype());
  const Tensor xx = dt != x.dtype() ? cast(x, dt) : x;
  if (!axis) return logcumsumexp_scan(reshape_exact(xx, IntArray{xx.numel()}), 0, false);
  return logcumsumexp_scan(xx, *axis, false);
}

Tensor angle(const Tensor& x) {
  if (is_complex(x.dtype())) return atan2(imag(x), real(x));
  OAR_ENFORCE(is_floating(x.dtype()), TypeMismatch, "angle: argument 'x' must be a floating-point ",
              "or complex tensor, got ", dtype_name(x.dtype()));
  const Tensor zero = zeros_like(x);
  const Tensor r = where(less_than(x, zero), full_like(x, 3.14159265358979323846), zero);
  // + 0 * x (finite x) so that x gets a (zero) gradient, as in Paddle, and -inf stays pi.
  return where(isnan(x), x, r) + where(isfinite(x), x, zero) * 0.0;
}

Tensor polar(const Tensor& abs, const Tensor& angle) { return complex(abs * cos(angle), abs * sin(angle)); }

Tensor as_real(const Tensor& x) {
  infer_meta::complex_part("as_real", x);
  return stack({real(x), imag(x)}, -1);
}

Tensor as_complex(const Tensor& x) {
  OAR_ENFORCE_ARG(x.ndim() >= 1 && x.shape().back() == 2, "as_complex: the last dimension of ",
                  "argument 'x' must have size 2, got shape ", shape_str(x.shape()));
  const int64_t a = x.ndim() - 1;
  return complex(squeeze(slice(x, {a}, {0}, {1}), {a}), squeeze(slice(x, {a}, {1}, {2}), {a}));
}

}  // namespace OAR_COMPOSITE_NAMESPACE
