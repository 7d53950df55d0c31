// Shared pieces of the Python bindings: nanobind includes and type casters that accept the
// argument forms Paddle users write (axis=1 or [0, 1], dtype='float32' or oar.float32, 2.5).
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "oar/core/int_array.h"
#include "oar/core/scalar.h"
#include "oar/core/tensor.h"

namespace nb = nanobind;

namespace oar::python {
// Python value -> Scalar; false when `h` is not a number (or one-element tensor).
bool scalar_from_python(nb::handle h, Scalar& out);
// Python value -> DType: oar dtype, str, numpy dtype or type.
bool dtype_from_python(nb::handle h, DType& out);
void bind_generated_ops(nb::module_& m);
void bind_tensor(nb::module_& m);
void bind_autograd(nb::module_& m);
void bind_optimizer(nb::module_& m);  // optimizer_bind.cc
void bind_ir(nb::module_& m);         // ir_bind.cc
void bind_inference(nb::module_& m);  // inference_bind.cc
void bind_device(nb::module_& m);     // device_bind.cc
void bind_distributed(nb::module_& m);  // distributed_bind.cc
}  // namespace oar::python

namespace nanobind::detail {

// Casters run in noexcept code: an exception escaping one (a static program's value read for its
// data, a failed cast) would terminate the process, so each turns any exception into "does not
// convert" (nanobind then raises TypeError naming the function and the argument types).
template <typename Fn>
bool convert_or_refuse(Fn&& fn) noexcept {
  try {
    return fn();
  } catch (...) {
    PyErr_Clear();
    return false;
  }
}

template <> struct type_caster<oar::IntArray> {
  NB_TYPE_CASTER(oar::IntArray, const_name("IntArray"))
  bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
    return convert_or_refuse([&] { return convert(src); });
  }
  bool convert(handle src) {
    value.clear();
    if (src.is_none()) return true;
    if (PyLong_Check(src.ptr()) && !PyBool_Check(src.ptr())) {
      value.push_back(PyLong_AsLongLong(src.ptr()));
      return !PyErr_Occurred();
    }
    if (isinstance<oar::Tensor>(src)) {
      const oar::Tensor& t = cast<const oar::Tensor&>(src);
      if (!oar::is_integral(t.dtype())) return false;
      for (int64_t v : t.to_vector<int64_t>()) value.push_back(v);
      return true;
    }
    if (!PyList_Check(src.ptr()) && !PyTuple_Check(src.ptr())) {
      if (PyIndex_Check(src.ptr())) {  // numpy integers
        value.push_back(PyLong_AsLongLong(src.ptr()));
        return !PyErr_Occurred();
      }
      return false;
    }
    PyObject* seq = src.ptr();
    const Py_ssize_t n = PySequence_Size(seq);
    for (Py_ssize_t i = 0; i < n; ++i) {
      object item = steal(PySequence_GetItem(seq, i));
      if (isinstance<oar::Tensor>(item)) {
        const oar::Tensor& t = cast<const oar::Tensor&>(item);
        if (t.numel() != 1 || !oar::is_integral(t.dtype())) return false;
        value.push_back(t.item<int64_t>());
        continue;
      }
      if (PyBool_Check(item.ptr()) || !PyIndex_Check(item.ptr())) return false;
      value.push_back(PyLong_AsLongLong(item.ptr()));
      if (PyErr_Occurred()) { PyErr_Clear(); return false; }
    }
    return true;
  }
  static handle from_cpp(const oar::IntArray& v, rv_policy, cleanup_list*) noexcept {
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(v.size()));
    for (size_t i = 0; i < v.size(); ++i) PyList_SET_ITEM(list, i, PyLong_FromLongLong(v[i]));
    return list;
  }
};

template <> struct type_caster<oar::Scalar> {
  NB_TYPE_CASTER(oar::Scalar, const_name("Scalar"))
  bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
    return convert_or_refuse([&] { return oar::python::scalar_from_python(src, value); });
  }
  static handle from_cpp(const oar::Scalar& s, rv_policy, cleanup_list*) noexcept {
    switch (s.kind()) {
      case oar::Scalar::Kind::Bool: return PyBool_FromLong(s.to<bool>());
      case oar::Scalar::Kind::Int: return PyLong_FromLongLong(s.to<int64_t>());
      default: return PyFloat_FromDouble(s.to<double>());
    }
  }
};

template <> struct type_caster<oar::DType> {
  NB_TYPE_CASTER(oar::DType, const_name("dtype"))
  bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
    return convert_or_refuse([&] { return oar::python::dtype_from_python(src, value); });
  }
  static handle from_cpp(oar::DType d, rv_policy, cleanup_list*) noexcept;
};

}  // namespace nanobind::detail
