#include "oar/ops/amp.h"
#include "oar/runtime/executor.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unordered_set>

#include "oar/autograd/engine.h"
#include "oar/autograd/grad_mode.h"
#include "oar/core/allocator.h"
#include "oar/core/parallel.h"
#include "oar/ops/generated/api/creation.h"
#include "oar/ops/generated/api/elementwise.h"
#include "oar/ops/generated/api/reduce.h"
#include "oar/ops/op_helpers.h"
#include "oar/ops/op_observer.h"
#include "oar/pass/buffer_plan.h"
#include "oar/runtime/inplace_ops.h"
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

// Per block: the ops in order with their operand and result ids, and after each op the values
// of this block it was the last reader of (a use inside a region counts as a use by the op owning
// the region). For the top block also the dependency graph the parallel scheduler uses.
struct Executor::Plan {
  struct Step {
    const Operation* op;
    ir::ExecFn exec;                 // null for the built-in ops
    std::vector<size_t> operands;    // value ids in operand order
    std::vector<size_t> results;
    std::vector<size_t> release;     // sequential runs: values dead after this op
    std::vector<size_t> reads;       // parallel runs: this block's values the op (or its regions) reads
    std::vector<size_t> dependents;  // parallel runs: steps waiting for this one
    size_t num_deps = 0;
    InplaceFn inplace = nullptr;     // the buffer plan lets it write over operand 0 (dies here)
  };
  struct BlockPlan {
    std::vector<Step> steps;
    std::vector<size_t> args;         // ids of the block arguments
    std::vector<size_t> unused_args;  // block arguments nobody reads
  };
  std::vector<const Value*> values;  // Program::values() order: values[id]
  std::unordered_map<const Value*, size_t> id;
  std::unordered_map<const Block*, BlockPlan> blocks;
  std::vector<int> readers;           // top-block values: how many steps read each
  bool has_grad = false;              // a grad op needs autograd to record the forward ops
  bool has_random = false;
  std::unordered_set<size_t> grad_inputs;  // differentiated w.r.t. (inputs get requires_grad)

  explicit Plan(const ir::Program& program) {
    for (Value* v : program.values()) values.push_back(v);
    for (size_t i = 0; i < values.size(); ++i) id[values[i]] = i;
    readers.assign(values.size(), 0);
    add(program.block());
    schedule(program.block());
  }

  void add(const Block& b) {
    BlockPlan& bp = blocks[&b];
    std::unordered_map<const Operation*, size_t> index;
    for (size_t i = 0; i < b.num_arguments(); ++i) bp.args.push_back(id.at(b.argument(i)));
    for (auto& op : b.ops()) {
      index[op.get()] = bp.steps.size();
      const ir::OpDef* def = op->def();
      if (op->name() == "grad") {
        has_grad = true;
        for (Value* v : op->slot(1)) grad_inputs.insert(id.at(v));
      }
      has_random = has_random || (def && def->is_random);
      Step st{op.get(), def ? def->exec : nullptr, {}, {}, {}, {}, {}, 0, nullptr};
      for (Value* v : op->operands()) st.operands.push_back(id.at(v));
      for (size_t r = 0; r < op->num_results(); ++r) st.results.push_back(id.at(op->result(r)));
      bp.steps.push_back(std::move(st));
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
      if (last < 0) bp.unused_args.push_back(id.at(v));
      else bp.steps[last].release.push_back(id.at(v));
    };
    for (size_t i = 0; i < b.num_arguments(); ++i) plan_value(b.argument(i), -1);
    for (size_t i = 0; i < bp.steps.size(); ++i)
      for (size_t r = 0; r < bp.steps[i].op->num_results(); ++r)
        plan_value(bp.steps[i].op->result(r), static_cast<long>(i));
    // In-place steps from the buffer plan: operand 0 dies at the op and the op has an in-place
    // kernel. Fetched values are not known here; the run checks that nothing else holds the
    // memory before it writes (Run::try_inplace).
    const pass::BufferPlan buffers =
        pass::plan_buffers(b, {}, [](const Operation& op) { return inplace_kernel(op) != nullptr; });
    for (Step& st : bp.steps)
      if (buffers.inplace.count(st.op)) st.inplace = inplace_kernel(*st.op);
    for (auto& op : b.ops())
      for (auto& region : op->regions())
        for (auto& inner : region->blocks()) add(*inner);
  }

