// The Tensor class for Python: properties, NumPy/DLPack interop and operators.
#include <cstring>

#include "bind_common.h"
#include "oar/device/device_registry.h"
#include "oar/ir/tracer.h"
#include "oar/autograd/grad_mode.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/ops/generated/api/creation.h"
#include "oar/ops/generated/api/elementwise.h"
#include "oar/ops/generated/api/linalg.h"
#include "oar/ops/generated/api/reduce.h"
#include "oar/ops/generated/api/shape.h"
#include "oar/ops/generated/api/special.h"
#include "oar/ops/op_helpers.h"

namespace oar::python {

namespace {

nb::dlpack::dtype to_dlpack_dtype(DType t) {
  using nb::dlpack::dtype_code;
  auto make = [](dtype_code c, int bits) {
    nb::dlpack::dtype d;
    d.code = static_cast<uint8_t>(c);
    d.bits = static_cast<uint8_t>(bits);
    d.lanes = 1;
    return d;
  };
  switch (t) {
    case DType::Bool: return make(dtype_code::Bool, 8);
    case DType::Int8: return make(dtype_code::Int, 8);
    case DType::UInt8: return make(dtype_code::UInt, 8);
    case DType::Int16: return make(dtype_code::Int, 16);
    case DType::Int32: return make(dtype_code::Int, 32);
    case DType::Int64: return make(dtype_code::Int, 64);
    case DType::Float16: return make(dtype_code::Float, 16);
    case DType::BFloat16: return make(dtype_code::UInt, 16);  // NumPy has no bfloat16: raw bits
    case DType::Float32: return make(dtype_code::Float, 32);
    case DType::Float64: return make(dtype_code::Float, 64);
    case DType::Complex64: return make(dtype_code::Complex, 64);
    case DType::Complex128: return make(dtype_code::Complex, 128);
    case DType::Float8E4M3FN:  // NumPy has no float8: raw bits, as int8 as Paddle's numpy() gives them
    case DType::Float8E5M2: return make(dtype_code::Int, 8);
  }
  return make(dtype_code::Float, 32);
}

DType from_dlpack_dtype(nb::dlpack::dtype d) {
  using nb::dlpack::dtype_code;
  const auto code = static_cast<dtype_code>(d.code);
  if (code == dtype_code::Bool) return DType::Bool;
  if (code == dtype_code::Int) {
    switch (d.bits) { case 8: return DType::Int8; case 16: return DType::Int16; case 32: return DType::Int32; case 64: return DType::Int64; }
  }
  if (code == dtype_code::UInt) {
    if (d.bits == 8) return DType::UInt8;
    if (d.bits == 16) return DType::BFloat16;
    if (d.bits == 32 || d.bits == 64) return DType::Int64;
  }
  if (code == dtype_code::Float) {
    switch (d.bits) { case 16: return DType::Float16; case 32: return DType::Float32; case 64: return DType::Float64; }
  }
  if (code == dtype_code::Bfloat && d.bits == 16) return DType::BFloat16;
  if (code == dtype_code::Complex) return d.bits == 64 ? DType::Complex64 : DType::Complex128;
  OAR_THROW(TypeMismatch, "to_tensor: unsupported array element type (code ", int(d.code), ", ",
            int(d.bits), " bits)");
}

using ArrayIn = nb::ndarray<nb::ro, nb::device::cpu>;

// DLPack's device codes (dlpack.h's DLDeviceType) for the places oar has.
constexpr int kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLExtDev = 12;

std::pair<int, int> dlpack_device(const Place& p) {
  switch (p.type) {
    case DeviceType::CPU: return {kDLCPU, 0};
    case DeviceType::GPU: return {kDLCUDA, p.device_id};
    case DeviceType::GPUPinned: return {kDLCUDAHost, 0};
    case DeviceType::Custom: return {kDLExtDev, p.device_id};  // DLPack has no code per vendor
  }
  return {kDLCPU, 0};
}

Place place_of_dlpack(int type, int id) {
  if (type == kDLCPU) return CPUPlace();
  if (type == kDLCUDA) return GPUPlace(id);
  if (type == kDLCUDAHost) return GPUPinnedPlace();
  if (type == kDLExtDev) {
    // An extension device: oar's custom device, when exactly one custom type is loaded.
    std::vector<std::string> custom;
    for (const std::string& t : device::device_types())
      if (t != "gpu") custom.push_back(t);
    OAR_ENFORCE(custom.size() == 1, InvalidArgument, "from_dlpack: the array lives on a DLPack extension device (",
                kDLExtDev, "), which is oar's custom device only when exactly one custom device type is loaded; ",
                custom.size(), " are");
    return CustomPlace(custom[0], id);
  }
  OAR_THROW(Unimplemented, "from_dlpack: arrays on DLPack device type ", type,
            " cannot be shared with oar (it has cpu, gpu, gpu_pinned and custom devices)");
}

// A tensor viewing a DLPack array's memory on `place`; the array stays alive as long as the storage.
Tensor view_of_dlpack(const nb::ndarray<>& a, const Place& place) {
  const DType dt = from_dlpack_dtype(a.dtype());
  Shape shape(a.ndim());
  Strides strides(a.ndim());
  for (size_t i = 0; i < a.ndim(); ++i) {
    shape[i] = static_cast<int64_t>(a.shape(i));
    strides[i] = a.stride(i);
  }
  // Negative or odd strides: find the lowest address so the storage covers the whole view.
  int64_t lo = 0, hi = 0;
  for (size_t i = 0; i < a.ndim(); ++i) {
    if (shape[i] == 0) { lo = hi = 0; break; }
    const int64_t span = (shape[i] - 1) * strides[i];
    if (span < 0) lo += span; else hi += span;
  }
  const size_t es = dtype_size(dt);
  char* base = static_cast<char*>(const_cast<void*>(a.data())) + lo * static_cast<int64_t>(es);
  auto* keep = new nb::ndarray<>(a);
  auto storage = std::make_shared<Storage>(base, static_cast<size_t>(hi - lo + 1) * es, place,
                                           [keep](void*) {
                                             if (!Py_IsInitialized()) return;
                                             nb::gil_scoped_acquire gil;
                                             delete keep;
                                           });
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = dt;
  impl->shape = shape;
  impl->strides = strides;
  impl->offset = -lo;
  impl->numel = numel_of(shape);
  impl->storage = storage;
  return Tensor(impl);
}

Tensor view_of_array(ArrayIn a) { return view_of_dlpack(nb::ndarray<>(a), CPUPlace()); }

// A DLPack capsule sharing `t`'s memory where it lives, with its strides. Work queued on a
// device finishes first, since the consumer may read on a stream of its own.
nb::object export_dlpack(const Tensor& t) {
  if (t.is_symbolic()) t.throw_symbolic_data_access();
  if (!t.place().is_host()) device::synchronize(t.place());
  auto* holder = new std::shared_ptr<Storage>(t.storage());
  nb::capsule owner(holder, [](void* p) noexcept { delete static_cast<std::shared_ptr<Storage>*>(p); });
  std::vector<size_t> shape(t.shape().begin(), t.shape().end());
  std::vector<int64_t> strides(t.strides().begin(), t.strides().end());
  const auto [type, id] = dlpack_device(t.place());
  nb::ndarray<> arr(t.device_data(), shape.size(), shape.data(), owner, strides.data(), to_dlpack_dtype(t.dtype()),
                    type, id);
  nb::object out = nb::cast(arr);  // an ndarray of no framework: a capsule, or an object that makes one
  return PyCapsule_CheckExact(out.ptr()) ? out : out.attr("__dlpack__")();
}

nb::object to_numpy(const Tensor& t) {
  // A tensor with data converts eagerly even in static mode (its contiguous copy is not an op of
  // the program being built).
  ir::TracingScope eager(nullptr);
  // An empty tensor may have dims whose product (zeros left out) overflows: NumPy cannot hold
  // that shape, and the export's stride arithmetic would overflow first.
  int64_t extent = static_cast<int64_t>(t.element_size());
  for (int64_t d : t.shape())
    OAR_ENFORCE_ARG(d == 0 || !__builtin_mul_overflow(extent, d, &extent), "numpy: an array of shape ",
                    shape_str(t.shape()), " is too big for NumPy (its strides overflow)");
  Tensor c = t.place().is_host() ? t.contiguous() : t.cpu();  // device memory: the host copy
  if (c.storage() == t.storage()) {
    // The array gets memory of its own, as Paddle's numpy() does: later writes to the tensor
    // (t[0] = 5, clear_gradient) must not change an array taken before them, nor the reverse.
    Tensor own = Tensor::make(c.shape(), c.dtype());
    if (c.numel() > 0) std::memcpy(own.raw_data(), c.raw_data(), static_cast<size_t>(c.numel()) * c.element_size());
    c = own;
  }
  auto* holder = new std::shared_ptr<Storage>(c.storage());
  nb::capsule owner(holder, [](void* p) noexcept { delete static_cast<std::shared_ptr<Storage>*>(p); });
  std::vector<size_t> shape(c.shape().begin(), c.shape().end());
  nb::ndarray<nb::numpy> arr(c.raw_data(), shape.size(), shape.data(), owner, nullptr,
                             to_dlpack_dtype(c.dtype()));
  return nb::cast(arr, nb::rv_policy::reference);
}

nb::object item_of(const Tensor& t) {
  if (t.dtype() == DType::Bool) return nb::bool_(t.item<bool>());
  if (is_integral(t.dtype())) return nb::int_(t.item<int64_t>());
  if (is_complex(t.dtype())) {
    auto c = t.item<complex128>();
    return nb::steal(PyComplex_FromDoubles(c.real(), c.imag()));
  }
  return nb::float_(t.item<double>());
}

Tensor as_tensor(nb::handle other) {
  if (nb::isinstance<Tensor>(other)) return nb::cast<Tensor>(other);
  return nb::cast<Tensor>(nb::module_::import_("oar").attr("to_tensor")(other));
}

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);

// x (op) other, with Paddle's tensor-scalar promotion when other is a Python number.
Tensor binary_op(const Tensor& x, nb::handle other, BinaryFn fn, bool reverse) {
  if (nb::isinstance<Tensor>(other)) {
    const Tensor& y = nb::cast<const Tensor&>(other);
    return reverse ? fn(y, x) : fn(x, y);
  }
  Scalar s;
  if (!PyObject_HasAttrString(other.ptr(), "shape") && scalar_from_python(other, s)) {
    const DType t = scalar_result_dtype(x.dtype(), s);
    const Tensor xs = x.dtype() == t ? x : cast(x, t);
    const Tensor st = scalar_tensor(s, t);
    return reverse ? fn(st, xs) : fn(xs, st);
  }
  Tensor y = as_tensor(other);
  return reverse ? fn(y, x) : fn(x, y);
}

// The shift operators: arithmetic right shifts, as Paddle's << and >>.
Tensor shift_left(const Tensor& x, const Tensor& y) { return bitwise_left_shift(x, y, true); }
Tensor shift_right(const Tensor& x, const Tensor& y) { return bitwise_right_shift(x, y, true); }

Tensor power(const Tensor& x, nb::handle other) {
  Scalar s;
  if (!nb::isinstance<Tensor>(other) && scalar_from_python(other, s)) {
    const DType t = scalar_result_dtype(x.dtype(), s);
    return pow(x.dtype() == t ? x : cast(x, t), s);
  }
  return elementwise_pow(x, as_tensor(other));
}

}  // namespace

