// Tensor: a typed, strided view (shape, strides, offset) onto a shared Storage, plus autograd state.
// Tensor is a cheap handle (one shared_ptr); copies alias the same TensorImpl, as in Paddle.
#pragma once
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oar/core/dtype.h"
#include "oar/core/error.h"
#include "oar/core/int_array.h"
#include "oar/core/place.h"
#include "oar/core/scalar.h"
#include "oar/core/shape.h"
#include "oar/core/storage.h"

namespace oar {

namespace autograd { struct AutogradMeta; }

// What makes a tensor symbolic: while a static program is built, a tensor can stand for a value
// of that program, with a shape and dtype and no memory. The core only knows that it is bound;
// the IR's tracer (oar/ir/tracer.h) derives the binding that says to which value.
struct SymbolicBinding {
  virtual ~SymbolicBinding() = default;
};

struct TensorImpl {
  DType dtype = DType::Float32;
  Shape shape;
  Strides strides;
  int64_t offset = 0;  // in elements
  int64_t numel = 0;
  std::shared_ptr<Storage> storage;
  std::unique_ptr<autograd::AutogradMeta> autograd;  // created on first autograd use
  std::string name;
  std::shared_ptr<const SymbolicBinding> symbolic;  // set while a program is built (see above)

  TensorImpl();
  ~TensorImpl();
  bool is_contiguous() const;
  autograd::AutogradMeta& meta();  // creates it if absent
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // A new contiguous tensor with uninitialised memory.
  static Tensor make(const Shape& shape, DType dtype, Place place = CPUPlace());
  // A view of `base`'s storage with the given geometry (no copy).
  static Tensor make_view(const Tensor& base, const Shape& shape, const Strides& strides,
                          int64_t offset);
  // A tensor owning a copy of the given values.
  template <typename T>
  static Tensor from_vector(const std::vector<T>& values, const Shape& shape) {
    OAR_ENFORCE_ARG(numel_of(shape) == static_cast<int64_t>(values.size()), "from_vector: ",
                    values.size(), " values do not fill shape ", shape_str(shape));
    Tensor t = make(shape, dtype_of<T>);
    if constexpr (std::is_same_v<T, bool>) {
      for (size_t i = 0; i < values.size(); ++i) t.data<bool>()[i] = values[i];
    } else if (!values.empty()) {
      std::memcpy(t.data<T>(), values.data(), values.size() * sizeof(T));
    }
    return t;
  }

  bool defined() const { return impl_ != nullptr; }
  DType dtype() const { return impl_->dtype; }
  const Shape& shape() const { return impl_->shape; }
  const Strides& strides() const { return impl_->strides; }
  int64_t offset() const { return impl_->offset; }
  int64_t ndim() const { return static_cast<int64_t>(impl_->shape.size()); }
  int64_t numel() const { return impl_->numel; }
  int64_t dim(int64_t i) const;  // negative i counts from the end
  Place place() const { return impl_->storage ? impl_->storage->place() : CPUPlace(); }
  size_t element_size() const { return dtype_size(impl_->dtype); }
  const std::shared_ptr<Storage>& storage() const { return impl_->storage; }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  const std::string& name() const { return impl_->name; }
  void set_name(std::string n) { impl_->name = std::move(n); }

  // A tensor standing for an IR value while a program is built: shape and dtype, no memory.
  bool is_symbolic() const { return impl_->symbolic != nullptr; }