  // Dependencies between the top block's steps: step j waits for the steps defining what it
  // reads (directly or inside its regions).
  void schedule(const Block& top) {
    BlockPlan& bp = blocks.at(&top);
    std::unordered_map<const Operation*, size_t> index;
    size_t k = 0;
    for (auto& op : top.ops()) index[op.get()] = k++;
    for (size_t j = 0; j < bp.steps.size(); ++j) {
      std::unordered_set<size_t> producers, reads;
      auto visit = [&](const Operation* op, auto& self) -> void {
        for (Value* v : op->operands()) {
          const Operation* def = v->defining_op();
          if (def && def->parent_block() == &top) {
            producers.insert(index.at(def));
            reads.insert(id.at(v));
          }
        }
        for (auto& r : op->regions())
          for (auto& b : r->blocks())
            for (auto& inner : b->ops()) self(inner.get(), self);
      };
      visit(bp.steps[j].op, visit);
      for (size_t p : producers) bp.steps[p].dependents.push_back(j);
      bp.steps[j].num_deps = producers.size();
      bp.steps[j].reads.assign(reads.begin(), reads.end());
      for (size_t v : reads) ++readers[v];
    }
  }
};

// The state of one run: the live tensors by value id, and the statistics.
class Executor::Run {
 public:
  Run(const Plan& plan, const NamedTensors& feeds, const NamedTensors& params, const std::vector<bool>& keep)
      : plan_(plan), feeds_(feeds), params_(params), keep_(keep),
        base_bytes_(CPUAllocator::instance().stats().allocated), env_(plan.readers.size()) {}

  // Runs `b` with `args` bound to its arguments; returns the values its terminator yields.
  std::vector<Tensor> block(const Block& b, const std::vector<Tensor>& args) {
    const Plan::BlockPlan& bp = plan_.blocks.at(&b);
    for (size_t i = 0; i < args.size(); ++i) env_[bp.args[i]] = args[i];
    for (size_t v : bp.unused_args) drop(v);
    std::vector<Tensor> yielded;
    for (const Plan::Step& s : bp.steps) {
      if (s.op->def() && s.op->def()->is_terminator) {
        for (size_t v : s.operands) yielded.push_back(get(v));
      } else if (profile_) {
        profiled_step(s);
      } else {
        step(s);
      }
      for (size_t v : s.release) drop(v);
      note_memory();
    }
    return yielded;
  }

  // The top block with independent steps on `threads` threads at once.
  void parallel(const Block& top, int threads) {
    const Plan::BlockPlan& bp = plan_.blocks.at(&top);
    const size_t n = bp.steps.size();
    std::vector<size_t> waiting(n);
    std::vector<int> unread(plan_.readers);
    std::vector<size_t> ready;
    for (size_t i = 0; i < n; ++i)
      if ((waiting[i] = bp.steps[i].num_deps) == 0) ready.push_back(i);
    std::mutex mu;
    std::condition_variable cv;
    size_t finished = 0;
    std::exception_ptr error;
    const int intra = std::max(1, get_num_threads() / threads);
    const bool grad = autograd::grad_enabled();
    auto worker = [&] {
      ThreadCountScope cores(intra);
      autograd::GradModeGuard mode(grad);
      ir::TracingScope eager(nullptr);
      std::unique_lock<std::mutex> lock(mu);
      while (true) {
        cv.wait(lock, [&] { return !ready.empty() || finished == n || error; });
        if (finished == n || error) return;
        const size_t i = ready.back();
        ready.pop_back();
        const Plan::Step& s = bp.steps[i];
        lock.unlock();
        try {
          step(s);
        } catch (...) {
          lock.lock();
          if (!error) error = std::current_exception();
          cv.notify_all();
          return;
        }
        lock.lock();
        for (size_t d : s.dependents)
          if (--waiting[d] == 0) ready.push_back(d);
        for (size_t v : s.reads)
          if (--unread[v] == 0) drop(v);
        for (size_t v : s.results)
          if (plan_.readers[v] == 0) drop(v);
        note_memory();
        ++finished;
        cv.notify_all();
      }
    };
    std::vector<std::thread> pool;
    const Place place = expected_place();  // the run's place: each worker creates tensors there
    const amp::State amp_state = amp::state();  // and computes in the run's auto_cast state
    for (int t = 1; t < threads; ++t)
      pool.emplace_back([&worker, place, &amp_state] {
        ExpectedPlaceGuard on(place);
        amp::set_state(amp_state);
        worker();
      });
    worker();
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
  }

