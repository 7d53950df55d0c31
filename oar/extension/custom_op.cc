#include "oar/extension/custom_op.h"

#include <dlfcn.h>

#include <mutex>
#include <utility>

#include "oar/autograd/grad_mode.h"
#include "oar/autograd/node.h"
#include "oar/core/error.h"
#include "oar/ir/op_registry.h"
#include "oar/ir/tracer.h"

namespace oar::extension {

namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

std::string strip(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string base_name(std::string name) {
  for (const char* suffix : {kGradSuffix, kVectorSuffix, kOptionalSuffix})
    if (has_suffix(name, suffix)) name.resize(name.size() - std::string(suffix).size());
  return name;
}

MetaContext meta_of(const KernelContext& ctx) {
  MetaContext m;
  m.attrs = ctx.attrs;
  for (const auto& list : ctx.inputs) {
    m.shapes.emplace_back();
    m.dtypes.emplace_back();
    for (const Tensor& t : list) {
      m.shapes.back().push_back(std::vector<int64_t>(t.shape()));
      m.dtypes.back().push_back(t.dtype());
    }
  }
  return m;
}

// Backward of a custom op: runs its grad op. The grad op's inputs name forward inputs ("X"),
// forward outputs ("Out") and output gradients ("Out@GRAD"); its outputs are input gradients
// ("X@GRAD"), in any order and any subset.
class CustomGradNode : public autograd::Node {
 public:
  CustomGradNode(const OpMeta& forward, const OpMeta& grad, KernelContext ctx)
      : forward_(forward), grad_(grad), ctx_(std::move(ctx)) {}
  // After the node is recorded as their creator: saved without their history (they point back here).
  void save_outputs(const std::vector<Tensor>& outputs) {
    for (const Tensor& t : outputs) outputs_.emplace_back(t, true);
  }
  const char* name() const override { return grad_.name.c_str(); }
  void release_saved() override {
    ctx_ = KernelContext{};
    outputs_.clear();
    Node::release_saved();
  }

  autograd::TensorList apply(autograd::TensorList&& grads) override {
    OAR_ENFORCE(!released(), PreconditionNotMet, grad_.name,
                ": backward through this graph a second time; pass retain_graph=True the first time");
    KernelContext g;
    g.attrs = ctx_.attrs;
    for (const std::string& in : grad_.inputs) {
      const std::string base = base_name(in);
      if (has_suffix(in, kGradSuffix)) {
        g.inputs.push_back({grads.at(index_of(forward_.outputs, base, in))});
      } else if (const int k = find(forward_.inputs, base); k >= 0) {
        g.inputs.push_back(ctx_.inputs.at(k));
      } else {
        g.inputs.push_back({outputs_.at(index_of(forward_.outputs, base, in)).unpack(shared_from_this(), grad_.name.c_str())});
      }
      g.present.push_back(true);
    }
    for (auto& list : g.inputs)  // kernels index data() directly (a sum's gradient is a broadcast view)
      for (Tensor& t : list) t = t.contiguous();
    std::vector<Tensor> results;
    {
      autograd::NoGradGuard no_grad;
      results = grad_.kernel(g);
    }
    OAR_ENFORCE(results.size() == grad_.outputs.size(), InvalidArgument, grad_.name, ": the kernel returned ",
                results.size(), " tensors but the op declares ", grad_.outputs.size(), " outputs");
    autograd::TensorList out(forward_.inputs.size());
    for (size_t k = 0; k < grad_.outputs.size(); ++k) {
      const int i = find(forward_.inputs, base_name(grad_.outputs[k]));
      OAR_ENFORCE(i >= 0, InvalidArgument, grad_.name, ": output '", grad_.outputs[k],
                  "' is not the gradient of an input of ", forward_.name);
      out[i] = results[k];
    }
    return out;
  }

 private:
  static int find(const std::vector<std::string>& names, const std::string& base) {
    for (size_t k = 0; k < names.size(); ++k)
      if (base_name(names[k]) == base) return static_cast<int>(k);
    return -1;
  }
  size_t index_of(const std::vector<std::string>& names, const std::string& base, const std::string& what) const {
    const int k = find(names, base);
    OAR_ENFORCE(k >= 0, InvalidArgument, grad_.name, ": input '", what, "' names no input or output of ", forward_.name);
    return static_cast<size_t>(k);
  }
  const OpMeta& forward_;
  const OpMeta& grad_;
  KernelContext ctx_;
  std::vector<autograd::SavedTensor> outputs_;
};

void check_arguments(const OpMeta& op, const KernelContext& ctx) {
  OAR_ENFORCE(ctx.inputs.size() == op.inputs.size(), InvalidArgument, op.name, ": expected ", op.inputs.size(),
              " inputs (", op.inputs.size() ? op.inputs[0] : "", op.inputs.size() > 1 ? ", ..." : "", "), got ",
              ctx.inputs.size());
  OAR_ENFORCE(ctx.attrs.size() == op.attrs.size(), InvalidArgument, op.name, ": expected ", op.attrs.size(),
              " attributes, got ", ctx.attrs.size());
  for (size_t k = 0; k < op.inputs.size(); ++k) {
    const bool list = has_suffix(op.inputs[k], kVectorSuffix), optional = has_suffix(op.inputs[k], kOptionalSuffix);
    if (!list && !optional)
      OAR_ENFORCE(ctx.inputs[k].size() == 1 && ctx.inputs[k][0].defined(), InvalidArgument, op.name, ": input '",
                  op.inputs[k], "' must be a Tensor");
    for (const Tensor& t : ctx.inputs[k])
      OAR_ENFORCE(t.defined(), InvalidArgument, op.name, ": input '", op.inputs[k], "' holds an undefined tensor");
  }
}

void check_outputs(const OpMeta& op, const KernelContext& ctx, const std::vector<Tensor>& outs) {
  OAR_ENFORCE(outs.size() == op.outputs.size(), InvalidArgument, op.name, ": the kernel returned ", outs.size(),
              " tensors but the op declares ", op.outputs.size(), " outputs");
  if (!op.infer_shape && !op.infer_dtype) return;
  const MetaContext meta = meta_of(ctx);
  if (op.infer_shape) {
    const auto shapes = op.infer_shape(meta);
    OAR_ENFORCE(shapes.size() == outs.size(), InvalidArgument, op.name, ": the infer-shape function gives ",
                shapes.size(), " shapes for ", outs.size(), " outputs");
    // A negative dim (-1: known only at run time) matches any size.
    auto fits = [](const Shape& got, const std::vector<int64_t>& said) {
      if (got.size() != said.size()) return false;
      for (size_t d = 0; d < got.size(); ++d)
        if (said[d] >= 0 && got[d] != said[d]) return false;
      return true;
    };
    for (size_t k = 0; k < outs.size(); ++k)
      OAR_ENFORCE(fits(outs[k].shape(), shapes[k]), InvalidArgument, op.name, ": output '",
                  op.outputs[k], "' has shape ", shape_str(outs[k].shape()), " but the infer-shape function says ",
                  shape_str(shapes[k]));
  }
  if (op.infer_dtype) {
    const auto dtypes = op.infer_dtype(meta);
    for (size_t k = 0; k < outs.size() && k < dtypes.size(); ++k)
      OAR_ENFORCE(outs[k].dtype() == dtypes[k], InvalidArgument, op.name, ": output '", op.outputs[k], "' is ",
                  dtype_name(outs[k].dtype()), " but the infer-dtype function says ", dtype_name(dtypes[k]));
  }
}

}  // namespace

bool has_suffix(const std::string& name, const char* suffix) {
  const std::string s(suffix);
  return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
}

std::string attr_name(const std::string& declaration) { return strip(declaration.substr(0, declaration.find(':'))); }
std::string attr_type(const std::string& declaration) {
  const size_t colon = declaration.find(':');
  return colon == std::string::npos ? std::string() : strip(declaration.substr(colon + 1));
}

Registry& Registry::global() {
  static Registry r;
  return r;
}

OpMeta& Registry::add(const std::string& name) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  if (ops_.count(name)) {
    errors_.push_back("custom op '" + name + "' is registered twice (an op of that name is already loaded)");
    rejected_.push_back(std::make_unique<OpMeta>());
    return *rejected_.back();
  }
  auto& meta = ops_[name] = std::make_unique<OpMeta>();
  meta->name = name;
  order_.push_back(name);
  return *meta;
}

