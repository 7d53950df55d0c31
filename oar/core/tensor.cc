#include "oar/core/tensor.h"

// The core of Tensor: construction, geometry and the guards on data access. Members that run
// ops live in oar/ops/tensor_methods.cc, those of autograd in oar/autograd/tensor_autograd.cc,
// so this layer depends on nothing above it.

namespace oar {

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

void Tensor::throw_device_data_access() const {
  OAR_THROW(PreconditionNotMet, "this tensor lives on ", place().str(), ": host code cannot read ",
            "its memory; copy it to the CPU first (Tensor.cpu(), numpy(), item())");
}

void Tensor::throw_symbolic_data_access() const {
  OAR_THROW(PreconditionNotMet, "this tensor stands for a value of a static program being built (shape ",
            shape_str(shape()), ", ", dtype_name(dtype()),
            "): it has no data until the program runs; fetch it from Executor.run instead");
}

}  // namespace oar
