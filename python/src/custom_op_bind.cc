// oar._C._custom_op_*: loading libraries of custom C++ ops and calling them
// (oar/extension/custom_op.h), for python/oar/utils/cpp_extension.
#include <nanobind/stl/string.h>
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

}  // namespace

void bind_custom_op(nb::module_& m) {
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
