// The structural ops every program uses, registered beside the generated spec ops:
//   data        a program input, by name; its type is in its attributes (-1 dims allowed)
//   parameter   a weight, by name; the tensor lives outside the program
//   cond        if/else: two regions (then, else) that each end in a yield of the results
//   while_loop  cond and body regions over the loop-carried values (block arguments); cond
//               yields one bool, body yields the next values; results are the last values
//   yield       the terminator that hands a region's values to its parent op
//   fetch       marks a value as a named output of the program (saved models, the predictor)
//   grad        d(outputs)/d(inputs) (times grad_outputs when given): the executor runs the
//               forward ops with autograd recording and answers with the eager backward engine,
//               so static gradients use exactly the vjp rules of eager mode
#include "oar/ir/block.h"
#include "oar/ir/op_registry.h"
#include "oar/ir/region.h"

namespace oar::ir {

namespace {

std::string types_str(const std::vector<TensorType>& ts) {
  std::string s = "(";
  for (size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + ts[i].str();
  return s + ")";
}

std::vector<TensorType> types_of(const std::vector<Value*>& vs) {
  std::vector<TensorType> out;
  for (Value* v : vs) out.push_back(v->type());
  return out;
}

// The values yielded at the end of `region` (checked: one block, ending in yield).
std::vector<Value*> yielded(const Region& region, const char* op, const char* which) {
  OAR_ENFORCE(region.num_blocks() == 1, InvalidArgument, op, ": the ", which, " region must hold one block, got ",
              region.num_blocks());
  Operation* t = region.block().terminator();
  OAR_ENFORCE(t != nullptr && t->name() == "yield", InvalidArgument, op, ": the ", which,
              " region must end with a yield");
  return t->operands();
}

std::vector<TensorType> tensor_type_from_attrs(const TypeArgs& a, bool allow_unknown) {
  const std::string what = std::string(a.op) + ": attribute 'shape'";
  auto it = a.attrs->find("shape");
  OAR_ENFORCE(it != a.attrs->end(), NotFound, a.op, ": attribute 'shape' is missing");
  std::vector<int64_t> shape = it->second.as_int_array(what);
  for (int64_t d : shape)
    OAR_ENFORCE(d >= 0 || (allow_unknown && d == kUnknownDim), InvalidArgument, what, ": dims must be >= 0",
                allow_unknown ? " or -1 (unknown)" : "", ", got ", d);
  auto dt = a.attrs->find("dtype");
  OAR_ENFORCE(dt != a.attrs->end(), NotFound, a.op, ": attribute 'dtype' is missing");
  return {TensorType(dt->second.as_dtype(std::string(a.op) + ": attribute 'dtype'"), shape)};
}

std::vector<TensorType> data_types(const TypeArgs& a) { return tensor_type_from_attrs(a, true); }
std::vector<TensorType> parameter_types(const TypeArgs& a) { return tensor_type_from_attrs(a, false); }

std::vector<TensorType> cond_types(const TypeArgs& a) {
  OAR_ENFORCE(a.regions && a.regions->size() == 2, InvalidArgument, "cond: needs two regions (then, else)");
  return types_of(yielded(*(*a.regions)[0], "cond", "then"));
}

void cond_verify(const Operation& op) {
  const TensorType& p = op.operand(0)->type();
  bool one = true;
  for (int64_t d : p.shape) one &= d == 1 || d == kUnknownDim;
  OAR_ENFORCE(p.dtype == DType::Bool && one, TypeMismatch, "cond: the predicate must be a bool tensor with one ",
              "element, got ", p.str());
  for (size_t r = 0; r < 2; ++r)
    OAR_ENFORCE(op.region(r).num_blocks() == 1 && op.region(r).block().num_arguments() == 0, InvalidArgument,
                "cond: the ", r ? "else" : "then", " region must hold one block without arguments");
  auto then_t = types_of(yielded(op.region(0), "cond", "then"));
  auto else_t = types_of(yielded(op.region(1), "cond", "else"));
  OAR_ENFORCE(then_t == else_t, TypeMismatch, "cond: the then region yields ", types_str(then_t),
              " but the else region yields ", types_str(else_t));
}

std::vector<TensorType> while_types(const TypeArgs& a) { return a.slots->at(0); }

void while_verify(const Operation& op) {
  const auto inits = types_of(op.operands());
  for (size_t r = 0; r < 2; ++r) {
    const char* which = r ? "body" : "cond";
    OAR_ENFORCE(op.region(r).num_blocks() == 1, InvalidArgument, "while_loop: the ", which,
                " region must hold one block");
    const Block& b = op.region(r).block();
    OAR_ENFORCE(types_of(b.arguments()) == inits, TypeMismatch, "while_loop: the ", which,
                " block's arguments ", types_str(types_of(b.arguments())),
                " must match the loop-carried values ", types_str(inits));
  }
  auto c = yielded(op.region(0), "while_loop", "cond");
  OAR_ENFORCE(c.size() == 1 && c[0]->type().dtype == DType::Bool, TypeMismatch,
              "while_loop: the cond region must yield one bool tensor, got ", types_str(types_of(c)));
  auto next = types_of(yielded(op.region(1), "while_loop", "body"));
  OAR_ENFORCE(next == inits, TypeMismatch, "while_loop: the body yields ", types_str(next),
              " but the loop-carried values are ", types_str(inits));
}

std::vector<TensorType> no_types(const TypeArgs&) { return {}; }

void fetch_verify(const Operation& op) {
  OAR_ENFORCE(op.parent_op() == nullptr, InvalidArgument, "fetch: must be in the program's top block");
}

std::vector<TensorType> grad_types(const TypeArgs& a) { return a.slots->at(1); }

void grad_verify(const Operation& op) {
  OAR_ENFORCE(!op.slot(0).empty(), InvalidArgument, "grad: needs at least one output to differentiate");
  for (size_t s = 0; s < 2; ++s)
    for (Value* v : op.slot(s))
      OAR_ENFORCE(is_differentiable(v->type().dtype), TypeMismatch, "grad: ", s ? "inputs" : "outputs",
                  " must be floating-point or complex, got ", v->type().str());
  auto outs = op.slot(0), seeds = op.slot(2);
  OAR_ENFORCE(seeds.empty() || seeds.size() == outs.size(), InvalidArgument, "grad: give one grad_output per output (",
              outs.size(), "), or none; got ", seeds.size());
}

void yield_verify(const Operation& op) {
  Operation* parent = op.parent_op();
  OAR_ENFORCE(parent && (parent->name() == "cond" || parent->name() == "while_loop"), InvalidArgument,
              "yield: may only end a region of cond or while_loop, found ",
              parent ? "in '" + parent->name() + "'" : std::string("at the top level"));
  OAR_ENFORCE(op.parent_block()->terminator() == &op, InvalidArgument, "yield: must be the last op of its block");
}

}  // namespace

void register_builtin_ops(OpRegistry& r) {
  auto input = [&](const char* name, TypeFn fn) {
    OpDef d;
    d.name = name;
    d.family = "builtin";
    d.attrs = {{"name", AttrKind::Str, false, std::nullopt, "str"},
               {"shape", AttrKind::IntArray, false, std::nullopt, "IntArray"},
               {"dtype", AttrKind::DType, false, Attribute::dtype(DType::Float32), "DataType"}};
    d.results = {"out"};
    d.rule = TypeRule::Direct;
    d.types = fn;
    r.add(std::move(d));
  };
  input("data", &data_types);
  input("parameter", &parameter_types);
  {
    OpDef d;
    d.name = "cond";
    d.family = "builtin";
    d.operands = {{"pred", OperandKind::Single}};
    d.results = {"out"};
    d.variadic_results = true;
    d.rule = TypeRule::Direct;
    d.types = &cond_types;
    d.verify = &cond_verify;
    d.num_regions = 2;
    r.add(std::move(d));
  }
  {
    OpDef d;
    d.name = "while_loop";
    d.family = "builtin";
    d.operands = {{"inits", OperandKind::List}};
    d.results = {"out"};
    d.variadic_results = true;
    d.rule = TypeRule::Direct;
    d.types = &while_types;
    d.verify = &while_verify;
    d.num_regions = 2;
    r.add(std::move(d));
  }
  {
    OpDef d;
    d.name = "fetch";
    d.family = "builtin";
    d.operands = {{"value", OperandKind::Single}};
    d.attrs = {{"name", AttrKind::Str, false, std::nullopt, "str"}};
    d.rule = TypeRule::Direct;
    d.types = &no_types;
    d.verify = &fetch_verify;
    r.add(std::move(d));
  }
  {
    OpDef d;
    d.name = "grad";
    d.family = "builtin";
    d.operands = {{"outputs", OperandKind::List}, {"inputs", OperandKind::List}, {"grad_outputs", OperandKind::List}};
    d.results = {"grads"};
    d.variadic_results = true;
    d.rule = TypeRule::Direct;
    d.types = &grad_types;
    d.verify = &grad_verify;
    r.add(std::move(d));
  }
  {
    OpDef d;
    d.name = "yield";
    d.family = "builtin";
    d.operands = {{"values", OperandKind::List}};
    d.rule = TypeRule::Direct;
    d.types = &no_types;
    d.verify = &yield_verify;
    d.is_terminator = true;
    r.add(std::move(d));
  }
}

}  // namespace oar::ir