void bind_tensor(nb::module_& m) {
  nb::class_<Tensor> cls(m, "Tensor", nb::dynamic_attr(), nb::is_weak_referenceable(),
                         "oar's n-dimensional array, as paddle.Tensor: a dtype, a shape, a place (host or "
                         "device) and, for autograd, stop_gradient and grad. Made by oar.to_tensor and the "
                         "creation ops; every op is also a method (x.sum(), x.matmul(y)).\n\n"
                         "Examples:\n    >>> import oar\n    >>> x = oar.to_tensor([[1.0, 2.0]], stop_gradient=False)\n"
                         "    >>> x.shape, x.dtype, x.stop_gradient\n    ([1, 2], paddle.float32, False)");
  // oar.Tensor() is an empty float32 tensor of shape [0], as paddle.Tensor(): a Tensor without
  // storage must never reach Python (every method would read through a null handle).
  cls.def("__init__", [](Tensor* self) { new (self) Tensor(Tensor::make(Shape{0}, DType::Float32)); })
      // Another handle on the same TensorImpl: how Python subclasses (Parameter) wrap a tensor.
      .def(nb::init<const Tensor&>(), nb::arg("tensor"))
      .def_prop_ro("shape", [](const Tensor& t) { return std::vector<int64_t>(t.shape()); })
      .def_prop_ro("ndim", &Tensor::ndim)
      .def_prop_ro("size", &Tensor::numel)
      .def_prop_ro("dtype", &Tensor::dtype)
      .def_prop_ro("_strides", [](const Tensor& t) { return std::vector<int64_t>(t.strides()); })
      .def_prop_ro("_offset", &Tensor::offset)
      .def_prop_ro("_version", [](const Tensor& t) { return t.storage()->version(); })
      .def_prop_ro("is_leaf", &Tensor::is_leaf)
      .def_prop_rw("stop_gradient", &Tensor::stop_gradient,
                   [](Tensor& t, bool v) { t.set_stop_gradient(v); })
      .def_prop_rw("name", &Tensor::name, [](Tensor& t, std::string n) { t.set_name(std::move(n)); })
      .def_prop_rw(
          "grad", [](const Tensor& t) -> nb::object {
            Tensor g = t.grad();
            if (!g.defined()) return nb::none();
            return nb::cast(g);
          },
          [](Tensor& t, nb::handle g) { t.set_grad(g.is_none() ? Tensor() : nb::cast<Tensor>(g)); },
          nb::arg("value").none())
      .def("numel", &Tensor::numel, "The number of elements (the product of the shape).\n\nExamples:\n    >>> import oar\n    >>> oar.ones([2, 3]).numel()\n    6")
      .def("element_size", &Tensor::element_size, "Bytes per element of the dtype.\n\nExamples:\n    >>> import oar\n    >>> oar.ones([2], dtype='float64').element_size()\n    8")
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.raw_data()); },
           "The address of the first element in host memory (an int); an error for device tensors.")
      .def("is_contiguous", &Tensor::is_contiguous, "Whether the elements lie in row-major order without gaps.\n\nExamples:\n    >>> import oar\n    >>> x = oar.ones([2, 3])\n    >>> x.is_contiguous(), x.t().is_contiguous()\n    (True, False)")
      .def("contiguous", &Tensor::contiguous, "The tensor itself when contiguous, else a contiguous copy (differentiable).")
      .def("_is_same", &Tensor::is_same)
      // Identifies the shared TensorImpl (a Parameter and the plain Tensor wrappers of it agree).
      .def_prop_ro("_impl_id", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.impl()); })
      .def("numpy", &to_numpy,
           "A NumPy array with the tensor's values (its own copy, as Paddle's: later writes to either side "
           "do not show in the other; device tensors are copied to the host after their pending work).\n\nExamples:\n    >>> import oar\n    >>> print(oar.to_tensor([1.5, 2.5]).numpy())\n"
           "    [1.5 2.5]")
      .def("item", [](const Tensor& t, nb::args idx) {
        if (idx.size() == 0) return item_of(t);
        return item_of(nb::cast<Tensor>(nb::handle(nb::cast(t)).attr("__getitem__")(nb::tuple(idx))));
      }, "The value of a one-element tensor as a Python scalar, or of the element at the given index.\n\n"
         "Examples:\n    >>> import oar\n    >>> x = oar.to_tensor([[1.5, 2.5]])\n    >>> x[0, 1].item(), x.item(0, 0)\n    (2.5, 1.5)")
      .def("detach", &Tensor::detach, "A tensor sharing this one's memory without its autograd history (stop_gradient=True).")
      .def("clone", &Tensor::clone, "A copy with its own memory; differentiable (the gradient flows back to this tensor).\n\nExamples:\n    >>> import oar\n    >>> x = oar.to_tensor([1.0, 2.0])\n    >>> y = x.clone()\n    >>> y[0] = 5.0\n    >>> x.numpy()\n    array([1., 2.], dtype=float32)")
      .def("copy_", [](Tensor& t, const Tensor& src, bool) {
        t.copy_(src);
        return t;
      }, nb::arg("src"), nb::arg("blocking") = true,
      "Copies src's values (broadcast to this shape) into this tensor in place and returns it.\n\n"
      "Examples:\n    >>> import oar\n    >>> x = oar.zeros([2, 2])\n    >>> _ = x.copy_(oar.to_tensor([1.0, 2.0]))\n    >>> x.numpy()\n    array([[1., 2.],\n           [1., 2.]], dtype=float32)")
      .def("_backward", [](const Tensor& t, nb::handle grad, bool retain) {
        t.backward(grad.is_none() ? Tensor() : nb::cast<Tensor>(grad), retain);
      }, nb::arg("grad_tensor").none(), nb::arg("retain_graph") = false)
      .def("clear_grad", &Tensor::clear_grad, nb::arg("set_to_zero") = true,
           "Clears the gradient: zeros it in place (set_to_zero=True, the default) or drops it.")
      .def("clear_gradient", &Tensor::clear_grad, nb::arg("set_to_zero") = true,
           "The same as clear_grad (Paddle's older name).")
      .def("retain_grads", &Tensor::retain_grads,
           "Keeps the gradient of this non-leaf tensor in .grad after backward (leaves always keep theirs).")
      .def("_register_hook", [](const Tensor& t, nb::callable fn) {
        // The callable may die on a thread without the GIL (inside backward): take it there.
        std::shared_ptr<nb::callable> hook(new nb::callable(fn), [](nb::callable* p) {
          if (!Py_IsInitialized()) return;
          nb::gil_scoped_acquire gil;
          delete p;
        });
        return t.register_hook([hook](const Tensor& g) -> Tensor {
          nb::gil_scoped_acquire gil;
          nb::object r = (*hook)(g);
          return r.is_none() ? Tensor() : nb::cast<Tensor>(r);
        });
      })
      .def("_remove_hook", &Tensor::remove_hook)
      .def("__len__", [](const Tensor& t) {
        OAR_ENFORCE(t.ndim() > 0, TypeMismatch, "len() of a 0-D tensor");
        return t.shape()[0];
      })
      .def("__bool__", [](const Tensor& t) {
        OAR_ENFORCE_ARG(t.numel() == 1, "The truth value of a tensor with ", t.numel(),
                        " elements is ambiguous; use any() or all()");
        return t.item<bool>();
      })
      .def("__nonzero__", [](nb::handle t) { return nb::bool_(t); })  // Python 2's __bool__, in Paddle's Tensor
      .def("__float__", [](const Tensor& t) { return t.item<double>(); })
      .def("__int__", [](const Tensor& t) { return t.item<int64_t>(); })
      .def("__long__", [](const Tensor& t) { return t.item<int64_t>(); })
      .def("__index__", [](const Tensor& t) {
        OAR_ENFORCE(is_integral(t.dtype()) && t.numel() == 1, TypeMismatch,
                    "only a one-element integer tensor can be used as an index");
        return t.item<int64_t>();
      })
      .def("__hash__", [](const Tensor& t) { return reinterpret_cast<intptr_t>(t.impl()); })
      .def("__neg__", [](const Tensor& t) { return neg(t); })
      .def("__pos__", [](nb::handle self) {  // +x is x itself, as Paddle's
        OAR_ENFORCE(nb::cast<const Tensor&>(self).dtype() != DType::Bool, TypeMismatch,
                    "The `+` operator, on a bool tensor is not supported.");
        return nb::borrow(self);
      })
      .def("__abs__", [](const Tensor& t) { return abs(t); })
      .def("__invert__", [](const Tensor& t) {
        return t.dtype() == DType::Bool ? logical_not(t) : bitwise_not(t);
      })
      .def("__pow__", [](const Tensor& x, nb::handle o) { return power(x, o); })
      .def("__rpow__", [](const Tensor& x, nb::handle o) { return binary_op(x, o, &elementwise_pow, true); })
      .def("__matmul__", [](const Tensor& x, nb::handle o) { return matmul(x, as_tensor(o)); })
      .def("__rmatmul__", [](const Tensor& x, nb::handle o) { return matmul(as_tensor(o), x); })
      .def("__array__", [](const Tensor& t, nb::handle dtype, nb::handle) {
        nb::object a = to_numpy(t);
        return dtype.is_none() ? a : a.attr("astype")(dtype);
      }, nb::arg("dtype").none() = nb::none(), nb::arg("copy").none() = nb::none())
      .def("__dlpack__", [](const Tensor& t, nb::handle) { return export_dlpack(t); },
           nb::arg("stream").none() = nb::none())
      .def("__dlpack_device__", [](const Tensor& t) {
        const auto [type, id] = dlpack_device(t.place());
        return nb::make_tuple(type, id);
      });

