// oar._C._custom_op_*: loading libraries of custom C++ ops and calling them
// (oar/extension/custom_op.h), for python/oar/utils/cpp_extension.
#include <nanobind/stl/string.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bind_common.h"
#include "oar/extension/custom_op.h"
#include "oar/ir/tracer.h"

namespace oar::python {

namespace {

// A Python value as the attribute type the op declares ("scale: float", "axes: std::vector<int>").
std::any attribute(const std::string& op, const std::string& declaration, nb::handle v) {
  const std::string type = extension::attr_type(declaration), name = extension::attr_name(declaration);
  try {
    if (type == "bool") return nb::cast<bool>(v);
    if (type == "int" || type == "int64_t") return nb::cast<int64_t>(v);
    if (type == "float" || type == "double") return nb::cast<double>(v);
    if (type == "std::string") return nb::cast<std::string>(v);
    if (type == "std::vector<int>" || type == "std::vector<int64_t>") return nb::cast<std::vector<int64_t>>(v);
    if (type == "std::vector<float>" || type == "std::vector<double>") return nb::cast<std::vector<double>>(v);
    if (type == "std::vector<std::string>") return nb::cast<std::vector<std::string>>(v);
  } catch (const nb::cast_error&) {
    OAR_THROW(TypeMismatch, op, ": attribute '", name, "' must be ", type, ", got ",
              nb::cast<std::string>(nb::str(v.type().attr("__name__"))));
  }
  OAR_THROW(Unimplemented, op, ": attribute '", name, "' has type '", type, "', which custom ops do not support");
}

// A Python callable that the op's kernel (maybe on another thread, inside the executor or the
// predictor) calls with the GIL taken; released with the GIL too.
std::shared_ptr<nb::callable> python_callable(nb::callable fn) {
  return std::shared_ptr<nb::callable>(new nb::callable(std::move(fn)), [](nb::callable* p) {
    if (!Py_IsInitialized()) return;
    nb::gil_scoped_acquire gil;
    delete p;
  });
}

std::vector<Tensor> tensors_of(const std::string& op, nb::handle r, size_t expected) {
  std::vector<Tensor> out;
  if (nb::isinstance<Tensor>(r)) out.push_back(nb::cast<Tensor>(r));
  else if (nb::isinstance<nb::sequence>(r) && !nb::isinstance<nb::str>(r))
    for (nb::handle v : nb::cast<nb::sequence>(r)) {
      if (v.is_none()) {  // a grad kernel's "no gradient for this input"
        out.emplace_back();
        continue;
      }
      OAR_ENFORCE(nb::isinstance<Tensor>(v), TypeMismatch, op, ": the Python function must return Tensors, got ",
                  nb::cast<std::string>(nb::str(v.type().attr("__name__"))));
      out.push_back(nb::cast<Tensor>(v));
    }
  else
    OAR_THROW(TypeMismatch, op, ": the Python function must return a Tensor or a list of Tensors, got ",
              nb::cast<std::string>(nb::str(r.type().attr("__name__"))));
  OAR_ENFORCE(out.size() == expected, InvalidArgument, op, ": the Python function returned ", out.size(),
              " tensors, the op declares ", expected, " outputs");
  return out;
}

// Fills `meta` as an op whose kernel is the Python `kernel`, called with one argument per input
// (a Tensor, or None for an absent one) and returning the outputs; `infer_meta(shapes, dtypes)`
// (one entry per input) gives (shapes, dtypes) of the outputs.
// The registered Python ops, whose callables are dropped at exit (_forget_python_ops) while the
// interpreter can still release them.
std::vector<extension::OpMeta*>& python_ops() {
  static std::vector<extension::OpMeta*> ops;
  return ops;
}

void fill_python_op(extension::OpMeta& meta, std::vector<std::string> inputs, std::vector<std::string> outputs,
                    nb::callable kernel, nb::object infer_meta, bool side_effects) {
  meta.inputs = std::move(inputs);
  meta.outputs = std::move(outputs);
  meta.library = "<python>";
  meta.side_effects = side_effects;
  python_ops().push_back(&meta);
  auto fn = python_callable(std::move(kernel));
  const std::string name = meta.name;
  const size_t n_out = meta.outputs.size();
  meta.kernel = [fn, name, n_out](const extension::KernelContext& ctx) {
    nb::gil_scoped_acquire gil;
    nb::list args;
    for (const auto& slot : ctx.inputs)  // absent: an optional input, or the gradient of an unused output
      args.append(slot.empty() || !slot[0].defined() ? nb::none() : nb::cast(slot[0]));
    // Fresh handles: an output that is an input (Print passes its input through) must not take
    // over the input's autograd history when the op is recorded.
    std::vector<Tensor> outs = tensors_of(name, (*fn)(*args), n_out);
    for (Tensor& t : outs)
      if (t.defined()) t = t.detach();
    return outs;
  };
  if (infer_meta.is_none()) return;
  auto meta_fn = python_callable(nb::cast<nb::callable>(infer_meta));
  auto call = [meta_fn, name](const extension::MetaContext& m) {
    nb::gil_scoped_acquire gil;
    nb::list shapes, dtypes;
    for (size_t i = 0; i < m.shapes.size(); ++i) {
      shapes.append(m.shapes[i].empty() ? nb::none() : nb::cast(m.shapes[i][0]));
      dtypes.append(m.dtypes[i].empty() ? nb::none() : nb::cast(m.dtypes[i][0]));
    }
    auto r = nb::cast<std::pair<std::vector<std::vector<int64_t>>, std::vector<DType>>>((*meta_fn)(shapes, dtypes));
    return r;
  };
  meta.infer_shape = [call](const extension::MetaContext& m) { return call(m).first; };
  meta.infer_dtype = [call](const extension::MetaContext& m) { return call(m).second; };
}

}  // namespace

void bind_custom_op(nb::module_& m) {
  // An op whose kernel is a Python function (static.Print, static.nn.static_pylayer): eager calls
  // run it through _custom_op_run, programs record it and the executor calls back into Python.
  // With grad_kernel, "<name>_grad" is registered too: it gets the inputs, the outputs and the
  // outputs' gradients, and returns one gradient per input (None for none).
  m.def("_register_python_op", [](const std::string& name, std::vector<std::string> inputs,
                                  std::vector<std::string> outputs, nb::callable kernel, nb::object infer_meta,
                                  nb::object grad_kernel, bool side_effects) {
    extension::Registry& reg = extension::Registry::global();
    OAR_ENFORCE(reg.find(name) == nullptr, InvalidArgument, "an op named '", name, "' is already registered");
    std::vector<std::string> grad_inputs = inputs, grad_outputs;
    for (const std::string& o : outputs) grad_inputs.push_back(o);
    for (const std::string& o : outputs) grad_inputs.push_back(o + extension::kGradSuffix);
    for (const std::string& i : inputs) grad_outputs.push_back(i + extension::kGradSuffix);
    fill_python_op(reg.add(name), inputs, outputs, std::move(kernel), infer_meta, side_effects);
    if (!grad_kernel.is_none())
      fill_python_op(reg.add(name + "_grad"), grad_inputs, grad_outputs, nb::cast<nb::callable>(grad_kernel),
                     nb::none(), side_effects);
    extension::register_ir_ops();
  }, nb::arg("name"), nb::arg("inputs"), nb::arg("outputs"), nb::arg("kernel"), nb::arg("infer_meta").none(),
     nb::arg("grad_kernel").none(), nb::arg("side_effects") = false);
  // At exit: the Python ops lose their callables (a later call raises "has no kernel").
  m.def("_forget_python_ops", [] {
    for (extension::OpMeta* op : python_ops()) {
      op->kernel = nullptr;
      op->infer_shape = nullptr;
      op->infer_dtype = nullptr;
    }
  });
  m.def("_custom_op_load_library", &extension::load_library, nb::arg("path"));
  // (inputs, outputs, attrs) as declared.
  m.def("_custom_op_info", [](const std::string& name) {
    const extension::OpMeta* op = extension::Registry::global().find(name);
    OAR_ENFORCE(op != nullptr, NotFound, "custom op '", name, "' is not registered");
    return std::make_tuple(op->inputs, op->outputs, op->attrs);
  }, nb::arg("name"));
  // inputs: one entry per declared input (a Tensor, None for an absent optional, a list for a list
  // input); attrs: one Python value per declared attribute.
  m.def("_custom_op_run", [](const std::string& name, const nb::list& inputs, const nb::list& attrs) {
    const extension::OpMeta* op = extension::Registry::global().find(name);
    OAR_ENFORCE(op != nullptr, NotFound, "custom op '", name, "' is not registered");
    OAR_ENFORCE(attrs.size() == op->attrs.size(), InvalidArgument, name, ": expected ", op->attrs.size(),
                " attributes, got ", attrs.size());
    extension::KernelContext ctx;
    for (nb::handle v : inputs) {
      ctx.inputs.emplace_back();
      if (v.is_none()) continue;
      if (nb::isinstance<Tensor>(v)) ctx.inputs.back().push_back(nb::cast<Tensor>(v));
      else ctx.inputs.back() = nb::cast<std::vector<Tensor>>(v);
    }
    for (size_t k = 0; k < attrs.size(); ++k) ctx.attrs.push_back(attribute(name, op->attrs[k], attrs[k]));
    if (ir::tracing_active()) return extension::run(name, ctx);  // the tracer calls back into Python
    nb::gil_scoped_release release;
    return extension::run(name, ctx);
  }, nb::arg("name"), nb::arg("inputs"), nb::arg("attrs"));
}

}  // namespace oar::python