  // OAR_EXEC_PROFILE=1: each op's time, result type and the allocator's peak during it (above
  // the bytes live before the run), one line per op on stderr; for finding where time and memory go.
  void profiled_step(const Plan::Step& s) {
    CachingAllocator& a = CPUAllocator::instance();
    a.reset_peak();
    const auto t0 = std::chrono::steady_clock::now();
    step(s);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    std::string out;
    for (size_t v : s.results) out += (out.empty() ? "" : " ") + (env_[v].defined() ? describe(env_[v]) : std::string("-"));
    std::fprintf(stderr, "[exec] %-24s %9.1f us  peak %8.1f KB  %s\n", s.op->name().c_str(), us,
                 static_cast<double>(a.stats().peak_allocated - base_bytes_) / 1024.0, out.c_str());
  }

  const Tensor& get(size_t v) const {
    const Tensor& t = env_[v];
    OAR_ENFORCE(t.defined(), PreconditionNotMet, "Executor: a value is read before it is computed (or after it was freed)");
    return t;
  }
  size_t id_of(const Value* v) const { return plan_.id.at(v); }

  // The run's statistics (ops counted by step, possibly on several workers).
  RunStats stats() const { return RunStats{peak_bytes_, ops_run_.load(), ops_in_place_}; }

 private:
  void drop(size_t v) {
    if (!keep_[v]) env_[v] = Tensor();
  }
  // Called between ops: on the one running thread, or by a worker holding the scheduler's lock.
  void note_memory() {
    peak_bytes_ = std::max(peak_bytes_, CPUAllocator::instance().stats().allocated - base_bytes_);
  }

  void bind(const Plan::Step& s, std::vector<Tensor>&& results) {
    OAR_ENFORCE(results.size() == s.results.size(), PreconditionNotMet, "Executor: op '", s.op->name(),
                "' gave ", results.size(), " results, the program expects ", s.results.size());
    for (size_t i = 0; i < results.size(); ++i) env_[s.results[i]] = std::move(results[i]);
  }

  // Runs an in-place step over operand 0's memory when nothing but this run holds it (not
  // fetched, no view or second operand on it, not a feed's or NumPy's buffer, no autograd);
  // false: the caller runs the op out of place.
  bool try_inplace(const Plan::Step& s) {
    const size_t x = s.operands[0];
    if (!inplace_allowed_ || keep_[x]) return false;
    for (size_t k = 1; k < s.operands.size(); ++k)
      if (s.operands[k] == x) return false;  // x read twice: one handle would stay
    std::vector<Tensor> in;
    in.reserve(s.operands.size());
    in.push_back(get(x));
    env_[x] = Tensor();  // `in` holds the only handle the run had
    for (size_t k = 1; k < s.operands.size(); ++k) in.push_back(get(s.operands[k]));
    if (!is_exclusive_temporary(in[0]) || !s.inplace(*s.op, in)) {
      env_[x] = std::move(in[0]);
      return false;
    }
    env_[s.results[0]] = std::move(in[0]);
    ++ops_in_place_;
    return true;
  }

  void step(const Plan::Step& s) {
    const Operation* op = s.op;
    ops_run_.fetch_add(1);
    try {
      // Observed runs (profiler, nan/inf checker, op statistics) take the op path: the in-place
      // variants call kernels directly, which observers would not see.
      if (s.inplace && !ops::observing() && try_inplace(s)) return;
      if (s.exec) {
        std::vector<std::vector<Tensor>> slots;
        size_t k = 0;
        for (uint32_t n : op->segments()) {
          slots.emplace_back();
          for (uint32_t j = 0; j < n; ++j) slots.back().push_back(get(s.operands[k++]));
        }
        ir::MetaArgs args{&slots, &op->attributes(), op->name().c_str()};
        bind(s, s.exec(args));
        return;
      }
      const std::string& name = op->name();
      if (name == "data") {
        Tensor t = input(op, feeds_, "input", "feed");
        if (plan_.grad_inputs.count(s.results[0]) && is_differentiable(t.dtype()))
          t = t.detach().set_stop_gradient(false);
        return bind(s, {t});
      }
      if (name == "parameter") return bind(s, {input(op, params_, "parameter", "parameters")});
      if (name == "cond") {
        const bool pred = truth(get(s.operands[0]), "cond");
        return bind(s, block(op->region(pred ? 0 : 1).block(), {}));
      }
      if (name == "fetch") return;  // marks an output; `run` returns what the caller asks for
      if (name == "grad") return bind(s, gradients(s));
      if (name == "while_loop") {
        std::vector<Tensor> vars;
        for (size_t v : s.operands) vars.push_back(get(v));
        while (truth(block(op->region(0).block(), vars).at(0), "while_loop")) vars = block(op->region(1).block(), vars);
        return bind(s, std::move(vars));
      }
      OAR_THROW(Unimplemented, "Executor: op '", name, "' cannot run (no kernel is registered for it)");
    } catch (const Error& e) {
      throw Error(e.kind(), context(s, e));
    }
  }