std::vector<std::string> Registry::take_errors() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  return std::exchange(errors_, {});
}

const OpMeta* Registry::find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

std::vector<std::string> Registry::names() const {
  std::lock_guard<std::mutex> lock(registry_mutex());
  return order_;
}

std::vector<std::string> Registry::since(size_t mark) const {
  std::lock_guard<std::mutex> lock(registry_mutex());
  return std::vector<std::string>(order_.begin() + static_cast<std::ptrdiff_t>(std::min(mark, order_.size())), order_.end());
}

std::vector<std::string> load_library(const std::string& path) {
  Registry& r = Registry::global();
  const size_t mark = r.mark();
  // RTLD_LOCAL: the library's own symbols stay private; it finds oar's through its link to liboar.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  OAR_ENFORCE(handle != nullptr, InvalidArgument, "custom op library '", path, "' cannot be loaded: ", dlerror());
  std::vector<std::string> errors = r.take_errors();
  OAR_ENFORCE(errors.empty(), InvalidArgument, "custom op library '", path, "': ", errors.front());
  std::vector<std::string> names = r.since(mark);
  for (const std::string& n : names) const_cast<OpMeta*>(r.find(n))->library = path;
  register_ir_ops();
  return names;
}

std::vector<Tensor> run(const std::string& name, const KernelContext& ctx0) {
  const OpMeta* op = Registry::global().find(name);
  OAR_ENFORCE(op != nullptr, NotFound, "custom op '", name, "' is not registered (load its library first)");
  OAR_ENFORCE(static_cast<bool>(op->kernel), PreconditionNotMet, "custom op '", name, "' has no kernel (SetKernelFn)");
  check_arguments(*op, ctx0);
  if (ir::tracing_active()) [[unlikely]] {
    register_ir_ops();
    OAR_ENFORCE(ir::OpRegistry::global().find(name) != nullptr, Unimplemented, name,
                ": its attribute types cannot be carried by a program; call it in dynamic mode");
    return ir::trace_op(op->name.c_str(), ctx0.inputs, ir_attributes(*op, ctx0.attrs));
  }
  KernelContext ctx = ctx0;  // kernels index data() directly: contiguous inputs
  for (auto& list : ctx.inputs)
    for (Tensor& t : list) t = t.contiguous();
  std::vector<Tensor> outs;
  {
    autograd::NoGradGuard no_grad;
    outs = op->kernel(ctx);
  }
  check_outputs(*op, ctx, outs);
  const OpMeta* grad = Registry::global().find(name + "_grad");
  if (grad && autograd::grad_enabled()) {
    std::vector<const Tensor*> inputs, outputs;
    bool any = false;
    for (const auto& list : ctx0.inputs)
      for (const Tensor& t : list) any = any || !t.stop_gradient();
    if (any) {
      // One edge per declared input, to the caller's tensor: the first of each (list inputs take
      // no gradient here).
      std::vector<Tensor> firsts;
      for (const auto& list : ctx0.inputs) firsts.push_back(list.size() == 1 ? list[0] : Tensor());
      for (const Tensor& t : firsts) inputs.push_back(&t);
      for (const Tensor& t : outs) outputs.push_back(&t);
      auto node = std::make_shared<CustomGradNode>(*op, *grad, ctx);
      autograd::record(node, inputs, outputs);
      node->save_outputs(outs);
    }
  }
  return outs;
}

}  // namespace oar::extension
