#include "oar/core/tensor.h"

#include <sstream>

#include "oar/autograd/engine.h"
#include "oar/autograd/grad_mode.h"
#include "oar/autograd/node.h"
#include "oar/kernels/cpu/convert.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/ops/device_dispatch.h"
#include "oar/ops/generated/api.h"

namespace oar {

TensorImpl::TensorImpl() = default;
TensorImpl::~TensorImpl() = default;

bool TensorImpl::is_contiguous() const {
  // An empty tensor addresses nothing (and its dims' product may not fit the loop's int64).
  for (int64_t d : shape)
    if (d == 0) return true;
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

autograd::AutogradMeta& TensorImpl::meta() {
  if (!autograd) autograd = std::make_unique<autograd::AutogradMeta>();
  return *autograd;
}

Tensor Tensor::make(const Shape& shape, DType dtype, Place place) {
  for (int64_t d : shape)
    OAR_ENFORCE_ARG(d >= 0, "Tensor::make: every dim of a shape must be >= 0, got ",
                    shape_str(shape));
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = dtype;
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->numel = numel_of(shape);
  int64_t nbytes;
  OAR_ENFORCE(!__builtin_mul_overflow(impl->numel, static_cast<int64_t>(dtype_size(dtype)), &nbytes),
              ResourceExhausted, "Tensor::make: a ", dtype_name(dtype), " tensor of shape ",
              shape_str(shape), " needs more bytes than can be addressed");
  impl->storage = std::make_shared<Storage>(static_cast<size_t>(nbytes), place);
  return Tensor(std::move(impl));
}

Tensor Tensor::make_view(const Tensor& base, const Shape& shape, const Strides& strides,
                         int64_t offset) {
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = base.dtype();
  impl->shape = shape;
  impl->strides = strides;
  impl->offset = offset;
  impl->numel = numel_of(shape);
  impl->storage = base.storage();
  return Tensor(std::move(impl));
}

int64_t Tensor::dim(int64_t i) const {
  return impl_->shape[normalize_axis(i, ndim(), "Tensor::dim", "i")];
}

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

void Tensor::throw_device_data_access() const {
  OAR_THROW(PreconditionNotMet, "this tensor lives on ", place().str(), ": host code cannot read ",
            "its memory; copy it to the CPU first (Tensor.cpu(), numpy(), item())");
}

void Tensor::throw_symbolic_data_access() const {
  OAR_THROW(PreconditionNotMet, "this tensor stands for a value of a static program being built (shape ",
            shape_str(shape()), ", ", dtype_name(dtype()),
            "): it has no data until the program runs; fetch it from Executor.run instead");
}

bool Tensor::stop_gradient() const { return !impl_->autograd || impl_->autograd->stop_gradient; }

Tensor& Tensor::set_stop_gradient(bool value) {
  if (!value) {
    OAR_ENFORCE(is_differentiable(dtype()), TypeMismatch,
                "stop_gradient=False: only floating-point and complex tensors can require ",
                "gradients, got dtype ", dtype_name(dtype()));
  }
  impl_->meta().stop_gradient = value;
  return *this;
}

bool Tensor::is_leaf() const { return !impl_->autograd || !impl_->autograd->grad_fn; }

Tensor Tensor::grad() const { return impl_->autograd ? impl_->autograd->grad : Tensor(); }

void Tensor::set_grad(const Tensor& g) { impl_->meta().grad = g; }

void Tensor::clear_grad(bool set_to_zero) {
  if (!impl_->autograd || !impl_->autograd->grad.defined()) return;
  Tensor& g = impl_->autograd->grad;
  if (set_to_zero) {
    if (g.place().is_host()) {
      kernels::fill(g, 0);
    } else {
      g.copy_(oar::full(IntArray{}, 0, g.dtype()));
    }
    g.bump_version();
  } else {
    g = Tensor();
  }
}

void Tensor::backward(const Tensor& grad_tensor, bool retain_graph) const {
  autograd::backward({*this}, {grad_tensor}, retain_graph);
}

void Tensor::retain_grads() const {
  if (is_leaf()) return;
  auto& m = impl_->meta();
  if (m.retain_grads) return;
  m.retain_grads = true;
  std::weak_ptr<TensorImpl> weak = impl_;
  register_hook([weak](const Tensor& g) {
    if (auto impl = weak.lock()) {
      auto& meta = impl->meta();
      meta.grad = meta.grad.defined() ? oar::add(meta.grad, g).detach() : g.detach();
    }
    return Tensor();
  });
}

namespace {
int64_t g_next_hook_id = 1;
}

int64_t Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  OAR_ENFORCE(!stop_gradient(), PreconditionNotMet,
              "register_hook: cannot register a hook on a tensor with stop_gradient=True");
  const int64_t id = g_next_hook_id++;
  auto& m = impl_->meta();
  if (m.grad_fn) {
    m.grad_fn->output_hooks.push_back({m.output_nr, {id, std::move(hook)}});
  } else {
    m.leaf_hooks.emplace_back(id, std::move(hook));
  }
  return id;
}

void Tensor::remove_hook(int64_t id) const {
  if (!impl_->autograd) return;
  auto& m = *impl_->autograd;
  std::erase_if(m.leaf_hooks, [id](const auto& h) { return h.first == id; });
  if (m.grad_fn)
    std::erase_if(m.grad_fn->output_hooks, [id](const auto& h) { return h.second.first == id; });
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

}  // namespace oar
