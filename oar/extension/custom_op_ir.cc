// Custom ops in programs: each registered custom op becomes an IR op (oar/ir/op_registry.h) whose
// result types come from its infer-shape and infer-dtype functions and whose execution calls
// extension::run, so to_static traces it, the executor and the predictor run it, and saved
// programs name it (a model that uses one loads once its library is loaded).
#include <mutex>

#include "oar/core/error.h"
#include "oar/extension/custom_op.h"
#include "oar/ir/op_registry.h"
#include "oar/ops/infer_meta/meta.h"

namespace oar::extension {

namespace {

// The IR attribute kind of a declared attribute type, or None when programs cannot carry it.
ir::AttrKind ir_kind(const std::string& type) {
  if (type == "bool") return ir::AttrKind::Bool;
  if (type == "int" || type == "int64_t") return ir::AttrKind::Int;
  if (type == "float" || type == "double") return ir::AttrKind::Float;
  if (type == "std::string") return ir::AttrKind::Str;
  if (type == "std::vector<int>" || type == "std::vector<int64_t>") return ir::AttrKind::IntArray;
  if (type == "std::vector<float>" || type == "std::vector<double>") return ir::AttrKind::FloatArray;
  return ir::AttrKind::None;
}

std::vector<std::any> attrs_from_ir(const OpMeta& op, const ir::AttributeMap& attrs) {
  std::vector<std::any> out;
  for (const std::string& decl : op.attrs) {
    const std::string name = attr_name(decl);
    auto it = attrs.find(name);
    OAR_ENFORCE(it != attrs.end(), InvalidArgument, op.name, ": attribute '", name, "' is missing");
    const ir::Attribute& a = it->second;
    switch (ir_kind(attr_type(decl))) {
      case ir::AttrKind::Bool: out.emplace_back(a.as_bool(name)); break;
      case ir::AttrKind::Int: out.emplace_back(a.as_int(name)); break;
      case ir::AttrKind::Float: out.emplace_back(a.as_float(name)); break;
      case ir::AttrKind::Str: out.emplace_back(a.as_string(name)); break;
      case ir::AttrKind::IntArray: out.emplace_back(a.as_int_array(name)); break;
      case ir::AttrKind::FloatArray: out.emplace_back(a.as_float_array(name)); break;
      default: OAR_THROW(Unimplemented, op.name, ": attribute '", name, "' cannot be carried by a program");
    }
  }
  return out;
}

const OpMeta& meta_of_op(const char* name) {
  const OpMeta* op = Registry::global().find(name);
  OAR_ENFORCE(op != nullptr, NotFound, "custom op '", name, "' is not registered (load its library first)");
  return *op;
}

// Result types: the op's infer functions; without them, output k takes input k's shape and
// dtype (input 0's when there are fewer inputs), Paddle's default.
std::vector<Meta> custom_meta(const ir::MetaArgs& a) {
  const OpMeta& op = meta_of_op(a.op);
  MetaContext m;
  m.attrs = attrs_from_ir(op, *a.attrs);
  for (const auto& slot : *a.slots) {
    m.shapes.emplace_back();
    m.dtypes.emplace_back();
    for (const Tensor& t : slot) {
      m.shapes.back().push_back(std::vector<int64_t>(t.shape()));
      m.dtypes.back().push_back(t.dtype());
    }
  }
  auto input_of = [&](size_t k) -> size_t {
    const size_t i = k < m.shapes.size() ? k : 0;
    OAR_ENFORCE(i < m.shapes.size() && !m.shapes[i].empty(), InvalidArgument, op.name,
                ": without an infer-shape function, output ", k, " takes the shape of an input that is absent");
    return i;
  };
  std::vector<std::vector<int64_t>> shapes;
  std::vector<DType> dtypes;
  if (op.infer_shape) shapes = op.infer_shape(m);
  else
    for (size_t k = 0; k < op.outputs.size(); ++k) shapes.push_back(m.shapes[input_of(k)][0]);
  if (op.infer_dtype) dtypes = op.infer_dtype(m);
  else
    for (size_t k = 0; k < op.outputs.size(); ++k) dtypes.push_back(m.dtypes[input_of(k)][0]);
  OAR_ENFORCE(shapes.size() == op.outputs.size() && dtypes.size() == op.outputs.size(), InvalidArgument, op.name,
              ": the infer functions give ", shapes.size(), " shapes and ", dtypes.size(), " dtypes for ",
              op.outputs.size(), " outputs");
  std::vector<Meta> out;
  for (size_t k = 0; k < shapes.size(); ++k) out.push_back(Meta{shapes[k], dtypes[k]});
  return out;
}

std::vector<Tensor> custom_exec(const ir::MetaArgs& a) {
  const OpMeta& op = meta_of_op(a.op);
  KernelContext ctx;
  ctx.inputs = *a.slots;
  ctx.attrs = attrs_from_ir(op, *a.attrs);
  return run(op.name, ctx);
}

std::mutex& ir_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

ir::AttributeMap ir_attributes(const OpMeta& op, const std::vector<std::any>& attrs) {
  ir::AttributeMap out;
  for (size_t k = 0; k < op.attrs.size() && k < attrs.size(); ++k) {
    const std::string name = attr_name(op.attrs[k]);
    const std::any& v = attrs[k];
    switch (ir_kind(attr_type(op.attrs[k]))) {
      case ir::AttrKind::Bool: out[name] = ir::Attribute::boolean(std::any_cast<bool>(v)); break;
      case ir::AttrKind::Int: out[name] = ir::Attribute::integer(std::any_cast<int64_t>(v)); break;
      case ir::AttrKind::Float: out[name] = ir::Attribute::floating(std::any_cast<double>(v)); break;
      case ir::AttrKind::Str: out[name] = ir::Attribute::string(std::any_cast<std::string>(v)); break;
      case ir::AttrKind::IntArray: out[name] = ir::Attribute::int_array(std::any_cast<std::vector<int64_t>>(v)); break;
      case ir::AttrKind::FloatArray:
        out[name] = ir::Attribute::float_array(std::any_cast<std::vector<double>>(v));
        break;
      default:
        OAR_THROW(Unimplemented, op.name, ": attribute '", name, "' (", attr_type(op.attrs[k]),
                  ") cannot be carried by a program; call the op in dynamic mode");
    }
  }
  return out;
}

void register_ir_ops() {
  std::lock_guard<std::mutex> lock(ir_mutex());
  ir::OpRegistry& ir = ir::OpRegistry::global();
  for (const std::string& name : Registry::global().names()) {
    if (ir.find(name) || has_suffix(name, "_grad")) continue;
    const OpMeta& op = *Registry::global().find(name);
    ir::OpDef def;
    def.name = name;
    def.family = "custom";
    for (const std::string& in : op.inputs)
      def.operands.push_back({in, has_suffix(in, kVectorSuffix)     ? ir::OperandKind::List
                                  : has_suffix(in, kOptionalSuffix) ? ir::OperandKind::Optional
                                                                    : ir::OperandKind::Single});
    bool carried = true;
    for (const std::string& decl : op.attrs) {
      const ir::AttrKind kind = ir_kind(attr_type(decl));
      carried = carried && kind != ir::AttrKind::None;
      def.attrs.push_back(ir::AttrDef{attr_name(decl), kind, false, std::nullopt, attr_type(decl)});
    }
    if (!carried) continue;  // eager only: its attributes have no IR kind
    def.results = op.outputs;
    def.rule = ir::TypeRule::InferMeta;
    def.meta = &custom_meta;
    def.exec = &custom_exec;
    def.has_side_effects = op.side_effects;
    ir.add(std::move(def));
  }
}

}  // namespace oar::extension
