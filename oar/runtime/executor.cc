#include "oar/runtime/executor.h"

#include <algorithm>
#include <unordered_set>

#include "oar/autograd/engine.h"
#include "oar/autograd/grad_mode.h"
#include "oar/core/allocator.h"
#include "oar/ops/generated/api.h"
#include "oar/ir/block.h"
#include "oar/ir/op_registry.h"
#include "oar/ir/tracer.h"
#include "oar/ir/region.h"

namespace oar::runtime {

using ir::Block;
using ir::Operation;
using ir::Value;

std::string describe(const Tensor& t) {
  if (!t.defined()) return "none";
  return std::string(dtype_name(t.dtype())) + shape_str(t.shape());
}

// Per block: the ops in order, and after each op the values of this block it was the last
// reader of (a use inside a region counts as a use by the op owning the region).
struct Executor::Plan {
  struct Step {
    const Operation* op;
    ir::ExecFn exec;                    // null for the built-in ops
    std::vector<const Value*> release;  // values dead after this op
  };
  struct BlockPlan {
    std::vector<Step> steps;
    std::vector<const Value*> unused_args;  // block arguments nobody reads
  };
  std::unordered_map<const Block*, BlockPlan> blocks;
  bool has_grad = false;  // a grad op needs autograd to record the forward ops
  std::unordered_set<const Value*> grad_inputs;  // differentiated w.r.t. (inputs get requires_grad)

  void add(const Block& b) {
    BlockPlan& bp = blocks[&b];
    std::unordered_map<const Operation*, size_t> index;
    for (auto& op : b.ops()) {
      index[op.get()] = bp.steps.size();
      const ir::OpDef* def = op->def();
      if (op->name() == "grad") {
        has_grad = true;
        for (Value* v : op->slot(1)) grad_inputs.insert(v);
      }
      bp.steps.push_back({op.get(), def ? def->exec : nullptr, {}});
    }
    // The step of `user` or of its ancestor that lives in this block.
    auto step_of = [&](const Operation* user) -> long {
      while (user) {
        auto it = index.find(user);
        if (it != index.end()) return static_cast<long>(it->second);
        user = user->parent_op();
      }
      return -1;
    };
    auto plan_value = [&](const Value* v, long defined_at) {
      long last = -1;
      for (const ir::Use& u : v->uses()) last = std::max(last, step_of(u.user));
      if (last < 0) last = defined_at;  // never read: dropped right away
      if (last < 0) bp.unused_args.push_back(v);
      else bp.steps[last].release.push_back(v);
    };
    for (size_t i = 0; i < b.num_arguments(); ++i) plan_value(b.argument(i), -1);
    for (size_t i = 0; i < bp.steps.size(); ++i)
      for (size_t r = 0; r < bp.steps[i].op->num_results(); ++r)
        plan_value(bp.steps[i].op->result(r), static_cast<long>(i));
    for (auto& op : b.ops())
      for (auto& region : op->regions())
        for (auto& inner : region->blocks()) add(*inner);
  }
};

// The state of one run: the live tensors by value, and the statistics.
class Executor::Run {
 public:
  Run(const Plan& plan, const NamedTensors& feeds, const NamedTensors& params,
      const std::unordered_set<const Value*>& keep)
      : plan_(plan), feeds_(feeds), params_(params), keep_(keep),
        base_bytes_(CPUAllocator::instance().stats().allocated) {}

  // Runs `b` with `args` bound to its arguments; returns the values its terminator yields.
  std::vector<Tensor> block(const Block& b, const std::vector<Tensor>& args) {
    const Plan::BlockPlan& bp = plan_.blocks.at(&b);
    for (size_t i = 0; i < args.size(); ++i) env_[b.argument(i)] = args[i];
    for (const Value* v : bp.unused_args) drop(v);
    std::vector<Tensor> yielded;
    for (const Plan::Step& s : bp.steps) {
      if (s.op->def() && s.op->def()->is_terminator) {
        for (Value* v : s.op->operands()) yielded.push_back(get(v));
      } else {
        step(s);
      }
      for (const Value* v : s.release) drop(v);
      stats.peak_bytes = std::max(stats.peak_bytes, CPUAllocator::instance().stats().allocated - base_bytes_);
    }
    return yielded;
  }

