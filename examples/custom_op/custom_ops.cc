// Custom operators written against Paddle's custom-op API (paddle/extension.h): this file builds
// unchanged with Paddle's cpp_extension and with oar's. Three ops:
//   custom_relu(X) -> Out                      with a grad op
//   scaled_add(X, Y, alpha: float) -> Out      Out = X + alpha * Y, with a grad op
//   moments(X, axis_last: bool) -> Mean, Var   two outputs, no grad op
// train_custom_relu.py loads them with oar.utils.cpp_extension.load and trains through them.
#include <cmath>
#include <vector>

#include "paddle/extension.h"

namespace {

template <typename T>
void relu_forward(const T* x, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] > T(0) ? x[i] : T(0);
}

template <typename T>
void relu_backward(const T* out, const T* grad_out, T* grad_x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) grad_x[i] = out[i] > T(0) ? grad_out[i] : T(0);
}

}  // namespace

std::vector<paddle::Tensor> ReluForward(const paddle::Tensor& x) {
  PD_CHECK(x.is_cpu(), "custom_relu: x must be on the CPU");
  paddle::Tensor out = paddle::empty_like(x);
  PD_DISPATCH_FLOATING_TYPES(x.type(), "custom_relu", ([&] {
    relu_forward<data_t>(x.data<data_t>(), out.data<data_t>(), x.numel());
  }));
  return {out};
}

std::vector<paddle::Tensor> ReluBackward(const paddle::Tensor& out, const paddle::Tensor& grad_out) {
  paddle::Tensor grad_x = paddle::empty_like(out);
  PD_DISPATCH_FLOATING_TYPES(out.type(), "custom_relu_grad", ([&] {
    relu_backward<data_t>(out.data<data_t>(), grad_out.data<data_t>(), grad_x.data<data_t>(), out.numel());
  }));
  return {grad_x};
}

std::vector<std::vector<int64_t>> SameShape(const std::vector<int64_t>& x) { return {x}; }
std::vector<paddle::DataType> SameDtype(const paddle::DataType& x) { return {x}; }

PD_BUILD_OP(custom_relu)
    .Inputs({"X"})
    .Outputs({"Out"})
    .SetKernelFn(PD_KERNEL(ReluForward))
    .SetInferShapeFn(PD_INFER_SHAPE(SameShape))
    .SetInferDtypeFn(PD_INFER_DTYPE(SameDtype));

PD_BUILD_GRAD_OP(custom_relu)
    .Inputs({"Out", paddle::Grad("Out")})
    .Outputs({paddle::Grad("X")})
    .SetKernelFn(PD_KERNEL(ReluBackward));

std::vector<paddle::Tensor> ScaledAdd(const paddle::Tensor& x, const paddle::Tensor& y, float alpha) {
  PD_CHECK(x.shape() == y.shape(), "scaled_add: X and Y must have the same shape");
  PD_CHECK(x.type() == y.type(), "scaled_add: X and Y must have the same dtype");
  paddle::Tensor out = paddle::empty_like(x);
  PD_DISPATCH_FLOATING_TYPES(x.type(), "scaled_add", ([&] {
    const data_t *a = x.data<data_t>(), *b = y.data<data_t>();
    data_t* o = out.data<data_t>();
    for (int64_t i = 0; i < x.numel(); ++i) o[i] = a[i] + static_cast<data_t>(alpha) * b[i];
  }));
  return {out};
}

std::vector<paddle::Tensor> ScaledAddGrad(const paddle::Tensor& grad_out, float alpha) {
  paddle::Tensor gx = paddle::empty_like(grad_out), gy = paddle::empty_like(grad_out);
  PD_DISPATCH_FLOATING_TYPES(grad_out.type(), "scaled_add_grad", ([&] {
    const data_t* g = grad_out.data<data_t>();
    for (int64_t i = 0; i < grad_out.numel(); ++i) {
      gx.data<data_t>()[i] = g[i];
      gy.data<data_t>()[i] = static_cast<data_t>(alpha) * g[i];
    }
  }));
  return {gx, gy};
}

PD_BUILD_OP(scaled_add)
    .Inputs({"X", "Y"})
    .Outputs({"Out"})
    .Attrs({"alpha: float"})
    .SetKernelFn(PD_KERNEL(ScaledAdd));

PD_BUILD_GRAD_OP(scaled_add)
    .Inputs({paddle::Grad("Out")})
    .Outputs({paddle::Grad("X"), paddle::Grad("Y")})
    .Attrs({"alpha: float"})
    .SetKernelFn(PD_KERNEL(ScaledAddGrad));

// Mean and (population) variance over the last dim, or over everything.
std::vector<paddle::Tensor> Moments(const paddle::Tensor& x, bool axis_last) {
  const std::vector<int64_t> shape = x.shape();
  const int64_t inner = axis_last && !shape.empty() ? shape.back() : x.numel();
  const int64_t rows = inner == 0 ? 0 : x.numel() / inner;
  std::vector<int64_t> out_shape = axis_last && !shape.empty() ? std::vector<int64_t>(shape.begin(), shape.end() - 1)
                                                               : std::vector<int64_t>{};
  paddle::Tensor mean = paddle::empty(out_shape, x.type()), var = paddle::empty(out_shape, x.type());
  PD_DISPATCH_FLOATING_TYPES(x.type(), "moments", ([&] {
    const data_t* p = x.data<data_t>();
    for (int64_t r = 0; r < rows; ++r) {
      double s = 0, s2 = 0;
      for (int64_t i = 0; i < inner; ++i) s += p[r * inner + i];
      const double m = s / inner;
      for (int64_t i = 0; i < inner; ++i) s2 += (p[r * inner + i] - m) * (p[r * inner + i] - m);
      mean.data<data_t>()[r] = static_cast<data_t>(m);
      var.data<data_t>()[r] = static_cast<data_t>(s2 / inner);
    }
  }));
  return {mean, var};
}

PD_BUILD_OP(moments)
    .Inputs({"X"})
    .Outputs({"Mean", "Var"})
    .Attrs({"axis_last: bool"})
    .SetKernelFn(PD_KERNEL(Moments));
