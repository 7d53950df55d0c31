#include "oar/ops/op_helpers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "oar/autograd/grad_mode.h"
#include "oar/autograd/node.h"
#include "oar/ir/tracer.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/matmul.h"
#include "oar/ops/infer_meta/linalg.h"
#include "oar/ops/device_dispatch.h"
#include "oar/ops/generated/api/creation.h"
#include "oar/ops/generated/api/elementwise.h"
#include "oar/ops/generated/api/fused.h"
#include "oar/ops/generated/api/linalg.h"
#include "oar/ops/generated/api/reduce.h"
#include "oar/ops/generated/api/shape.h"

namespace oar {

Tensor reduce_to_shape(const Tensor& grad, const Shape& shape) {
  if (grad.shape() == shape) return grad;
  const int64_t lead = grad.ndim() - static_cast<int64_t>(shape.size());
  IntArray axes;
  for (int64_t i = 0; i < grad.ndim(); ++i) {
    if (i < lead || (shape[i - lead] == 1 && grad.shape()[i] != 1)) axes.push_back(i);
  }
  Tensor r = axes.empty() ? grad : sum(grad, axes, std::nullopt, true);
  return reshape_exact(r, IntArray(shape));
}


void assign_inplace(Tensor& self, const Tensor& result) {
  // In a static program being built, x now stands for the result's value (as the generated
  // in-place ops record it): there is no memory to write.
  if (self.is_symbolic()) {
    ir::rebind_symbolic(self, result);
    return;
  }
  {
    autograd::NoGradGuard no_grad;
    if (self.place().is_host() && result.place().is_host()) [[likely]] {
      kernels::copy(result, self);
    } else {
      ops::launch("copy_", self.place(), {result}, {}, {self});  // the device's strided copy
    }
  }
  self.bump_version();
  if (result.impl()->autograd && result.impl()->autograd->grad_fn) {
    autograd::AutogradMeta& m = self.impl()->meta();
    m.grad_fn = result.impl()->autograd->grad_fn;
    m.output_nr = result.impl()->autograd->output_nr;
    m.stop_gradient = false;
  }
}

bool is_exclusive_temporary(const Tensor& t) {
  if (!t.defined() || t.impl_ptr().use_count() != 1) return false;
  const TensorImpl& i = *t.impl();
  if (!i.storage || i.storage.use_count() != 1 || !i.storage->owns_memory() || i.symbolic) return false;
  if (!t.is_contiguous() || t.requires_grad()) return false;
  return true;
}

Tensor activate_temporary(Tensor t, const std::string& activation) {
  if (activation == "none") return t;
  std::optional<kernels::UnaryOp> op;
  if (activation == "relu") op = kernels::UnaryOp::Relu;
  else if (activation == "gelu") op = kernels::UnaryOp::Gelu;
  else if (activation == "gelu_tanh") op = kernels::UnaryOp::GeluTanh;
  else if (activation == "silu") op = kernels::UnaryOp::Silu;
  else if (activation == "sigmoid") op = kernels::UnaryOp::Sigmoid;
  else if (activation == "tanh") op = kernels::UnaryOp::Tanh;
  if (!op || !is_floating(t.dtype()) || is_complex(t.dtype()) || !is_exclusive_temporary(t) ||
      !t.place().is_host())
    return fused_activation(t, activation);
  kernels::unary(*op, t, t);  // elementwise: each element is read before it is written
  return t;
}

Tensor matmul_bias_act_direct(const Tensor& x, const Tensor& y, const Tensor& bias, bool transpose_x,
                              bool transpose_y, const std::string& activation) {
  if (!x.defined() || !y.defined() || !bias.defined()) return {};
  // The fused host path (its caller falls back to ops, which run on any place).
  if (!x.place().is_host() || !y.place().is_host() || !bias.place().is_host()) return {};
  if (x.dtype() != DType::Float32 || y.dtype() != DType::Float32 || bias.dtype() != DType::Float32) return {};
  if (bias.ndim() != 1 || autograd::any_requires_grad({&x, &y, &bias})) return {};
  const Meta m = infer_meta::matmul("matmul", x, y, transpose_x, transpose_y);
  if (m.shape.empty() || m.shape.back() != bias.shape()[0]) return {};
  Tensor out = Tensor::make(m.shape, DType::Float32);
  const int64_t n = bias.shape()[0];
  const int64_t rows = n == 0 ? 0 : out.numel() / n;
  const Tensor b = bias.contiguous();
  const float* src = static_cast<const float*>(b.raw_data());
  float* dst = static_cast<float*>(out.raw_data());
  parallel_for(0, rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) std::memcpy(dst + r * n, src, static_cast<size_t>(n) * sizeof(float));
  });
  kernels::matmul_accumulate_f32(x, y, transpose_x, transpose_y, out);
  return activate_temporary(std::move(out), activation);
}

