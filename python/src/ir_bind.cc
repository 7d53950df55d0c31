// Bindings of the IR (programs, the tracer that builds them from op calls) and the executor:
// the C++ side of oar.static, oar.jit and oar.inference.
#include <nanobind/stl/complex.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/unordered_map.h>

#include <algorithm>
#include <complex>
#include <unordered_set>

#include "bind_common.h"
#include "oar/ir/op_registry.h"
#include "oar/ir/parser.h"
#include "oar/ir/prune.h"
#include "oar/jit/model_file.h"
#include "oar/pass/fusion_passes.h"
#include "oar/ir/tracer.h"
#include "oar/ir/verifier.h"
#include "oar/runtime/executor.h"

namespace oar::python {

namespace {

using ir::Program;
using ir::Tracer;
using ir::Value;

// The index of `t`'s value among its program's values (Program::values order).
int64_t value_index(const Tensor& t) {
  OAR_ENFORCE(t.defined() && t.is_symbolic(), InvalidArgument,
              "this tensor is not a value of a static program (it holds data); fetch values returned by ops "
              "applied to static.data inputs");
  const ir::TracedValue* bound = ir::traced(t);
  auto values = bound->program->values();
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] == bound->value) return static_cast<int64_t>(i);
  OAR_THROW(NotFound, "this tensor's value is no longer in its program (a pass removed it)");
}

// Names of the parameters `t` depends on (its value's producers, transitively, including
// values read inside regions).
std::vector<std::string> parameters_reaching(const Tensor& t) {
  value_index(t);  // checks that t is symbolic
  std::vector<std::string> out;
  std::unordered_set<const ir::Operation*> seen;
  std::vector<const Value*> work{ir::traced(t)->value};
  auto visit_op = [&](const ir::Operation* op, auto& self) -> void {
    if (!op || !seen.insert(op).second) return;
    if (op->name() == "parameter") out.push_back(op->attr("name")->as_string("name"));
    for (Value* v : op->operands()) work.push_back(v);
    for (auto& r : op->regions())
      for (auto& b : r->blocks())
        for (auto& inner : b->ops()) self(inner.get(), self);
  };
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    if (!v->is_block_argument()) visit_op(v->defining_op(), visit_op);
  }
  return out;
}

ir::AttributeMap attributes_from(const nb::dict& d) {
  ir::AttributeMap out;
  for (auto [k, v] : d) {
    std::string name = nb::cast<std::string>(k);
    if (v.is_none()) out[name] = ir::Attribute::none();
    else if (PyBool_Check(v.ptr())) out[name] = ir::Attribute::boolean(nb::cast<bool>(v));
    else if (PyLong_Check(v.ptr())) out[name] = ir::Attribute::integer(nb::cast<int64_t>(v));
    else if (PyFloat_Check(v.ptr())) out[name] = ir::Attribute::floating(nb::cast<double>(v));
    else if (PyUnicode_Check(v.ptr())) out[name] = ir::Attribute::string(nb::cast<std::string>(v));
    else out[name] = ir::Attribute::int_array(nb::cast<std::vector<int64_t>>(v));
  }
  return out;
}

// A structured view of a program for exporters written in Python (oar.onnx): each op as a dict
// {"name", "operands": [[value id, ...] per slot], "results": [(id, dtype, shape)], "attrs",
// "regions": [[{"args": [(id, dtype, shape)], "ops": [...]}]]}. Value ids are unique in the program.
class ProgramDescriber {
 public:
  nb::list block(const ir::Block& b) {
    nb::list ops;
    for (auto& op : b.ops()) ops.append(describe(*op));
    return ops;
  }

 private:
  int64_t id(const Value* v) { return ids_.emplace(v, static_cast<int64_t>(ids_.size())).first->second; }
  nb::tuple typed(const Value* v) {
    return nb::make_tuple(id(v), std::string(dtype_name(v->type().dtype)), nb::cast(v->type().shape));
  }
  static nb::object attribute(const ir::Attribute& a) {
    switch (a.kind()) {
      case ir::AttrKind::None: return nb::none();
      case ir::AttrKind::Bool: return nb::cast(a.as_bool());
      case ir::AttrKind::Int: return nb::cast(a.as_int());
      case ir::AttrKind::Float: return nb::cast(a.as_float());
      case ir::AttrKind::Str: return nb::cast(a.as_string());
      case ir::AttrKind::DType: return nb::cast(std::string(dtype_name(a.as_dtype())));
      case ir::AttrKind::IntArray: return nb::cast(a.as_int_array());
      case ir::AttrKind::FloatArray: return nb::cast(a.as_float_array());
      case ir::AttrKind::Scalar: {
        const Scalar& s = a.as_scalar();
        if (s.kind() == Scalar::Kind::Bool) return nb::cast(s.to<bool>());
        if (s.kind() == Scalar::Kind::Int) return nb::cast(s.to<int64_t>());
        if (s.kind() == Scalar::Kind::Float) return nb::cast(s.to<double>());
        return nb::cast(s.to<std::complex<double>>());
      }
    }
    return nb::none();
  }
  nb::dict describe(const ir::Operation& op) {
    nb::dict d;
    d["name"] = op.name();
    nb::list operands;
    for (size_t s = 0; s < op.num_slots(); ++s) {
      nb::list slot;
      for (Value* v : op.slot(s)) slot.append(id(v));
      operands.append(slot);
    }
    d["operands"] = operands;
    nb::list results;
    for (Value* v : op.results()) results.append(typed(v));
    d["results"] = results;
    nb::dict attrs;
    for (auto& [k, a] : op.attributes()) attrs[k.c_str()] = attribute(a);
    d["attrs"] = attrs;
    nb::list regions;
    for (auto& r : op.regions()) {
      nb::list blocks;
      for (auto& b : r->blocks()) {
        nb::dict bd;
        nb::list args;
        for (Value* v : b->arguments()) args.append(typed(v));
        bd["args"] = args;
        bd["ops"] = block(*b);
        blocks.append(bd);
      }
      regions.append(blocks);
    }
    d["regions"] = regions;
    return d;
  }
  std::unordered_map<const Value*, int64_t> ids_;
};

}  // namespace

