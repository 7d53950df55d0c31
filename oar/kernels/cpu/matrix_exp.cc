#include "oar/kernels/cpu/matrix_exp.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <utility>

#include "oar/core/error.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/matmul.h"
#include "oar/kernels/cpu/shape.h"

namespace oar::kernels {

namespace {

template <typename T> struct RealOf { using type = T; };
template <typename R> struct RealOf<std::complex<R>> { using type = R; };

// The number of squarings for the largest column abs-sum (1-norm) of the batch.
int64_t squarings(double norm1) {
  if (!(norm1 > 0) || !std::isfinite(norm1)) return 0;
  return std::max<int64_t>(0, static_cast<int64_t>(std::ceil(std::log2(norm1))) + 1);
}

// exp of each n x n matrix of contiguous x (T real or complex), into a new contiguous tensor.
template <typename T>
Tensor exp_by_squaring(const Tensor& x) {
  using Real = typename RealOf<T>::type;
  const int64_t n = x.shape().back(), nn = n * n, total = x.numel();
  const T* px = x.data<T>();
  double norm1 = 0;  // NaN stays NaN (and then no squarings)
  for (int64_t b = 0; nn && b < total / nn; ++b)
    for (int64_t j = 0; j < n; ++j) {
      double col = 0;
      for (int64_t i = 0; i < n; ++i) col += static_cast<double>(std::abs(px[b * nn + i * n + j]));
      if (std::isnan(col) || col > norm1) norm1 = col;
    }
  const int64_t s = squarings(norm1);
  const Shape& shape = x.shape();
  Tensor a = Tensor::make(shape, x.dtype()), term = Tensor::make(shape, x.dtype());
  Tensor out = Tensor::make(shape, x.dtype()), prod = Tensor::make(shape, x.dtype());
  const T f = T(static_cast<Real>(std::ldexp(1.0, -static_cast<int>(s))));  // s <= 1026 for a finite norm
  T* pa = a.data<T>();
  T* pt = term.data<T>();
  T* po = out.data<T>();
  for (int64_t i = 0; i < total; ++i) {
    pa[i] = px[i] * f;
    const int64_t r = i % nn;
    pt[i] = po[i] = (r / n == r % n) ? T(1) : T(0);
  }
  T* pp = prod.data<T>();
  for (int k = 1; k <= 18; ++k) {
    matmul(term, a, false, false, prod);
    const T c = T(static_cast<Real>(1.0 / k));
    for (int64_t i = 0; i < total; ++i) {
      pt[i] = pp[i] * c;
      po[i] = po[i] + pt[i];
    }
  }
  for (int64_t i = 0; i < s; ++i) {
    matmul(out, out, false, false, prod);
    std::swap(out, prod);
  }
  return out;
}

}  // namespace

void matrix_exp(const Tensor& x, const Tensor& out) {
  switch (x.dtype()) {
    case DType::Float32: return copy(exp_by_squaring<float>(as_contiguous(x)), out);
    case DType::Float64: return copy(exp_by_squaring<double>(as_contiguous(x)), out);
    case DType::Complex64: return copy(exp_by_squaring<complex64>(as_contiguous(x)), out);
    case DType::Complex128: return copy(exp_by_squaring<complex128>(as_contiguous(x)), out);
    case DType::Float16:
    case DType::BFloat16: return copy(exp_by_squaring<float>(as_contiguous(x, DType::Float32)), out);
    default:
      OAR_THROW(TypeMismatch, "matrix_exp: argument 'x' must be a floating or complex tensor, but received dtype ",
                dtype_name(x.dtype()), ".");
  }
}

}  // namespace oar::kernels
