#include "oar/ops/backward/reduce.h"

#include <cmath>

#include "oar/ops/generated/api/creation.h"
#include "oar/ops/generated/api/elementwise.h"
#include "oar/ops/generated/api/reduce.h"
#include "oar/ops/generated/api/shape.h"
#include "oar/ops/infer_meta/reduce.h"
#include "oar/ops/op_helpers.h"

namespace oar {

Tensor reduce_keepdim(const Tensor& t, const Tensor& x, const IntArray& axis, bool keepdim) {
  if (keepdim || x.ndim() == 0) return t;
  const Shape ks =
      infer_meta::reduced_shape(x.shape(), infer_meta::reduce_axes("reduce", axis, x.ndim()), true);
  if (t.shape() == ks) return t;
  return reshape_exact(t, IntArray(ks));
}

Tensor reduce_grad_expand(const Tensor& grad, const Tensor& x, const IntArray& axis, bool keepdim) {
  Tensor g = reduce_keepdim(grad, x, axis, keepdim);
  if (g.dtype() != x.dtype() && is_differentiable(x.dtype())) g = cast(g, x.dtype());
  if (g.shape() != x.shape()) g = expand(g, IntArray(x.shape()));
  return g;
}

namespace {
// r (computed in some dtype) brought back to x's dtype and shape.
Tensor to_like(const Tensor& r, const Tensor& x) {
  Tensor g = r.dtype() != x.dtype() && is_differentiable(x.dtype()) ? cast(r, x.dtype()) : r;
  if (g.shape() != x.shape()) g = expand(g, IntArray(x.shape()));
  return g;
}
}  // namespace

Tensor prod_grad(const Tensor& x, const Tensor& out, const Tensor& grad, const IntArray& axis, bool keepdim) {
  const Tensor xc = x.dtype() == out.dtype() ? x : cast(x, out.dtype());
  const Tensor g = reduce_keepdim(grad, x, axis, keepdim);
  const Tensor o = reduce_keepdim(out, x, axis, keepdim);
  const Tensor zero = zeros_like(xc);
  const Tensor is_zero = equal(xc, zero);
  if (!any(is_zero).item<bool>()) return to_like(g * o / xc, x);
  // With zeros, d out / d x_i = prod_{k != i} x_k is built so that its own derivative is right
  // too: p = product of the nonzero values, zp = product of the zeros (numerically 0, but it
  // carries their gradient). A nonzero x_i gets p / x_i * zp. A zero gets p times the product of
  // the other zeros: 1 when it is the only one, the other zero's value when there are two
  // (written as zsum - x_i), 0 when there are more.
  const Tensor one = ones_like(xc);
  const Tensor safe = where(is_zero, one, xc);
  const Tensor p = prod(safe, axis, true);
  const Tensor zp = prod(where(is_zero, xc, one), axis, true);
  const Tensor zsum = sum(where(is_zero, xc, zero), axis, std::nullopt, true);
  const Tensor nzeros = sum(cast(is_zero, xc.dtype()), axis, std::nullopt, true);
  const Tensor others = where(equal(nzeros, ones_like(nzeros)), one,
                              where(equal(nzeros, full_like(nzeros, 2)), zsum - xc, zero));
  const Tensor d = where(is_zero, p * others, p / safe * zp);
  return to_like(d * g, x);
}

Tensor minmax_grad(const Tensor& x, const Tensor& out, const Tensor& grad, const IntArray& axis, bool keepdim,
                   bool split_ties) {
  const Tensor g = reduce_keepdim(grad, x, axis, keepdim);
  const Tensor o = reduce_keepdim(out, x, axis, keepdim);
  const Tensor hit = equal(x, o);
  if (!split_ties) return to_like(where(hit, g, zeros_like(x)), x);
  const Tensor m = cast(hit, x.dtype());
  const Tensor count = sum(m, axis, std::nullopt, true);
  return to_like(g * m / count, x);
}

Tensor p_norm_grad(const Tensor& x, const Tensor& out, const Tensor& grad, double porder,
                   const IntArray& axis, bool keepdim) {
  if (porder == 0) return zeros_like(x);
  const Tensor g = reduce_keepdim(grad, x, axis, keepdim);
  const Tensor o = reduce_keepdim(out, x, axis, keepdim);
  if (std::isinf(porder)) {
    const Tensor hit = equal(abs(x), o);
    return to_like(where(hit, g * sign(x), zeros_like(x)), x);
  }
  if (porder == 1) return to_like(g * sign(x), x);
  const Tensor safe = where(equal(o, zeros_like(o)), ones_like(o), o);
  if (porder == 2) return to_like(g * x / safe, x);
  Tensor r = g * sign(x) * pow(abs(x), Scalar(porder - 1.0)) / pow(safe, Scalar(porder - 1.0));
  if (porder < 1) r = where(equal(x, zeros_like(x)), zeros_like(x), r);
  return to_like(r, x);
}

Tensor cumprod_grad(const Tensor& x, const Tensor& out, const Tensor& grad, int64_t axis, bool reverse) {
  const Tensor zero = zeros_like(x);
  const Tensor is_zero = equal(x, zero);
  // d out_j / d x_i = out_j / x_i for the j at or after i (in scan order).
  if (!any(is_zero).item<bool>()) return cumsum_scan(grad * out, axis, !reverse) / x;
  // With zeros: before the first zero z of a slice the formula above still holds; at z the
  // gradient is the reverse scan of grad * (the products with x_z replaced by 1).
  const Tensor zeros_so_far = cumsum_scan(cast(is_zero, x.dtype()), axis, reverse);
  const Tensor before = equal(zeros_so_far, zeros_like(zeros_so_far));
  const Tensor first_zero = logical_and(is_zero, equal(zeros_so_far, ones_like(zeros_so_far)));
  const Tensor safe = where(before, x, ones_like(x));
  const Tensor a = cumsum_scan(grad * out, axis, !reverse) / safe;
  const Tensor out1 = cumprod_scan(where(first_zero, ones_like(x), x), axis, reverse);
  const Tensor b = cumsum_scan(grad * out1, axis, !reverse);
  // After z the gradient is 0, written so that its derivatives stay right: a nonzero x_i gets
  // x_z * (its gradient with x_z taken as 1); the second zero z2 gets x_z * (the reverse scan of
  // grad * the products with x_z and x_z2 taken as 1); later zeros get 0.
  const IntArray ax{axis};
  const Tensor xz = sum(where(first_zero, x, zero), ax, std::nullopt, true);
  const Tensor c = b / where(is_zero, ones_like(x), x) * xz;
  const Tensor second_zero = logical_and(is_zero, equal(zeros_so_far, full_like(zeros_so_far, 2)));
  const Tensor out2 =
      cumprod_scan(where(logical_or(first_zero, second_zero), ones_like(x), x), axis, reverse);
  const Tensor c2 = cumsum_scan(grad * out2, axis, !reverse) * xz;
  return where(before, a, where(first_zero, b, where(second_zero, c2, where(is_zero, zero, c))));
}

}  // namespace oar