#define OAR_BINARY(PY, FN)                                                                   \
  cls.def(PY, [](const Tensor& x, nb::handle o) { return binary_op(x, o, &FN, false); });
#define OAR_RBINARY(PY, FN)                                                                  \
  cls.def(PY, [](const Tensor& x, nb::handle o) { return binary_op(x, o, &FN, true); });
  OAR_BINARY("__add__", add) OAR_RBINARY("__radd__", add)
  OAR_BINARY("__sub__", subtract) OAR_RBINARY("__rsub__", subtract)
  OAR_BINARY("__mul__", multiply) OAR_RBINARY("__rmul__", multiply)
  OAR_BINARY("__truediv__", divide) OAR_RBINARY("__rtruediv__", divide)
  OAR_BINARY("__floordiv__", floor_divide) OAR_RBINARY("__rfloordiv__", floor_divide)
  OAR_BINARY("__mod__", remainder) OAR_RBINARY("__rmod__", remainder)
  OAR_BINARY("__eq__", equal) OAR_BINARY("__ne__", not_equal)
  OAR_BINARY("__lt__", less_than) OAR_BINARY("__le__", less_equal)
  OAR_BINARY("__gt__", greater_than) OAR_BINARY("__ge__", greater_equal)
  OAR_BINARY("__and__", bitwise_and) OAR_RBINARY("__rand__", bitwise_and)
  OAR_BINARY("__or__", bitwise_or) OAR_RBINARY("__ror__", bitwise_or)
  OAR_BINARY("__xor__", bitwise_xor) OAR_RBINARY("__rxor__", bitwise_xor)
  OAR_BINARY("__lshift__", shift_left) OAR_RBINARY("__rlshift__", shift_left)
  OAR_BINARY("__rshift__", shift_right) OAR_RBINARY("__rrshift__", shift_right)
  // Python 2's names, which Paddle's Tensor still has.
  OAR_BINARY("__div__", divide) OAR_RBINARY("__rdiv__", divide)
#undef OAR_BINARY
#undef OAR_RBINARY

  // Array -> tensor. copy=False shares memory (from_dlpack); the default copies (to_tensor).
  // A DLPack capsule or an object with __dlpack__ -> a tensor sharing its memory, on its device.
  m.def("_from_dlpack", [](nb::ndarray<> a) { return view_of_dlpack(a, place_of_dlpack(a.device_type(), a.device_id())); },
        nb::arg("dlpack"));
  m.def("_from_array", [](ArrayIn a, bool copy) {
    Tensor view = view_of_array(a);
    if (!copy) return view;
    Tensor out = Tensor::make(view.shape(), view.dtype());
    kernels::copy(view, out);
    return out;
  }, nb::arg("array"), nb::arg("copy") = true);
}

}  // namespace oar::python
