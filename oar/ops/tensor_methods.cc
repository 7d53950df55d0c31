// The Tensor members that run ops: host reads (item, to_vector, to_string), copies and views
// (contiguous, clone, detach, copy_) and the fixed set of ops as methods. Declared in
// oar/core/tensor.h, defined here, in the op layer, because they need kernels and the op API.
#include <functional>
#include <sstream>

#include "oar/core/tensor.h"
#include "oar/kernels/cpu/convert.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/ops/device_dispatch.h"
#include "oar/ops/generated/api/elementwise.h"
#include "oar/ops/generated/api/linalg.h"
#include "oar/ops/generated/api/reduce.h"
#include "oar/ops/generated/api/shape.h"

namespace oar {

template <typename T>
T Tensor::item() const {
  OAR_ENFORCE_ARG(numel() == 1, "item: only a tensor with exactly one element can be converted ",
                  "to a Python scalar, got shape ", shape_str(shape()));
  if (!place().is_host()) return cpu().item<T>();  // the synchronising host read
  return kernels::dispatch_all(dtype(), "item", [&](auto tag) -> T {
    using S = decltype(tag);
    return kernels::convert<T>(*static_cast<const S*>(raw_data()));
  });
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  if (!place().is_host()) return cpu().to_vector<T>();  // the synchronising host read
  const Tensor c = contiguous();
  std::vector<T> out(static_cast<size_t>(numel()));
  kernels::dispatch_all(dtype(), "to_vector", [&](auto tag) {
    using S = decltype(tag);
    const S* p = static_cast<const S*>(c.raw_data());
    for (int64_t i = 0; i < numel(); ++i) out[i] = kernels::convert<T>(p[i]);
  });
  return out;
}

#define OAR_INSTANTIATE(T) \
  template T Tensor::item<T>() const; \
  template std::vector<T> Tensor::to_vector<T>() const;
OAR_INSTANTIATE(bool)
OAR_INSTANTIATE(int8_t)
OAR_INSTANTIATE(uint8_t)
OAR_INSTANTIATE(int16_t)
OAR_INSTANTIATE(int32_t)
OAR_INSTANTIATE(int64_t)
OAR_INSTANTIATE(float)
OAR_INSTANTIATE(double)
OAR_INSTANTIATE(float16)
OAR_INSTANTIATE(bfloat16)
OAR_INSTANTIATE(complex64)
OAR_INSTANTIATE(complex128)
#undef OAR_INSTANTIATE

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const { return oar::assign(*this); }

Tensor Tensor::detach() const {
  // A program value: record the detach as an op, so that the program's grad op stops there.
  if (impl_->symbolic) return oar::detach_value(*this);
  Tensor t = make_view(*this, shape(), strides(), offset());
  t.impl()->name = impl_->name;
  return t;
}

void Tensor::copy_(const Tensor& src) {
  // The source must broadcast to exactly this tensor's shape (not to a larger one).
  OAR_ENFORCE_ARG(broadcast_shapes(src.shape(), shape(), "copy_") == shape(),
                  "copy_: cannot broadcast value of shape ", shape_str(src.shape()),
                  " to the destination shape ", shape_str(shape()));
  if (place().is_host()) [[likely]] {
    kernels::copy(src.place().is_host() ? src : src.cpu(), *this);
  } else {
    ops::launch("copy_", place(), {src}, {}, {*this});  // the backend's strided copy
  }
  bump_version();
}

std::string Tensor::to_string() const {
  std::ostringstream os;
  os << "Tensor(shape=" << shape_str(shape()) << ", dtype=" << dtype_name(dtype())
     << ", place=" << place().str() << ", stop_gradient=" << (stop_gradient() ? "True" : "False")
     << ",\n       ";
  const std::vector<double> v = is_complex(dtype()) ? std::vector<double>() : to_vector<double>();
  // Nested brackets row by row (compact; the Python repr formats like Paddle).
  std::function<void(size_t, int64_t)> rec = [&](size_t d, int64_t base) {
    if (d == shape().size()) { os << v[base]; return; }
    os << "[";
    int64_t stride = 1;
    for (size_t k = d + 1; k < shape().size(); ++k) stride *= shape()[k];
    for (int64_t i = 0; i < shape()[d]; ++i) {
      if (i) os << ", ";
      rec(d + 1, base + i * stride);
    }
    os << "]";
  };
  if (!v.empty() || numel() == 0) rec(0, 0);
  os << ")";
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.to_string(); }

// The ops as methods: each is its op with this tensor as the first argument.
Tensor Tensor::add(const Tensor& y) const { return oar::add(*this, y); }
Tensor Tensor::subtract(const Tensor& y) const { return oar::subtract(*this, y); }
Tensor Tensor::multiply(const Tensor& y) const { return oar::multiply(*this, y); }
Tensor Tensor::divide(const Tensor& y) const { return oar::divide(*this, y); }
Tensor Tensor::matmul(const Tensor& y, bool transpose_x, bool transpose_y) const {
  return oar::matmul(*this, y, transpose_x, transpose_y);
}
Tensor Tensor::pow(const Scalar& y) const { return oar::pow(*this, y); }
Tensor Tensor::scale(const Scalar& scale, const Scalar& bias, bool bias_after_scale) const {
  return oar::scale(*this, scale, bias, bias_after_scale);
}
Tensor Tensor::abs() const { return oar::abs(*this); }
Tensor Tensor::exp() const { return oar::exp(*this); }
Tensor Tensor::log() const { return oar::log(*this); }
Tensor Tensor::sqrt() const { return oar::sqrt(*this); }
Tensor Tensor::cast(DType dtype) const { return oar::cast(*this, dtype); }
Tensor Tensor::sum(const IntArray& axis, std::optional<DType> dtype, bool keepdim) const {
  return oar::sum(*this, axis, dtype, keepdim);
}
Tensor Tensor::mean(const IntArray& axis, bool keepdim) const { return oar::mean(*this, axis, keepdim); }
Tensor Tensor::max(const IntArray& axis, bool keepdim) const { return oar::max(*this, axis, keepdim); }
Tensor Tensor::min(const IntArray& axis, bool keepdim) const { return oar::min(*this, axis, keepdim); }
Tensor Tensor::argmax(std::optional<int64_t> axis, bool keepdim, DType dtype) const {
  return oar::argmax(*this, axis, keepdim, dtype);
}
Tensor Tensor::reshape(const IntArray& shape) const { return oar::reshape(*this, shape); }
Tensor Tensor::squeeze(const IntArray& axis) const { return oar::squeeze(*this, axis); }
Tensor Tensor::unsqueeze(const IntArray& axis) const { return oar::unsqueeze(*this, axis); }
Tensor Tensor::flatten(int64_t start_axis, int64_t stop_axis) const {
  return oar::flatten(*this, start_axis, stop_axis);
}
Tensor Tensor::transpose(const IntArray& perm) const { return oar::transpose(*this, perm); }
Tensor Tensor::t() const { return oar::t(*this); }
Tensor& Tensor::add_(const Tensor& y) { return oar::add_(*this, y); }
Tensor& Tensor::subtract_(const Tensor& y) { return oar::subtract_(*this, y); }
Tensor& Tensor::multiply_(const Tensor& y) { return oar::multiply_(*this, y); }
Tensor& Tensor::scale_(const Scalar& scale, const Scalar& bias, bool bias_after_scale) {
  return oar::scale_(*this, scale, bias, bias_after_scale);
}

}  // namespace oar
