// oar._C: the extension module. Error translation, dtypes, core queries, then the bindings.
#include <cstring>

#include "bind_common.h"
#include "oar/core/cpu_isa.h"
#include "oar/core/allocator.h"
#include "oar/core/parallel.h"
#include "oar/core/random.h"

namespace oar::python {

void bind_amp(nb::module_& m);  // amp_bind.cc (declared here, not in bind_common.h, to keep that header stable)
void bind_profiler(nb::module_& m);  // profiler_bind.cc
void bind_custom_op(nb::module_& m);  // custom_op_bind.cc

namespace {
// Python dtype objects (oar.float32, ...) registered by python/oar/framework/dtype.py.
// Raw references, deliberately never released: they must outlive interpreter teardown.
PyObject* g_dtype_objects[kNumDTypes] = {};

PyObject* exception_for(ErrorKind k) {
  switch (k) {
    case ErrorKind::InvalidArgument: return PyExc_ValueError;
    case ErrorKind::OutOfRange: return PyExc_IndexError;
    case ErrorKind::Unimplemented: return PyExc_NotImplementedError;
    case ErrorKind::TypeMismatch: return PyExc_TypeError;
    case ErrorKind::ResourceExhausted: return PyExc_MemoryError;
    case ErrorKind::External: return PyExc_OSError;
    default: return PyExc_RuntimeError;
  }
}
}  // namespace

bool dtype_from_python(nb::handle h, DType& out) {
  if (h.is_none()) return false;
  if (nb::hasattr(h, "_oar_code")) {
    const int code = nb::cast<int>(h.attr("_oar_code"));
    // uint32, uint64, pstring and raw are names without tensors (as in Paddle's CPU build).
    OAR_ENFORCE(code >= 0 && code < kNumDTypes, InvalidArgument, "Not supported numpy dtype ",
                nb::cast<std::string>(h.attr("name")), ": oar has no tensors of this dtype (nor has Paddle's CPU build)");
    out = static_cast<DType>(code);
    return true;
  }
  try {
    std::string name;
    if (PyUnicode_Check(h.ptr())) {
      name = nb::cast<std::string>(h);
      if (name.rfind("paddle.", 0) == 0) name = name.substr(7);
      if (name.rfind("oar.", 0) == 0) name = name.substr(4);
    } else if (h.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) {
      name = "float32";
    } else if (h.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) {
      name = "int64";
    } else if (h.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) {
      name = "bool";
    } else {
      nb::object np = nb::module_::import_("numpy");
      name = nb::cast<std::string>(np.attr("dtype")(h).attr("name"));
      if (name == "uint16") name = "bfloat16";  // Paddle's numpy view of bfloat16
    }
    out = dtype_from_name(name);
    return true;
  } catch (...) {
    PyErr_Clear();
    return false;
  }
}

bool scalar_from_python(nb::handle h, Scalar& out) {
  PyObject* p = h.ptr();
  if (PyBool_Check(p)) { out = Scalar(p == Py_True); return true; }
  if (PyLong_Check(p)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    if (overflow) return false;
    out = Scalar(static_cast<int64_t>(v));
    return true;
  }
  if (PyFloat_Check(p)) { out = Scalar(PyFloat_AS_DOUBLE(p)); return true; }
  if (PyComplex_Check(p)) {
    out = Scalar(std::complex<double>(PyComplex_RealAsDouble(p), PyComplex_ImagAsDouble(p)));
    return true;
  }
  if (nb::isinstance<Tensor>(h)) {
    const Tensor& t = nb::cast<const Tensor&>(h);
    if (t.numel() != 1) return false;
    if (t.dtype() == DType::Bool) out = Scalar(t.item<bool>());
    else if (is_integral(t.dtype())) out = Scalar(t.item<int64_t>());
    else if (is_complex(t.dtype())) out = Scalar(std::complex<double>(t.item<complex128>()));
    else out = Scalar(t.item<double>());
    return true;
  }
  // NumPy scalars: integers expose __index__, floats __float__.
  if (nb::hasattr(h, "dtype") && !nb::hasattr(h, "shape")) return false;
  if (nb::hasattr(h, "dtype") && nb::cast<size_t>(h.attr("size")) != 1) return false;
  if (PyIndex_Check(p)) {
    out = Scalar(static_cast<int64_t>(PyLong_AsLongLong(p)));
    return !PyErr_Occurred();
  }
  if (nb::hasattr(h, "__float__") && nb::hasattr(h, "dtype")) {
    const std::string kind = nb::cast<std::string>(h.attr("dtype").attr("kind"));
    if (kind == "b") { out = Scalar(PyObject_IsTrue(p) == 1); return true; }
    if (kind == "i" || kind == "u") { out = Scalar(nb::cast<int64_t>(nb::int_(h))); return true; }
    if (kind == "c") return false;
    out = Scalar(PyFloat_AsDouble(p));
    return !PyErr_Occurred();
  }
  return false;
}

}  // namespace oar::python

