#include "oar/ops/infer_meta/linalg.h"

#include <algorithm>

namespace oar::infer_meta {

Meta matmul(const char* op, const Tensor& x, const Tensor& y, bool transpose_x,
            bool transpose_y) {
  OAR_ENFORCE(x.dtype() == y.dtype(), TypeMismatch, op, ": the dtype of Input(X) (",
              dtype_name(x.dtype()), ") and Input(Y) (", dtype_name(y.dtype()),
              ") must be the same");
  OAR_ENFORCE(x.dtype() != DType::Bool, TypeMismatch, op,
              ": unsupported dtype bool for argument 'x'; supported: float16, bfloat16, float32, "
              "float64, int8, uint8, int16, int32, int64, complex64, complex128");
  const Shape& xs = x.shape();
  const Shape& ys = y.shape();
  const int64_t xn = static_cast<int64_t>(xs.size()), yn = static_cast<int64_t>(ys.size());
  OAR_ENFORCE_ARG(xn > 0, op, ": The Input(X) dims size must be greater than 0, but received "
                  "dims size is 0 (X's shape = [])");
  OAR_ENFORCE_ARG(yn > 0, op, ": The Input(Y) dims size must be greater than 0, but received "
                  "dims size is 0 (Y's shape = [])");
  // The contracted dim of each operand (a 1-D operand ignores its transpose flag).
  const int64_t kx = xn == 1 ? 0 : (transpose_x ? xn - 2 : xn - 1);
  const int64_t ky = yn == 1 ? 0 : (transpose_y ? yn - 1 : yn - 2);
  OAR_ENFORCE_ARG(xs[kx] == ys[ky], op, ": the [", kx, "] dimension of Input(X) must be equal to "
                  "the [", ky, "] dimension of Input(Y). But received X's shape = ",
                  shape_str(xs), ", Y's shape = ", shape_str(ys), " (K_lhs ", xs[kx],
                  " != K_rhs ", ys[ky], ")");
  const int64_t xb = std::max<int64_t>(xn - 2, 0), yb = std::max<int64_t>(yn - 2, 0);
  const int64_t nb = std::max(xb, yb);
  Shape out;
  out.reserve(nb + 2);
  for (int64_t d = 0; d < nb; ++d) {
    const int64_t dx = d - (nb - xb), dy = d - (nb - yb);
    const int64_t a = dx >= 0 ? xs[dx] : 1, b = dy >= 0 ? ys[dy] : 1;
    OAR_ENFORCE_ARG(a == b || a == 1 || b == 1, op, ": the batch dimensions of Input(X) and "
                    "Input(Y) cannot be broadcast together: X's shape = ", shape_str(xs),
                    ", Y's shape = ", shape_str(ys), " (batch dim ", d, ": ", a, " vs ", b, ")");
    out.push_back(a == 1 ? b : a);
  }
  if (xn > 1) out.push_back(transpose_x ? xs[xn - 1] : xs[xn - 2]);
  if (yn > 1) out.push_back(transpose_y ? ys[yn - 2] : ys[yn - 1]);
  return {std::move(out), x.dtype()};
}

Meta matrix_exp(const char* op, const Tensor& x) {
  OAR_ENFORCE(is_floating(x.dtype()) || is_complex(x.dtype()), TypeMismatch, op,
              ": argument 'x' must be a floating or complex tensor, but received dtype ",
              dtype_name(x.dtype()), ".");
  const int64_t d = x.ndim();
  OAR_ENFORCE_ARG(d >= 2 && x.shape()[d - 1] == x.shape()[d - 2], op,
                  ": argument 'x' must be a batch of square matrices [..., n, n], got shape ",
                  shape_str(x.shape()));
  return {x.shape(), x.dtype()};
}

}  // namespace oar::infer_meta
