// Autograd for Python: backward over several tensors, oar.grad, grad mode, PyLayer nodes.
#include <cctype>
#include <mutex>
#include <unordered_set>

#include <nanobind/stl/vector.h>

#include "bind_common.h"
#include "oar/autograd/engine.h"
#include "oar/autograd/grad_mode.h"
#include "oar/autograd/node.h"
#include "oar/ops/op_helpers.h"

namespace oar::python {

namespace {

std::vector<Tensor> tensors_or_empty(const std::vector<nb::object>& objs) {
  std::vector<Tensor> out;
  for (const auto& o : objs) out.push_back(o.is_none() ? Tensor() : nb::cast<Tensor>(o));
  return out;
}

// A node whose backward is a Python function (oar.autograd.PyLayer).
//
// The node holds that function, which reaches the user's module (its PyLayer class's globals),
// which may hold an output whose history holds the node: a cycle through C++ that Python's
// collector cannot see. Every live node is registered, and interpreter exit (an atexit handler
// of python/oar/autograd/py_layer.py, before modules are torn down) releases their functions, so
// the tensors and functions involved are freed instead of reported as leaked.
class PyLayerNode : public autograd::Node {
 public:
  PyLayerNode(nb::callable backward, std::string name)
      : backward_(std::make_shared<nb::callable>(std::move(backward))), name_(std::move(name)) {
    std::lock_guard<std::mutex> lock(live_mutex());
    live().insert(this);
  }
  ~PyLayerNode() override {
    {
      std::lock_guard<std::mutex> lock(live_mutex());
      live().erase(this);
    }
    if (!Py_IsInitialized() || !backward_) return;
    nb::gil_scoped_acquire gil;
    backward_.reset();
  }
  // Drops every live node's Python function (the caller holds the GIL).
  static void release_all() {
    std::vector<std::shared_ptr<nb::callable>> dropped;  // released outside the lock
    {
      std::lock_guard<std::mutex> lock(live_mutex());
      for (PyLayerNode* n : live()) dropped.push_back(std::move(n->backward_));
    }
  }
  const char* name() const override { return name_.c_str(); }
  autograd::TensorList apply(autograd::TensorList&& grads) override {
    nb::gil_scoped_acquire gil;
    OAR_ENFORCE(backward_ != nullptr, PreconditionNotMet, name_, ".backward: the interpreter is exiting");
    nb::list args;
    for (auto& g : grads) args.append(nb::cast(g));
    nb::object r = (*backward_)(*args);
    autograd::TensorList out;
    if (nb::isinstance<Tensor>(r) || r.is_none()) {
      out.push_back(r.is_none() ? Tensor() : nb::cast<Tensor>(r));
    } else {
      for (nb::handle h : r) out.push_back(h.is_none() ? Tensor() : nb::cast<Tensor>(h));
    }
    OAR_ENFORCE_ARG(out.size() == next_edges.size(), name_, ".backward: returned ", out.size(),
                    " gradients, but forward received ", next_edges.size(), " tensor inputs");
    for (size_t i = 0; i < out.size(); ++i) {
      if (!out[i].defined() || !needs_input_grad(i)) continue;
      const auto& meta = next_edges[i].node->output_meta[next_edges[i].input_nr];
      OAR_ENFORCE_ARG(out[i].shape() == meta.shape, name_, ".backward: gradient ", i,
                      " has shape ", shape_str(out[i].shape()), " but the input has shape ",
                      shape_str(meta.shape));
    }
    return out;
  }
 private:
  static std::mutex& live_mutex() {
    static auto* m = new std::mutex;  // never destroyed: nodes may die during static teardown
    return *m;
  }
  static std::unordered_set<PyLayerNode*>& live() {
    static auto* s = new std::unordered_set<PyLayerNode*>;
    return *s;
  }
  std::shared_ptr<nb::callable> backward_;
  std::string name_;
};

}  // namespace

// A node of the autograd graph as Python sees it (Tensor.grad_fn, as paddle.Tensor.grad_fn):
// named as Paddle names its nodes ("MultiplyGradNode"; a leaf's sink "GradNodeAccumulation").
struct GradNodeHandle {
  std::shared_ptr<autograd::Node> node;
};

std::string paddle_node_name(const autograd::Node& n) {
  std::string op = n.name();
  if (op == "AccumulateGrad") return "GradNodeAccumulation";
  if (op.size() > 5 && op.compare(op.size() - 5, 5, "_grad") == 0) op.resize(op.size() - 5);
  std::string out;
  bool upper = true;
  for (char c : op) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out + "GradNode";
}

void bind_autograd(nb::module_& m) {
  m.def("_run_backward", [](std::vector<Tensor> outputs, std::vector<nb::object> grads,
                            bool retain_graph) {
    nb::gil_scoped_release release;
    autograd::backward(outputs, tensors_or_empty(grads), retain_graph);
  });
  m.def("_grad", [](std::vector<Tensor> outputs, std::vector<Tensor> inputs,
                    std::vector<nb::object> grad_outputs, bool retain_graph, bool create_graph,
                    bool allow_unused) {
    std::vector<Tensor> r;
    {
      nb::gil_scoped_release release;
      r = autograd::grad(outputs, inputs, tensors_or_empty(grad_outputs), retain_graph,
                         create_graph, allow_unused);
    }
    nb::list out;
    for (auto& t : r) out.append(t.defined() ? nb::cast(t) : nb::none());
    return out;
  });
  m.def("_queue_backward_callback", [](nb::callable fn) {
    // Backward runs without the GIL: the callable is called and released under it.
    std::shared_ptr<nb::object> held(new nb::object(fn), [](nb::object* o) {
      nb::gil_scoped_acquire gil;
      delete o;
    });
    autograd::queue_callback([held] {
      nb::gil_scoped_acquire gil;
      (*held)();
    });
  }, nb::arg("callback"), "Runs callback() when the running Tensor.backward pass has finished (from a gradient hook).");
  m.def("_assign_inplace", [](Tensor x, const Tensor& r) { assign_inplace(x, r); });
  m.def("_assign_view_inplace", [](Tensor x, const Tensor& v) { assign_view_inplace(x, v); });
  m.def("is_grad_enabled", &autograd::grad_enabled,
        "Whether operations record autograd history now (False inside oar.no_grad()).");
  m.def("_set_grad_enabled", &autograd::set_grad_enabled);
  nb::class_<GradNodeHandle>(m, "GradNode", "A node of the autograd graph (Tensor.grad_fn).")
      .def("name", [](const GradNodeHandle& h) { return paddle_node_name(*h.node); },
           "The node's name as Paddle names it, e.g. 'MultiplyGradNode' or 'GradNodeAccumulation'.")
      .def_prop_ro("next_functions", [](const GradNodeHandle& h) {
        std::vector<GradNodeHandle> out;
        for (const autograd::Edge& e : h.node->next_edges)
          if (e.valid()) out.push_back(GradNodeHandle{e.node});
        return out;
      }, "The nodes the gradients go on to, one per input that takes a gradient.")
      .def("node_ptr", [](const GradNodeHandle& h) { return reinterpret_cast<uintptr_t>(h.node.get()); })
      .def("__eq__", [](const GradNodeHandle& a, const GradNodeHandle& b) { return a.node == b.node; })
      .def("__hash__", [](const GradNodeHandle& h) { return std::hash<const void*>()(h.node.get()); })
      .def("__repr__", [](const GradNodeHandle& h) { return "<oar.GradNode " + paddle_node_name(*h.node) + ">"; });
  // The node that takes this tensor's gradient: its op's backward node, a leaf's accumulation
  // node, None for a tensor that stops gradient.
  m.def("_grad_fn", [](const Tensor& t) -> nb::object {
    autograd::Edge e = autograd::edge_of(t);
    if (!e.valid()) return nb::none();
    return nb::cast(GradNodeHandle{e.node});
  });
  m.def("_pylayer_release_all", &PyLayerNode::release_all,
        "Drops the Python backward functions of every live PyLayer node (at interpreter exit).");
  m.def("_pylayer_connect", [](nb::callable backward, std::string name,
                               std::vector<Tensor> inputs, std::vector<Tensor> outputs) {
    if (!autograd::grad_enabled()) return false;
    bool any = false;
    for (auto& t : inputs) any |= t.requires_grad();
    if (!any) return false;
    auto node = std::make_shared<PyLayerNode>(std::move(backward), std::move(name));
    std::vector<const Tensor*> ins, outs;
    for (auto& t : inputs) ins.push_back(&t);
    for (auto& t : outputs) outs.push_back(&t);
    autograd::record(node, ins, outs);
    return true;
  });
}

}  // namespace oar::python