nb::handle nb::detail::type_caster<oar::DType>::from_cpp(oar::DType d, rv_policy,
                                                         cleanup_list*) noexcept {
  PyObject* o = oar::python::g_dtype_objects[static_cast<int>(d)];
  if (o == nullptr) return PyUnicode_FromString(oar::dtype_name(d));
  Py_INCREF(o);
  return o;
}

NB_MODULE(_C, m) {
  using namespace oar;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const oar::Error& e) {
      PyErr_SetString(oar::python::exception_for(e.kind()), e.what());
    }
  });

  m.def("_register_dtypes", [](std::vector<nb::object> objs) {
    for (size_t i = 0; i < objs.size() && i < static_cast<size_t>(kNumDTypes); ++i)
      oar::python::g_dtype_objects[i] = objs[i].inc_ref().ptr();
  });
  m.def("_dtype_names", [] {
    std::vector<std::string> names;
    for (int i = 0; i < kNumDTypes; ++i) names.push_back(dtype_name(static_cast<DType>(i)));
    return names;
  });
  m.def("get_default_dtype", [] { return default_float_dtype(); });
  m.def("set_default_dtype", [](DType d) { set_default_float_dtype(d); }, nb::arg("d"));
  m.def("set_num_threads", &set_num_threads, nb::arg("n"),
        "Sets the number of CPU threads oar's kernels use (OpenMP).");
  m.def("get_num_threads", &get_num_threads, "The number of CPU threads oar's kernels use.");
  // What this build targets and which vector paths the CPU takes (oar.version.show()).
  m.def("_build_info", [] {
    nb::dict d;
    d["build_target"] = OAR_BUILD_TARGET;
    d["cpu_isa"] = cpu_isa_name(cpu_isa());
    return d;
  });

  // RNG: oar.seed and state for save/restore.
  m.def("seed", [](int64_t s) { default_generator().manual_seed(static_cast<uint64_t>(s)); },
        nb::arg("seed"),
        "Seeds the default random generator, so that random ops repeat their numbers (as paddle.seed).\n\n"
        "Examples:\n    >>> import oar\n    >>> _ = oar.seed(7); a = oar.rand([2]).numpy()\n"
        "    >>> _ = oar.seed(7); b = oar.rand([2]).numpy()\n    >>> bool((a == b).all())\n    True");
  m.def("_get_rng_state", [] {
    Generator& g = default_generator();
    return std::make_tuple(g.seed(), g.offset());
  });
  m.def("_set_rng_state", [](uint64_t seed, uint64_t offset) {
    default_generator().set_state(seed, offset);
  });


  oar::python::bind_tensor(m);
  oar::python::bind_autograd(m);
  oar::python::bind_optimizer(m);
  oar::python::bind_generated_ops(m);
  oar::python::bind_ir(m);
  oar::python::bind_inference(m);
  oar::python::bind_device(m);
  oar::python::bind_distributed(m);
  oar::python::bind_amp(m);
  oar::python::bind_profiler(m);
  oar::python::bind_custom_op(m);
}
