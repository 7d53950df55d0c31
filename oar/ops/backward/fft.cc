#include "oar/ops/backward/fft.h"

#include <vector>

#include "oar/ops/generated/api/creation.h"
#include "oar/ops/generated/api/elementwise.h"
#include "oar/ops/generated/api/fft.h"
#include "oar/ops/generated/api/shape.h"
#include "oar/ops/generated/api/special.h"

namespace oar {

std::string fft_adjoint_norm(const std::string& normalization) {
  if (normalization == "backward") return "forward";
  if (normalization == "forward") return "backward";
  return normalization;
}

namespace {
// x cut or zero-extended to `size` entries along `axis`.
Tensor resize_axis(const Tensor& x, int64_t axis, int64_t size) {
  const int64_t have = x.shape()[static_cast<size_t>(axis)];
  if (have == size) return x;
  if (have > size) return slice(x, {axis}, {0}, {size});
  // zeros_like of a slice: zeros of x's dtype on x's place (have >= size - have here).
  const Tensor zeros = zeros_like(slice(x, {axis}, {0}, {size - have}));
  return concat({x, zeros}, axis);
}
}  // namespace

Tensor fft_r2c_grad_x(const Tensor& x, const Tensor& grad, const IntArray& axes, const std::string& normalization,
                      bool forward, bool onesided) {
  const int64_t last = axes.back();
  const Tensor full = onesided ? resize_axis(grad, last, x.shape()[static_cast<size_t>(last)]) : grad;
  return real(fft_c2c(full, axes, fft_adjoint_norm(normalization), !forward));
}

Tensor fft_c2r_grad_x(const Tensor& x, const Tensor& grad, const IntArray& axes, const std::string& normalization,
                      bool forward) {
  const auto last = static_cast<size_t>(axes.back());
  const int64_t n = grad.shape()[last];
  Tensor half = fft_r2c(grad, axes, fft_adjoint_norm(normalization), !forward, true);
  const int64_t m = half.shape()[last];
  std::vector<double> twice(static_cast<size_t>(m), 1.0);
  for (int64_t k = 1; 2 * k < n; ++k) twice[static_cast<size_t>(k)] = 2.0;
  Shape weight_shape(static_cast<size_t>(grad.ndim()), 1);
  weight_shape[last] = m;
  const Tensor weights = Tensor::from_vector(twice, weight_shape)
                             .to(half.place())
                             .cast(half.dtype() == DType::Complex128 ? DType::Float64 : DType::Float32);
  return resize_axis(multiply(half, weights), static_cast<int64_t>(last), x.shape()[last]);
}

}  // namespace oar
