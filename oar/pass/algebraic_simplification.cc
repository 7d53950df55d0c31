#include "oar/pass/algebraic_simplification.h"

#include <vector>

#include "oar/ir/builder.h"
#include "oar/pass/rewrite_helpers.h"

namespace oar::pass {

namespace {

using ir::Attribute;
using ir::Operation;
using ir::Value;

bool splat_is(const Value* v, double c) {
  auto s = splat_value(v);
  return s.has_value() && *s == c;
}

bool scalar_attr_is(const Operation* op, const char* name, double c) {
  const Attribute* a = op->attr(name);
  return a && a->kind() == ir::AttrKind::Scalar && !a->as_scalar().is_complex() && a->as_scalar().to<double>() == c;
}

bool float_attr_is(const Operation* op, const char* name, double c) {
  const Attribute* a = op->attr(name);
  return a && a->kind() == ir::AttrKind::Float && a->as_float() == c;
}

// `perm` with negative entries counted from the end; empty when it is not a permutation.
std::vector<int64_t> normalized_perm(const Operation* op) {
  const Attribute* a = op->attr("perm");
  if (!a || a->kind() != ir::AttrKind::IntArray) return {};
  std::vector<int64_t> p = a->as_int_array();
  const int64_t r = static_cast<int64_t>(p.size());
  std::vector<bool> seen(r, false);
  for (int64_t& d : p) {
    if (d < 0) d += r;
    if (d < 0 || d >= r || seen[d]) return {};
    seen[d] = true;
  }
  return p;
}

bool is_identity(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// The value op can be replaced with, or null. May build a new op before `op`.
Value* simplify(Operation* op) {
  const std::string& n = op->name();
  if (op->num_results() != 1) return nullptr;
  const ir::TensorType& out = op->result(0)->type();
  auto same = [&](Value* v) { return v->type() == out ? v : nullptr; };
  if (n == "multiply") {
    if (splat_is(op->operand(1), 1.0)) return same(op->operand(0));
    if (splat_is(op->operand(0), 1.0)) return same(op->operand(1));
  } else if (n == "divide") {
    if (splat_is(op->operand(1), 1.0)) return same(op->operand(0));
  } else if (n == "add") {
    if (splat_is(op->operand(1), 0.0)) return same(op->operand(0));
    if (splat_is(op->operand(0), 0.0)) return same(op->operand(1));
  } else if (n == "subtract") {
    if (splat_is(op->operand(1), 0.0)) return same(op->operand(0));
  } else if (n == "scale") {
    if (scalar_attr_is(op, "scale", 1.0) && scalar_attr_is(op, "bias", 0.0)) return same(op->operand(0));
  } else if (n == "pow") {
    if (scalar_attr_is(op, "y", 1.0)) return same(op->operand(0));
  } else if (n == "cast") {
    return same(op->operand(0));  // equal types: the cast is to x's own dtype
  } else if (n == "transpose") {
    std::vector<int64_t> q = normalized_perm(op);
    if (q.empty() && op->operand(0)->type().rank() != 0) return nullptr;
    if (is_identity(q)) return same(op->operand(0));
    Operation* inner = op->operand(0)->defining_op();
    if (inner == nullptr || inner->name() != "transpose") return nullptr;
    std::vector<int64_t> p = normalized_perm(inner);
    if (p.size() != q.size()) return nullptr;
    std::vector<int64_t> composed(q.size());  // out[i] = mid[q[i]] = x[p[q[i]]]
    for (size_t i = 0; i < q.size(); ++i) composed[i] = p[q[i]];
    Value* x = inner->operand(0);
    if (is_identity(composed)) return same(x);
    ir::Builder b(op->parent_block());
    b.set_insertion_point(op->parent_block(), iterator_of(op));
    return same(b.create1("transpose", {{x}}, {{"perm", Attribute::int_array(composed)}}));
  } else if (n == "dropout") {
    // Inference dropout (training = false, upscale_in_train) and p = 0 pass x through; the op
    // itself copies (a new tensor, as Paddle), which a program does not need.
    const Attribute* training = op->attr("training");
    const Attribute* mode = op->attr("mode");
    const bool upscale = mode && mode->kind() == ir::AttrKind::Str && mode->as_string("mode") == "upscale_in_train";
    const bool eval = training && training->kind() == ir::AttrKind::Bool && !training->as_bool("training");
    if ((eval && upscale) || (float_attr_is(op, "p", 0.0) && (upscale || !eval))) return same(op->operand(0));
  } else if (n == "reshape") {
    Value* x = op->operand(0);
    if (!out.has_unknown_dims() && x->type() == out) return x;
    Operation* inner = x->defining_op();
    if (inner == nullptr || inner->name() != "reshape") return nullptr;
    const Attribute* s = op->attr("shape");
    if (!s || s->kind() != ir::AttrKind::IntArray) return nullptr;
    for (int64_t d : s->as_int_array())
      if (d == 0) return nullptr;  // 0 copies a dim of the intermediate shape
    ir::Builder b(op->parent_block());
    b.set_insertion_point(op->parent_block(), iterator_of(op));
    return same(b.create1("reshape", {{inner->operand(0)}}, {{"shape", *s}}));
  }
  return nullptr;
}

}  // namespace

bool AlgebraicSimplification::run(ir::Program& program) {
  std::vector<Operation*> ops = program.all_ops();
  bool changed = false;
  for (Operation* op : ops) {
    Value* v = simplify(op);
    if (v == nullptr) continue;
    replace_op(op, {v});
    changed = true;
  }
  return changed;
}

}  // namespace oar::pass
