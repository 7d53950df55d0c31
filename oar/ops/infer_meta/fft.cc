#include "oar/ops/infer_meta/fft.h"

#include <algorithm>

namespace oar::infer_meta {

namespace {

DType complex_of(DType real) { return real == DType::Float64 ? DType::Complex128 : DType::Complex64; }
DType real_of(DType complex) { return complex == DType::Complex128 ? DType::Float64 : DType::Float32; }

void check_complex(const char* op, const Tensor& x) {
  OAR_ENFORCE(is_complex(x.dtype()), TypeMismatch, op, ": argument 'x' must be a complex64 or complex128 tensor, got ",
              dtype_name(x.dtype()));
}

// The checks every transform shares; `sizes` is the shape whose axes carry the signal sizes.
void check_axes_and_norm(const char* op, const Tensor& x, const IntArray& axes, const std::string& normalization) {
  OAR_ENFORCE_ARG(normalization == "backward" || normalization == "forward" || normalization == "ortho", op,
                  ": argument 'normalization' must be 'backward', 'forward' or 'ortho', got '", normalization, "'");
  OAR_ENFORCE_ARG(!axes.empty(), op, ": argument 'axes' must name at least one axis");
  OAR_ENFORCE_ARG(static_cast<int64_t>(axes.size()) <= x.ndim(), op, ": argument 'axes' names ", axes.size(),
                  " axes, more than the rank of x (", x.ndim(), ")");
  for (size_t i = 0; i < axes.size(); ++i) {
    OAR_ENFORCE(axes[i] >= 0 && axes[i] < x.ndim(), OutOfRange, op, ": argument 'axes' must hold axes in [0, ",
                x.ndim(), "), got ", axes[i]);
    OAR_ENFORCE_ARG(std::count(axes.begin(), axes.end(), axes[i]) == 1, op, ": argument 'axes' repeats axis ",
                    axes[i]);
  }
}

void check_sizes(const char* op, const Shape& shape, const IntArray& axes) {
  for (auto a : axes)
    OAR_ENFORCE_ARG(shape[static_cast<size_t>(a)] > 0, op, ": invalid number of data points (",
                    shape[static_cast<size_t>(a)], ") along axis ", a, "; it must be positive");
}

}  // namespace

Meta fft_c2c(const char* op, const Tensor& x, const IntArray& axes, const std::string& normalization,
             bool /*forward*/) {
  check_complex(op, x);
  check_axes_and_norm(op, x, axes, normalization);
  check_sizes(op, x.shape(), axes);
  return {x.shape(), x.dtype()};
}

Meta fft_r2c(const char* op, const Tensor& x, const IntArray& axes, const std::string& normalization,
             bool /*forward*/, bool onesided) {
  check_float32_or_64(op, "x", x);
  check_axes_and_norm(op, x, axes, normalization);
  check_sizes(op, x.shape(), axes);
  Shape shape = x.shape();
  if (onesided) shape[static_cast<size_t>(axes.back())] = shape[static_cast<size_t>(axes.back())] / 2 + 1;
  return {shape, complex_of(x.dtype())};
}

Meta fft_c2r(const char* op, const Tensor& x, const IntArray& axes, const std::string& normalization,
             bool /*forward*/, int64_t last_dim_size) {
  check_complex(op, x);
  check_axes_and_norm(op, x, axes, normalization);
  OAR_ENFORCE_ARG(last_dim_size >= 0, op, ": argument 'last_dim_size' must be 0 (from the input) or positive, got ",
                  last_dim_size);
  Shape shape = x.shape();
  auto& last = shape[static_cast<size_t>(axes.back())];
  last = last_dim_size > 0 ? last_dim_size : 2 * (last - 1);
  check_sizes(op, shape, axes);
  return {shape, real_of(x.dtype())};
}

}  // namespace oar::infer_meta