void bind_ir(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_ir", "static programs: the IR, the tracer and the executor");

  nb::class_<Program>(m, "Program")
      .def("__init__", [](Program* p) { new (p) Program(); })
      .def_static("parse", [](const std::string& text) { return std::shared_ptr<Program>(ir::parse(text)); },
                  nb::arg("text"))
      .def("__str__", &Program::str)
      .def("verify", [](const Program& p) { ir::verify(p); })
      .def("parameter_names", &Program::parameter_names)
      .def("input_names", &Program::input_names)
      .def("op_names", [](const Program& p) {
        std::vector<std::string> out;
        for (auto* op : p.all_ops()) out.push_back(op->name());
        return out;
      })
      .def("num_ops", [](const Program& p) { return p.all_ops().size(); })
      .def("describe", [](const Program& p) { return ProgramDescriber().block(p.block()); })
      // The type of each data op, by name: (dtype name, shape with -1).
      .def("input_types", [](const Program& p) {
        std::vector<std::tuple<std::string, std::string, std::vector<int64_t>>> out;
        for (auto* op : p.all_ops())
          if (op->name() == "data")
            out.emplace_back(op->attr("name")->as_string("name"), dtype_name(op->result(0)->type().dtype),
                             op->result(0)->type().shape);
        return out;
      })
      // For clone(for_test=True): every op with attribute `name` gets `value` (e.g. training=false).
      .def("set_attribute_everywhere", [](Program& p, const std::string& name, bool value) {
        int64_t n = 0;
        for (auto* op : p.all_ops())
          if (op->attr(name) && op->attr(name)->kind() == ir::AttrKind::Bool) {
            op->set_attr(name, ir::Attribute::boolean(value));
            ++n;
          }
        return n;
      });

  m.def("value_index", &value_index, nb::arg("tensor"));
  m.def("parameters_reaching", &parameters_reaching, nb::arg("tensor"));
  m.def("program_of", [](const Tensor& t) {
    value_index(t);
    return ir::traced(t)->program;
  });
  // (defining op name or "block_argument", result index) for Value's repr.
  m.def("value_info", [](const Tensor& t) {
    value_index(t);
    const Value* v = ir::traced(t)->value;
    return std::make_pair(v->is_block_argument() ? std::string("block_argument") : v->defining_op()->name(),
                          static_cast<int64_t>(v->index()));
  });
  m.def("is_symbolic", [](const Tensor& t) { return t.defined() && t.is_symbolic(); });

  nb::class_<Tracer>(m, "Tracer")
      .def("__init__", [](Tracer* t, std::shared_ptr<Program> p) { new (t) Tracer(std::move(p)); }, nb::arg("program"))
      .def_prop_ro("program", [](const Tracer& t) { return t.program_ptr(); })
      .def("data", [](Tracer& t, const std::string& name, DType dtype, std::vector<int64_t> shape) {
        return t.data(name, dtype, shape);
      }, nb::arg("name"), nb::arg("dtype"), nb::arg("shape"))
      .def("record", [](Tracer& t, const std::string& op, const std::vector<std::vector<Tensor>>& slots,
                        const nb::dict& attrs) { return t.record(op, slots, attributes_from(attrs)); },
           nb::arg("op"), nb::arg("slots"), nb::arg("attrs") = nb::dict())
      .def("cond", [](Tracer& t, const Tensor& pred, nb::callable then_fn, nb::callable else_fn) {
        auto call = [](nb::callable fn) {
          return [fn]() { return nb::cast<std::vector<Tensor>>(fn()); };
        };
        return t.cond(pred, call(then_fn), call(else_fn));
      }, nb::arg("pred"), nb::arg("then_fn"), nb::arg("else_fn"))
      .def("while_loop", [](Tracer& t, const std::vector<Tensor>& inits, nb::callable cond_fn, nb::callable body_fn) {
        return t.while_loop(
            inits, [cond_fn](const std::vector<Tensor>& v) { return nb::cast<Tensor>(cond_fn(v)); },
            [body_fn](const std::vector<Tensor>& v) { return nb::cast<std::vector<Tensor>>(body_fn(v)); });
      }, nb::arg("inits"), nb::arg("cond_fn"), nb::arg("body_fn"))
      .def("captured", [](const Tracer& t) { return t.captured(); })
      .def("set_location_provider", [](Tracer& t, nb::object fn) {
        if (fn.is_none()) return t.set_location_provider(nullptr);
        nb::callable f = nb::cast<nb::callable>(fn);
        t.set_location_provider([f]() { return nb::cast<std::string>(f()); });
      }, nb::arg("fn").none());

  // The thread's active tracer (None: ops run eagerly). Returns nothing; the Python layer keeps
  // the stack and the references.
  m.def("set_tracer", [](Tracer* t) { ir::exchange_current_tracer(t); }, nb::arg("tracer").none());

  nb::class_<runtime::Executor>(m, "Executor")
      .def("__init__", [](runtime::Executor* e, std::shared_ptr<Program> p, const std::string& place) {
             runtime::ExecutorOptions options;
             options.place = parse_place(place, "Executor");
             new (e) runtime::Executor(std::move(p), options);
           }, nb::arg("program"), nb::arg("place") = "cpu")
      .def("run", [](const runtime::Executor& e, const runtime::NamedTensors& feeds,
                     const runtime::NamedTensors& params, const std::vector<int64_t>& fetch, bool autograd) {
        const auto& values = e.values();
        std::vector<const Value*> targets;
        for (int64_t i : fetch) {
          OAR_ENFORCE(i >= 0 && i < static_cast<int64_t>(values.size()), InvalidArgument,
                      "Executor.run: fetch target #", i, " is not a value of this program (it has ", values.size(),
                      " values); fetch values of the program you run or of the program it was cloned from");
          targets.push_back(values[i]);
        }
        runtime::RunStats stats;
        std::vector<Tensor> out = e.run(feeds, params, targets, &stats, autograd);
        nb::dict s;
        s["peak_bytes"] = stats.peak_bytes;
        s["ops_run"] = stats.ops_run;
        return std::make_pair(out, s);
      }, nb::arg("feeds"), nb::arg("params"), nb::arg("fetch"), nb::arg("autograd") = false);

  // A symbolic tensor for value #index of the tracer's program (to add ops to a clone).
  m.def("symbolic_at", [](Tracer& t, int64_t index) {
    auto values = t.program().values();
    OAR_ENFORCE(index >= 0 && index < static_cast<int64_t>(values.size()), OutOfRange, "symbolic_at: index ", index,
                " out of range for ", values.size(), " values");
    return t.symbolic(values[index]);
  }, nb::arg("tracer"), nb::arg("index"));
  m.def("prune", [](Program& p, const std::vector<int64_t>& roots) {
    auto values = p.values();
    std::vector<Value*> keep;
    for (int64_t i : roots) keep.push_back(values.at(i));
    return ir::prune(p, keep);
  }, nb::arg("program"), nb::arg("roots"));
  m.def("save_model", [](const std::string& prefix, const Program& p, const std::map<std::string, Tensor>& params,
                          const std::map<std::string, std::string>& metadata) {
    return jit::save_model(prefix, p, params, metadata);
  }, nb::arg("prefix"), nb::arg("program"), nb::arg("params"), nb::arg("metadata") = std::map<std::string, std::string>());
  m.def("ops_without_paddle_form", &jit::ops_without_paddle_form, nb::arg("program"));
  m.def("load_model", [](const std::string& model_file, const std::string& params_file) {
    jit::Model model = jit::load_model(model_file, params_file);
    return std::make_tuple(model.program, model.params, model.metadata);
  }, nb::arg("model_file"), nb::arg("params_file"));
  // The predictor's inference pipeline on `program` in place; returns the weights it reads
  // (folded ones included) and the per-pass timing report.
  m.def("optimize_for_inference", [](Program& p, const std::map<std::string, Tensor>& params) {
    pass::ParameterStore store(params.begin(), params.end());
    pass::PassManager pm;
    pass::add_inference_passes(pm, &store);
    pm.run(p);
    std::map<std::string, Tensor> used;
    for (const std::string& name : p.parameter_names()) used[name] = store.at(name);
    return std::make_pair(used, pm.timing_report());
  }, nb::arg("program"), nb::arg("params"));
  m.def("output_names", [](const Program& p) {
    std::vector<std::string> out;
    for (auto& [name, v] : p.outputs()) out.push_back(name);
    return out;
  });
  m.def("output_indices", [](const Program& p) {
    auto values = p.values();
    std::vector<int64_t> out;
    for (auto& [name, v] : p.outputs())
      out.push_back(std::find(values.begin(), values.end(), v) - values.begin());
    return out;
  });
}

}  // namespace oar::python