  // Host code's pointer to element 0. Device memory is not host-readable: asking for it throws
  // (read values through item/to_vector/numpy, which copy to the host, or run a kernel).
  void* raw_data() const {
    if (impl_->symbolic) [[unlikely]] throw_symbolic_data_access();
    if (!impl_->storage->place().is_host()) [[unlikely]] throw_device_data_access();
    return device_data();
  }
  // Element 0 on whatever place the tensor lives (for kernels of that place and copies).
  void* device_data() const {
    return static_cast<char*>(impl_->storage->data()) + impl_->offset * element_size();
  }
  [[noreturn]] void throw_symbolic_data_access() const;
  [[noreturn]] void throw_device_data_access() const;
  template <typename T> T* data() const {
    OAR_ENFORCE(dtype_of<T> == dtype(), TypeMismatch, "Tensor::data: tensor holds ",
                dtype_name(dtype()), ", asked for ", dtype_name(dtype_of<T>));
    return static_cast<T*>(raw_data());
  }
  // The value of a one-element tensor, converted to T.
  template <typename T> T item() const;
  // All values in row-major order, converted to T (for tests and examples).
  template <typename T> std::vector<T> to_vector() const;

  // This tensor on `place` (self when already there); differentiable (oar/ops/device_ops.cc).
  Tensor to(const Place& place) const;
  Tensor cpu() const;

  Tensor contiguous() const;  // self when already contiguous
  Tensor clone() const;       // a contiguous copy, differentiable
  Tensor detach() const;      // same storage, no autograd history
  void copy_(const Tensor& src);  // in-place copy with broadcasting and casting

  // Autograd (Paddle semantics: user tensors have stop_gradient=True).
  bool stop_gradient() const;
  Tensor& set_stop_gradient(bool value);
  bool requires_grad() const { return !stop_gradient(); }
  bool is_leaf() const;
  Tensor grad() const;  // undefined Tensor when there is none
  void set_grad(const Tensor& g);
  void clear_grad(bool set_to_zero = true);
  void backward(const Tensor& grad_tensor = Tensor(), bool retain_graph = false) const;
  void retain_grads() const;
  // Hook on the gradient of this tensor; returns an id for remove_hook.
  int64_t register_hook(std::function<Tensor(const Tensor&)> hook) const;
  void remove_hook(int64_t id) const;
  void bump_version() const { impl_->storage->bump_version(); }

  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  std::string to_string() const;  // Paddle-style repr

  // A fixed set of ops as methods, for C++ that reads like Python (x.sum(), p.subtract_(g)).
  // Every op is a function oar::<op> (oar/ops/generated/api.h); these call them (defined in
  // oar/ops/tensor_methods.cc). The set is fixed on purpose: adding an op never changes this
  // class, so it recompiles the op's family, not every file that uses a Tensor.
  Tensor add(const Tensor& y) const;
  Tensor subtract(const Tensor& y) const;
  Tensor multiply(const Tensor& y) const;
  Tensor divide(const Tensor& y) const;
  Tensor matmul(const Tensor& y, bool transpose_x = false, bool transpose_y = false) const;
  Tensor pow(const Scalar& y = 1.0) const;
  Tensor scale(const Scalar& scale = 1.0, const Scalar& bias = 0.0, bool bias_after_scale = true) const;
  Tensor abs() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor cast(DType dtype) const;
  Tensor sum(const IntArray& axis = {}, std::optional<DType> dtype = std::nullopt, bool keepdim = false) const;
  Tensor mean(const IntArray& axis = {}, bool keepdim = false) const;
  Tensor max(const IntArray& axis = {}, bool keepdim = false) const;
  Tensor min(const IntArray& axis = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> axis = std::nullopt, bool keepdim = false, DType dtype = DType::Int64) const;
  Tensor reshape(const IntArray& shape) const;
  Tensor squeeze(const IntArray& axis = {}) const;
  Tensor unsqueeze(const IntArray& axis) const;
  Tensor flatten(int64_t start_axis = 0, int64_t stop_axis = -1) const;
  Tensor transpose(const IntArray& perm) const;
  Tensor t() const;
  Tensor& add_(const Tensor& y);
  Tensor& subtract_(const Tensor& y);
  Tensor& multiply_(const Tensor& y);
  Tensor& scale_(const Scalar& scale = 1.0, const Scalar& bias = 0.0, bool bias_after_scale = true);

 private:
  std::shared_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace oar
