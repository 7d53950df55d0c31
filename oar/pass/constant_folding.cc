#include "oar/pass/constant_folding.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "oar/autograd/grad_mode.h"
#include "oar/ir/builder.h"
#include "oar/ir/op_registry.h"
#include "oar/ops/generated/api/elementwise.h"
#include "oar/pass/op_effects.h"
#include "oar/pass/rewrite_helpers.h"

namespace oar::pass {

namespace {

bool is_source(const ir::Operation& op) { return op.num_operands() == 0; }

// The one value every element of t holds, when there is one (real dtypes, at least 1 element).
std::optional<Scalar> splat_of(const Tensor& t) {
  if (t.numel() == 0 || is_complex(t.dtype())) return std::nullopt;
  const Tensor d = cast(t, DType::Float64).contiguous();
  const double* p = d.data<double>();
  for (int64_t i = 1; i < d.numel(); ++i)
    if (!(p[i] == p[0])) return std::nullopt;  // NaN never splats
  if (t.dtype() == DType::Bool) return Scalar(p[0] != 0);
  if (is_integral(t.dtype(), false)) return Scalar(static_cast<int64_t>(p[0]));
  return Scalar(p[0]);
}

std::vector<int64_t> dims_of(const Tensor& t) { return std::vector<int64_t>(t.shape().begin(), t.shape().end()); }

}  // namespace

bool ConstantFolding::run(ir::Program& program) {
  autograd::NoGradGuard no_grad;
  std::unordered_map<const ir::Value*, Tensor> known;
  std::unordered_set<const ir::Operation*> folded;  // evaluated ops that have operands
  for (ir::Operation* op : program.all_ops()) {
    if (op->name() == "parameter") {
      if (!frozen_) continue;
      auto it = params_->find(op->attr("name")->as_string());
      if (it != params_->end() && it->second.shape() == Shape(op->result(0)->type().shape.begin(),
                                                               op->result(0)->type().shape.end()))
        known[op->result(0)] = it->second;
      continue;
    }
    if (!is_pure(*op) || op->def()->exec == nullptr) continue;
    std::vector<std::vector<Tensor>> slots;
    bool all_known = true;
    for (size_t s = 0; s < op->num_slots() && all_known; ++s) {
      std::vector<Tensor> ts;
      for (ir::Value* v : op->slot(s)) {
        auto it = known.find(v);
        if (it == known.end()) {
          all_known = false;
          break;
        }
        ts.push_back(it->second);
      }
      slots.push_back(std::move(ts));
    }
    if (!all_known) continue;
    std::vector<Tensor> results;
    try {
      ir::MetaArgs args{&slots, &op->attributes(), op->name().c_str()};
      results = op->def()->exec(args);
    } catch (const Error&) {
      continue;  // the op would fail at run time too: leave it to report there
    }
    if (results.size() != op->num_results()) continue;
    for (size_t r = 0; r < results.size(); ++r) known[op->result(r)] = results[r].contiguous();
    if (!is_source(*op)) folded.insert(op);
  }

  // Materialise the folded values that something not folded reads.
  bool changed = false;
  for (ir::Operation* op : program.all_ops()) {
    if (!folded.count(op)) continue;
    for (size_t r = 0; r < op->num_results(); ++r) {
      ir::Value* v = op->result(r);
      bool read_outside = false;
      for (const ir::Use& u : v->uses()) read_outside |= !folded.count(u.user);
      if (!read_outside) continue;
      const Tensor& t = known.at(v);
      const ir::TensorType type(t.dtype(), dims_of(t));
      if (type != v->type()) continue;  // the IR type is less precise (-1 dims): keep the op
      ir::Builder b(op->parent_block());
      b.set_insertion_point(op->parent_block(), iterator_of(op));
      ir::Value* c = nullptr;
      if (auto s = splat_of(t)) {
        c = b.create1("full", {}, {{"shape", ir::Attribute::int_array(type.shape)},
                                    {"fill_value", ir::Attribute::scalar(*s)},
                                    {"dtype", ir::Attribute::dtype(type.dtype)}});
      } else if (params_) {
        const std::string name = unique_parameter_name(*params_, "folded_constant");
        (*params_)[name] = t;
        c = b.parameter(name, type);
      }
      if (c == nullptr || c->type() != v->type()) continue;
      v->replace_all_uses_with(c);
      changed = true;
    }
  }
  // The folded ops are dead now unless a result could not be materialised: delete the dead ones,
  // users first.
  std::vector<ir::Operation*> ops = program.all_ops();
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    if (!folded.count(*it)) continue;
    bool used = false;
    for (size_t r = 0; r < (*it)->num_results(); ++r) used |= (*it)->result(r)->has_uses();
    if (!used) {
      (*it)->parent_block()->erase(*it);
      changed = true;
    }
  }
  return changed;
}

}  // namespace oar::pass
