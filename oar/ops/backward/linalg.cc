#include "oar/ops/backward/linalg.h"

#include "oar/ops/generated/api/creation.h"
#include "oar/ops/generated/api/elementwise.h"
#include "oar/ops/generated/api/linalg.h"
#include "oar/ops/generated/api/shape.h"
#include "oar/ops/op_helpers.h"

namespace oar {

Tensor matmul_grad_x(const Tensor& x, const Tensor& y, bool transpose_x, bool transpose_y,
                     const Tensor& grad) {
  const bool x1 = x.ndim() == 1, y1 = y.ndim() == 1;
  const bool tx = transpose_x && !x1, ty = transpose_y && !y1;
  // For complex operands the gradient uses the conjugate (as Paddle and PyTorch).
  const Tensor yc = is_complex(y.dtype()) ? conj(y) : y;
  const Tensor ym = y1 ? unsqueeze(yc, {1}) : yc;
  Tensor g = grad;
  if (x1 && y1)
    g = reshape_exact(grad, {1, 1});
  else if (x1)
    g = unsqueeze(grad, {grad.ndim() - 1});
  else if (y1)
    g = unsqueeze(grad, {grad.ndim()});
  const Tensor dx = tx ? matmul(ym, g, ty, true) : matmul(g, ym, false, !ty);
  if (x1) return reshape_exact(reduce_to_shape(dx, {1, x.shape()[0]}), x.shape());
  return reduce_to_shape(dx, x.shape());
}

Tensor matmul_grad_y(const Tensor& x, const Tensor& y, bool transpose_x, bool transpose_y,
                     const Tensor& grad) {
  const bool x1 = x.ndim() == 1, y1 = y.ndim() == 1;
  const bool tx = transpose_x && !x1, ty = transpose_y && !y1;
  // A 2-D y shared by a batch of x (a Linear layer): fold the batch into the rows, one
  // GEMM and no reduction.
  const Tensor xc = is_complex(x.dtype()) ? conj(x) : x;
  if (y.ndim() == 2 && x.ndim() > 2 && !tx && x.numel() > 0 && grad.numel() > 0) {
    const int64_t k = x.shape().back(), n = grad.shape().back();
    const Tensor xf = reshape_exact(xc, {x.numel() / k, k});
    const Tensor gf = reshape_exact(grad, {grad.numel() / n, n});
    return ty ? matmul(gf, xf, true, false) : matmul(xf, gf, true, false);
  }
  const Tensor xm = x1 ? unsqueeze(xc, {0}) : xc;
  Tensor g = grad;
  if (x1 && y1)
    g = reshape_exact(grad, {1, 1});
  else if (x1)
    g = unsqueeze(grad, {grad.ndim() - 1});
  else if (y1)
    g = unsqueeze(grad, {grad.ndim()});
  const Tensor dy = ty ? matmul(g, xm, true, tx) : matmul(xm, g, !tx, false);
  if (y1) return reshape_exact(reduce_to_shape(dy, {y.shape()[0], 1}), y.shape());
  return reduce_to_shape(dy, y.shape());
}

Tensor matrix_exp_grad_x(const Tensor& x, const Tensor& grad) {
  const int64_t n = x.shape().back(), d = x.ndim();
  const Tensor xh = is_complex(x.dtype()) ? conj(mT(x)) : mT(x);
  const Tensor top = concat({xh, grad}, d - 1);
  const Tensor bottom = concat({zeros_like(xh), xh}, d - 1);
  return slice(matrix_exp(concat({top, bottom}, d - 2)), {d - 2, d - 1}, {0, n}, {n, 2 * n});
}

}  // namespace oar