  const Tensor& get(const Value* v) const {
    auto it = env_.find(v);
    OAR_ENFORCE(it != env_.end(), PreconditionNotMet, "Executor: a value is read before it is computed");
    return it->second;
  }

  RunStats stats;

 private:
  void drop(const Value* v) {
    if (!keep_.count(v)) env_.erase(v);
  }

  void bind(const Operation* op, std::vector<Tensor>&& results) {
    OAR_ENFORCE(results.size() == op->num_results(), PreconditionNotMet, "Executor: op '", op->name(),
                "' gave ", results.size(), " results, the program expects ", op->num_results());
    for (size_t i = 0; i < results.size(); ++i) env_[op->result(i)] = std::move(results[i]);
  }

  void step(const Plan::Step& s) {
    const Operation* op = s.op;
    ++stats.ops_run;
    try {
      if (s.exec) {
        std::vector<std::vector<Tensor>> slots;
        size_t k = 0;
        for (uint32_t n : op->segments()) {
          slots.emplace_back();
          for (uint32_t j = 0; j < n; ++j) slots.back().push_back(get(op->operand(k++)));
        }
        ir::MetaArgs args{&slots, &op->attributes(), op->name().c_str()};
        bind(op, s.exec(args));
        return;
      }
      const std::string& name = op->name();
      if (name == "data") {
        Tensor t = input(op, feeds_, "input", "feed");
        if (plan_.grad_inputs.count(op->result(0)) && is_differentiable(t.dtype()))
          t = t.detach().set_stop_gradient(false);
        return bind(op, {t});
      }
      if (name == "parameter") return bind(op, {input(op, params_, "parameter", "parameters")});
      if (name == "cond") {
        const bool pred = truth(get(op->operand(0)), "cond");
        return bind(op, block(op->region(pred ? 0 : 1).block(), {}));
      }
      if (name == "fetch") return;  // marks an output; `run` returns what the caller asks for
      if (name == "grad") return bind(op, gradients(op));
      if (name == "while_loop") {
        std::vector<Tensor> vars;
        for (Value* v : op->operands()) vars.push_back(get(v));
        while (truth(block(op->region(0).block(), vars).at(0), "while_loop")) vars = block(op->region(1).block(), vars);
        return bind(op, std::move(vars));
      }
      OAR_THROW(Unimplemented, "Executor: op '", name, "' cannot run (no kernel is registered for it)");
    } catch (const Error& e) {
      throw Error(e.kind(), context(op, e));
    }
  }

  // The grad op: the eager backward engine over what the forward ops recorded in this run.
  // An input the outputs do not depend on gets zeros.
  std::vector<Tensor> gradients(const Operation* op) const {
    autograd::TensorList outs, ins, seeds;
    for (Value* v : op->slot(0)) outs.push_back(get(v));
    for (Value* v : op->slot(1)) ins.push_back(get(v));
    for (Value* v : op->slot(2)) seeds.push_back(get(v));
    for (const Tensor& t : ins)
      OAR_ENFORCE(t.requires_grad(), InvalidArgument, "grad: an input has stop_gradient=True (", describe(t),
                  "); only trainable parameters and values computed from them have gradients");
    autograd::TensorList g = autograd::grad(outs, ins, seeds, /*retain_graph=*/true, /*create_graph=*/false,
                                            /*allow_unused=*/true);
    for (size_t i = 0; i < g.size(); ++i)
      if (!g[i].defined()) g[i] = zeros(ins[i].shape(), ins[i].dtype());
    return std::vector<Tensor>(g.begin(), g.end());
  }

