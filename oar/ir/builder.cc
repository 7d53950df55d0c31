#include "oar/ir/builder.h"

#include "oar/ir/region.h"
#include "oar/ir/type_inference.h"

namespace oar::ir {

namespace {
const char* operand_kind_name(OperandKind k) {
  return k == OperandKind::Single ? "Tensor" : k == OperandKind::Optional ? "Tensor?" : "Tensor[]";
}
}  // namespace

void Builder::check_slots(const OpDef& def, const std::vector<uint32_t>& segments) {
  OAR_ENFORCE(segments.size() == def.operands.size(), InvalidArgument, def.name, ": expected ",
              def.operands.size(), " operand slot(s), got ", segments.size());
  for (size_t s = 0; s < segments.size(); ++s) {
    const OperandDef& o = def.operands[s];
    const bool ok = o.kind == OperandKind::List || segments[s] == 1 ||
                    (o.kind == OperandKind::Optional && segments[s] == 0);
    OAR_ENFORCE(ok, InvalidArgument, def.name, ": operand '", o.name, "' (", operand_kind_name(o.kind),
                ") takes ", o.kind == OperandKind::Single ? "exactly one value" : "at most one value", ", got ",
                segments[s]);
  }
}

AttributeMap Builder::complete_attributes(const OpDef& def, const AttributeMap& attrs) {
  for (auto& [n, a] : attrs)
    OAR_ENFORCE(def.find_attr(n) != nullptr, InvalidArgument, def.name, ": unknown attribute '", n, "'");
  AttributeMap out;
  for (const AttrDef& d : def.attrs) {
    auto it = attrs.find(d.name);
    if (it == attrs.end()) {
      OAR_ENFORCE(d.default_value.has_value(), InvalidArgument, def.name, ": required attribute '", d.name,
                  "' (", attr_kind_name(d.kind), ") is missing");
      out[d.name] = *d.default_value;
      continue;
    }
    const Attribute& a = it->second;
    OAR_ENFORCE(a.kind() == d.kind || (d.nullable && a.is_none()), TypeMismatch, def.name, ": attribute '",
                d.name, "' must be ", attr_kind_name(d.kind), d.nullable ? " or none" : "", ", got ",
                attr_kind_name(a.kind()), " ", a.str());
    out[d.name] = a;
  }
  return out;
}

Operation* Builder::insert(std::unique_ptr<Operation> op) {
  OAR_ENFORCE(block_ != nullptr, PreconditionNotMet, "Builder: no insertion point");
  return block_->insert(pos_, std::move(op));
}

Operation* Builder::create(const std::string& name, const Operands& operands, const AttributeMap& attrs,
                           std::optional<std::vector<TensorType>> result_types) {
  const OpDef& def = OpRegistry::global().get(name);
  OAR_ENFORCE(def.num_regions == 0, InvalidArgument, "Builder::create: op '", name,
              "' has regions; use Builder::cond / Builder::while_loop");
  std::vector<uint32_t> segments;
  std::vector<Value*> flat;
  std::vector<std::vector<TensorType>> slot_types;
  for (auto& slot : operands) {
    segments.push_back(static_cast<uint32_t>(slot.size()));
    slot_types.emplace_back();
    for (Value* v : slot) {
      OAR_ENFORCE(v != nullptr, InvalidArgument, name, ": an operand is null");
      flat.push_back(v);
      slot_types.back().push_back(v->type());
    }
  }
  check_slots(def, segments);
  AttributeMap full = complete_attributes(def, attrs);
  std::vector<TensorType> types;
  if (def.rule == TypeRule::Declared) {
    OAR_ENFORCE(result_types.has_value(), InvalidArgument, name, ": this op has no type inference (",
                "composite or data-dependent shape); pass its result types");
    types = *result_types;
    if (!def.variadic_results)
      OAR_ENFORCE(types.size() == def.results.size(), InvalidArgument, name, ": expected ",
                  def.results.size(), " result type(s), got ", types.size());
  } else {
    types = infer_types(def, slot_types, full);
    if (result_types)
      OAR_ENFORCE(*result_types == types, TypeMismatch, name, ": the given result types differ from the ",
                  "inferred ones");
  }
  return insert(Operation::create(name, flat, segments, std::move(full), types));
}

Value* Builder::create1(const std::string& name, const Operands& operands, const AttributeMap& attrs) {
  Operation* op = create(name, operands, attrs);
  OAR_ENFORCE(op->num_results() == 1, InvalidArgument, name, ": create1 needs one result, the op has ",
              op->num_results());
  return op->result(0);
}

Value* Builder::data(const std::string& name, const TensorType& type) {
  return create1("data", {}, {{"name", Attribute::string(name)}, {"shape", Attribute::int_array(type.shape)},
                              {"dtype", Attribute::dtype(type.dtype)}});
}

Value* Builder::parameter(const std::string& name, const TensorType& type) {
  return create1("parameter", {}, {{"name", Attribute::string(name)},
                                   {"shape", Attribute::int_array(type.shape)},
                                   {"dtype", Attribute::dtype(type.dtype)}});
}

Operation* Builder::yield(const std::vector<Value*>& values) { return create("yield", {values}); }

std::vector<Value*> Builder::cond(Value* pred, const std::function<std::vector<Value*>(Builder&)>& then_fn,
                                  const std::function<std::vector<Value*>(Builder&)>& else_fn) {
  OAR_ENFORCE(pred != nullptr, InvalidArgument, "cond: the predicate is null");
  std::vector<std::unique_ptr<Region>> regions;
  for (auto* fn : {&then_fn, &else_fn}) {
    regions.push_back(std::make_unique<Region>());
    Builder inner(regions.back()->add_block());
    inner.yield((*fn)(inner));
  }
  const OpDef& def = OpRegistry::global().get("cond");
  std::vector<std::vector<TensorType>> slots = {{pred->type()}};
  AttributeMap none;
  std::vector<TensorType> types = infer_types(def, slots, none, &regions);
  auto op = Operation::create("cond", {pred}, {1}, {}, types, std::move(regions));
  def.verify(*op);  // before inserting: a rejected cond leaves the block as it was
  return insert(std::move(op))->results();
}

std::vector<Value*> Builder::while_loop(
    const std::vector<Value*>& inits, const std::function<Value*(Builder&, const std::vector<Value*>&)>& cond_fn,
    const std::function<std::vector<Value*>(Builder&, const std::vector<Value*>&)>& body_fn) {
  std::vector<std::unique_ptr<Region>> regions;
  std::vector<TensorType> types;
  for (Value* v : inits) {
    OAR_ENFORCE(v != nullptr, InvalidArgument, "while_loop: an initial value is null");
    types.push_back(v->type());
  }
  for (int r = 0; r < 2; ++r) {
    regions.push_back(std::make_unique<Region>());
    Block* b = regions.back()->add_block();
    for (auto& t : types) b->add_argument(t);
    Builder inner(b);
    if (r == 0) inner.yield({cond_fn(inner, b->arguments())});
    else inner.yield(body_fn(inner, b->arguments()));
  }
  auto op = Operation::create("while_loop", inits, {static_cast<uint32_t>(inits.size())}, {}, types,
                              std::move(regions));
  OpRegistry::global().get("while_loop").verify(*op);
  return insert(std::move(op))->results();
}

}  // namespace oar::ir