  // The grad op: the eager backward engine over what the forward ops recorded in this run.
  // An input the outputs do not depend on gets zeros.
  std::vector<Tensor> gradients(const Plan::Step& s) const {
    autograd::TensorList outs, ins, seeds;
    const auto& seg = s.op->segments();
    size_t k = 0;
    for (uint32_t j = 0; j < seg[0]; ++j) outs.push_back(get(s.operands[k++]));
    for (uint32_t j = 0; j < seg[1]; ++j) ins.push_back(get(s.operands[k++]));
    for (uint32_t j = 0; j < seg[2]; ++j) seeds.push_back(get(s.operands[k++]));
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
    return t.to(expected_place());  // the run's place (see run); itself when already there
  }

  std::string context(const Plan::Step& s, const Error& e) const {
    const Operation* op = s.op;
    std::string msg = e.what();
    const std::string tag = std::string("(") + error_kind_name(e.kind()) + ") ";
    if (msg.rfind(tag, 0) == 0) msg = msg.substr(tag.size());
    if (msg.rfind("Executor: op '", 0) == 0) return tag + msg;  // an inner region's op said it already
    std::string ins;
    for (size_t i = 0; i < s.operands.size(); ++i) {
      const Tensor& t = env_[s.operands[i]];
      ins += (ins.empty() ? "" : ", ") + (t.defined() ? describe(t) : op->operand(i)->type().str());
    }
    std::string out = tag + "Executor: op '" + op->name() + "' (inputs: " + (ins.empty() ? std::string("none") : ins) + ")";
    if (!op->location().empty()) out += " at " + op->location();
    return out + ": " + msg;
  }

  const Plan& plan_;
  const NamedTensors& feeds_;
  const NamedTensors& params_;
  const std::vector<bool>& keep_;
  const int64_t base_bytes_;
  std::vector<Tensor> env_;
  int64_t peak_bytes_ = 0;
  std::atomic<int64_t> ops_run_{0};
  const bool profile_ = std::getenv("OAR_EXEC_PROFILE") != nullptr;
  // In-place steps run in sequential runs without autograd recording (set by `run`).
  bool inplace_allowed_ = false;
  int64_t ops_in_place_ = 0;

 public:
  void allow_inplace(bool on) { inplace_allowed_ = on; }
};

Executor::Executor(std::shared_ptr<const ir::Program> program, ExecutorOptions options)
    : program_(std::move(program)), options_(options) {
  OAR_ENFORCE(program_ != nullptr, InvalidArgument, "Executor: the program is null");
  OAR_ENFORCE(options_.inter_op_threads >= 1, InvalidArgument, "Executor: inter_op_threads must be at least 1, got ",
              options_.inter_op_threads);
  plan_ = std::make_unique<Plan>(*program_);
}

Executor::~Executor() = default;

const std::vector<const Value*>& Executor::values() const { return plan_->values; }

std::vector<Tensor> Executor::run(const NamedTensors& feeds, const NamedTensors& params,
                                  const std::vector<const Value*>& fetch, RunStats* stats, bool autograd) const {
  std::vector<bool> keep(plan_->readers.size(), false);
  for (const Value* v : fetch) {
    OAR_ENFORCE(v != nullptr, InvalidArgument, "Executor.run: a fetch target is null");
    const Block* owner = v->is_block_argument() ? v->argument_owner() : v->defining_op()->parent_block();
    OAR_ENFORCE(owner == &program_->block(), InvalidArgument,
                "Executor.run: fetch targets must be values of the program's top block (a value computed "
                "inside a cond or while_loop region is only visible there; yield it)");
    keep[plan_->id.at(v)] = true;
  }
  ir::TracingScope eager(nullptr);  // ops run now, even while a program is being built
  ExpectedPlaceGuard on(options_.place);  // inputs are moved here and ops without inputs run here
  autograd::GradModeGuard grad_mode(plan_->has_grad || (autograd && autograd::grad_enabled()));
  Run r(*plan_, feeds, params, keep);
  const bool parallel = options_.inter_op_threads > 1 && !plan_->has_grad && !plan_->has_random &&
                        !autograd::grad_enabled();
  if (parallel) {
    r.parallel(program_->block(), options_.inter_op_threads);
  } else {
    r.allow_inplace(!autograd::grad_enabled() && options_.place.is_host());  // host in-place kernels
    r.block(program_->block(), {});
  }
  std::vector<Tensor> out;
  for (const Value* v : fetch) out.push_back(r.get(r.id_of(v)));
  if (stats) *stats = r.stats();
  return out;
}

}  // namespace oar::runtime