  // The one-element bool a cond or while_loop branches on.
  static bool truth(const Tensor& t, const char* op) {
    OAR_ENFORCE(t.numel() == 1, InvalidArgument, op, ": the condition must hold exactly one value, got shape ",
                shape_str(t.shape()));
    return t.item<bool>();
  }

  // A data or parameter op's tensor, checked against the type the program was built for.
  static Tensor input(const Operation* op, const NamedTensors& from, const char* what, const char* where) {
    const std::string name = op->attr("name")->as_string("name");
    const ir::TensorType& want = op->result(0)->type();
    auto it = from.find(name);
    if (it == from.end()) {
      std::string keys;
      for (auto& [k, v] : from) keys += (keys.empty() ? "" : ", ") + ("'" + k + "'");
      OAR_THROW(InvalidArgument, "the program needs ", what, " '", name, "' (", want.str(), ") but the ", where,
                " has no such name; it has [", keys, "]");
    }
    const Tensor& t = it->second;
    OAR_ENFORCE(t.defined(), InvalidArgument, what, " '", name, "' is an undefined tensor");
    bool ok = t.dtype() == want.dtype && t.ndim() == static_cast<int64_t>(want.shape.size());
    for (size_t i = 0; ok && i < want.shape.size(); ++i) ok = want.shape[i] < 0 || want.shape[i] == t.shape()[i];
    OAR_ENFORCE(ok, InvalidArgument, what, " '", name, "': expected ", want.str(), ", got ", describe(t));
    return t;
  }

  std::string context(const Operation* op, const Error& e) const {
    std::string msg = e.what();
    const std::string tag = std::string("(") + error_kind_name(e.kind()) + ") ";
    if (msg.rfind(tag, 0) == 0) msg = msg.substr(tag.size());
    if (msg.rfind("Executor: op '", 0) == 0) return tag + msg;  // an inner region's op said it already
    std::string s = tag + "Executor: op '" + op->name() + "'";
    std::string ins;
    for (const Value* v : op->operands()) {
      auto it = env_.find(v);
      ins += (ins.empty() ? "" : ", ") + (it == env_.end() ? v->type().str() : describe(it->second));
    }
    s += " (inputs: " + (ins.empty() ? std::string("none") : ins) + ")";
    if (!op->location().empty()) s += " at " + op->location();
    return s + ": " + msg;
  }

  const Plan& plan_;
  const NamedTensors& feeds_;
  const NamedTensors& params_;
  const std::unordered_set<const Value*>& keep_;
  const int64_t base_bytes_;
  std::unordered_map<const Value*, Tensor> env_;
};

Executor::Executor(std::shared_ptr<const ir::Program> program)
    : program_(std::move(program)), plan_(std::make_unique<Plan>()) {
  OAR_ENFORCE(program_ != nullptr, InvalidArgument, "Executor: the program is null");
  plan_->add(program_->block());
}

Executor::~Executor() = default;

std::vector<Tensor> Executor::run(const NamedTensors& feeds, const NamedTensors& params,
                                  const std::vector<const Value*>& fetch, RunStats* stats, bool autograd) const {
  std::unordered_set<const Value*> keep(fetch.begin(), fetch.end());
  for (const Value* v : fetch) {
    OAR_ENFORCE(v != nullptr, InvalidArgument, "Executor.run: a fetch target is null");
    const Block* owner = v->is_block_argument() ? v->argument_owner() : v->defining_op()->parent_block();
    OAR_ENFORCE(owner == &program_->block(), InvalidArgument,
                "Executor.run: fetch targets must be values of the program's top block (a value computed "
                "inside a cond or while_loop region is only visible there; yield it)");
  }
  ir::TracingScope eager(nullptr);  // ops run now, even while a program is being built
  autograd::GradModeGuard grad_mode(plan_->has_grad || (autograd && autograd::grad_enabled()));
  Run r(*plan_, feeds, params, keep);
  r.block(program_->block(), {});
  std::vector<Tensor> out;
  for (const Value* v : fetch) out.push_back(r.get(v));
  if (stats) *stats = r.stats;
  return out;
}

}  // namespace oar::runtime