void assign_view_inplace(Tensor& self, const Tensor& view) {
  if (self.is_symbolic()) {  // a static program's value: x now names the view's value
    ir::rebind_symbolic(self, view);
    return;
  }
  self.bump_version();
  TensorImpl& d = *self.impl();
  const TensorImpl& v = *view.impl();
  d.dtype = v.dtype;  // in-place casts and comparisons change it (as Paddle's cast_, equal_, ...)
  d.shape = v.shape;
  d.strides = v.strides;
  d.offset = v.offset;
  d.numel = v.numel;
  d.storage = v.storage;
  if (v.autograd || d.autograd) {  // the history is the view's, none included (detach_)
    autograd::AutogradMeta& m = d.meta();
    m.grad_fn = v.autograd ? v.autograd->grad_fn : nullptr;
    m.output_nr = v.autograd ? v.autograd->output_nr : 0;
    m.stop_gradient = v.autograd ? v.autograd->stop_gradient : true;
  }
}

std::vector<int64_t> normalize_axes(const IntArray& axes, int64_t rank, const char* op,
                                    bool empty_is_all) {
  std::vector<int64_t> out;
  if (axes.empty() && empty_is_all) {
    for (int64_t i = 0; i < rank; ++i) out.push_back(i);
    return out;
  }
  for (int64_t a : axes) {
    const int64_t n = normalize_axis(a, rank, op);
    OAR_ENFORCE_ARG(std::find(out.begin(), out.end(), n) == out.end(), op,
                    ": argument 'axis' repeats dimension ", n, " in ", shape_str(axes));
    out.push_back(n);
  }
  if (rank == 0) out.clear();  // a 0-D tensor has no dims to name
  return out;
}

DType scalar_result_dtype(DType t, const Scalar& s) {
  if (s.is_complex() && !is_complex(t)) return t == DType::Float64 ? DType::Complex128 : DType::Complex64;
  if (s.is_floating() && (is_integral(t, true))) return default_float_dtype();
  // A bool tensor with an int (not a bool) computes in int64, as Paddle's: mask + 1 counts.
  if (t == DType::Bool && s.kind() == Scalar::Kind::Int) return DType::Int64;
  return t;
}

Tensor scalar_tensor(const Scalar& s, DType dtype) { return full(IntArray{}, s, dtype); }

Tensor mask_grad(const Tensor& grad, const Tensor& cond) {
  return where(cond, grad, zeros_like(grad));
}

Tensor scale_grad(const Tensor& grad, const Scalar& s) { return scale(grad, s, 0.0, true); }

namespace {
// Tensor-scalar arithmetic: the scalar becomes a 0-D tensor of the result dtype.
Tensor with_scalar(const Tensor& a, const Scalar& b, Tensor (*op)(const Tensor&, const Tensor&),
                   bool scalar_first) {
  const DType t = scalar_result_dtype(a.dtype(), b);
  const Tensor x = a.dtype() == t ? a : cast(a, t);
  const Tensor s = scalar_tensor(b, t);
  return scalar_first ? op(s, x) : op(x, s);
}
}  // namespace

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return subtract(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return multiply(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return divide(a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator+(const Tensor& a, const Scalar& b) { return with_scalar(a, b, &add, false); }
Tensor operator-(const Tensor& a, const Scalar& b) { return with_scalar(a, b, &subtract, false); }
Tensor operator*(const Tensor& a, const Scalar& b) { return with_scalar(a, b, &multiply, false); }
Tensor operator/(const Tensor& a, const Scalar& b) { return with_scalar(a, b, &divide, false); }
Tensor operator+(const Scalar& a, const Tensor& b) { return with_scalar(b, a, &add, true); }
Tensor operator-(const Scalar& a, const Tensor& b) { return with_scalar(b, a, &subtract, true); }
Tensor operator*(const Scalar& a, const Tensor& b) { return with_scalar(b, a, &multiply, true); }
Tensor operator/(const Scalar& a, const Tensor& b) { return with_scalar(b, a, &divide, true); }

namespace autograd {
bool any_requires_grad_list(const std::vector<Tensor>& ts) {
  if (!grad_enabled()) return false;
  for (const Tensor& t : ts)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}
}  // namespace autograd

Tensor conj_if_complex(const Tensor& t) { return is_complex(t.dtype()) ? conj(t) : t; }

Tensor mT(const Tensor& x) {
  std::vector<int64_t> perm(x.ndim());
  for (int64_t d = 0; d < x.ndim(); ++d) perm[d] = d;
  std::swap(perm[x.ndim() - 1], perm[x.ndim() - 2]);
  return transpose(x, IntArray(perm));
}

}  // namespace oar
