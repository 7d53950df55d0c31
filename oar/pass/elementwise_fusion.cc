#include "oar/pass/elementwise_fusion.h"

#include <algorithm>
#include <map>
#include <vector>

#include "oar/ir/builder.h"
#include "oar/ir/region.h"
#include "oar/ops/infer_meta/fused.h"
#include "oar/pass/rewrite_helpers.h"

namespace oar::pass {

namespace {

// The interpreter's opcode for op, or -1 when op cannot join a chain.
int64_t chain_code(const ir::Operation& op) {
  if (op.num_results() != 1 || op.num_regions() != 0) return -1;
  const int64_t code = infer_meta::fused_ew_code(op.name());
  if (code < 0) return -1;
  if (op.name() == "gelu") {
    const ir::Attribute* a = op.attr("approximate");
    if (!a || a->kind() != ir::AttrKind::Bool || a->as_bool()) return -1;
  }
  const ir::TensorType& t = op.result(0)->type();
  if (t.dtype != DType::Float32 && t.dtype != DType::Float64) return -1;
  if (op.num_operands() != (infer_meta::fused_ew_is_binary(code) ? 2u : 1u)) return -1;
  for (ir::Value* v : op.operands())
    if (v->type() != t) return -1;  // no broadcasting, no promotion
  return code;
}

struct Chain {
  std::vector<ir::Operation*> ops;  // in block order; the last one's result leaves the chain
};

// True when every reader of v could join a chain (so v may stay inside one).
bool only_chain_users(const ir::Value* v) {
  for (const ir::Use& u : v->uses())
    if (chain_code(*u.user) < 0 || u.user->parent_block() != v->defining_op()->parent_block()) return false;
  return v->has_uses();
}

size_t fuse_block(ir::Block& block) {
  size_t fused = 0;
  for (auto& op : block.ops())
    for (auto& r : op->regions())
      for (auto& b : r->blocks()) fused += fuse_block(*b);

  std::vector<Chain> chains;
  std::map<const ir::Operation*, size_t> chain_of;  // op -> index in chains
  for (auto& up : block.ops()) {
    ir::Operation* op = up.get();
    if (chain_code(*op) < 0) continue;
    // Join the chain of an op that feeds this one, when all readers of that value are chain
    // candidates (they may all end up inside the chain; checked below).
    long join = -1;
    for (ir::Value* v : op->operands()) {
      ir::Operation* def = v->defining_op();
      auto it = def ? chain_of.find(def) : chain_of.end();
      if (it != chain_of.end() && only_chain_users(v)) {
        join = static_cast<long>(it->second);
        break;
      }
    }
    if (join < 0) {
      join = static_cast<long>(chains.size());
      chains.push_back({});
    }
    chains[join].ops.push_back(op);
    chain_of[op] = static_cast<size_t>(join);
  }

  for (Chain& c : chains) {
    if (c.ops.size() < 2) continue;
    // Only the last op's result may be read outside the chain; otherwise leave the chain be.
    bool closed = true;
    for (size_t k = 0; k + 1 < c.ops.size(); ++k)
      for (const ir::Use& u : c.ops[k]->result(0)->uses())
        closed &= chain_of.count(u.user) && &chains[chain_of[u.user]] == &c;
    if (!closed) continue;
    // Registers: the chain's inputs (values from outside it) first, then one per op.
    std::vector<ir::Value*> inputs;
    std::map<const ir::Value*, int64_t> reg;
    for (ir::Operation* op : c.ops)
      for (ir::Value* v : op->operands())
        if (!reg.count(v) && !(v->defining_op() && chain_of.count(v->defining_op()) &&
                               &chains[chain_of[v->defining_op()]] == &c)) {
          reg[v] = static_cast<int64_t>(inputs.size());
          inputs.push_back(v);
        }
    std::vector<int64_t> program;
    int64_t next = static_cast<int64_t>(inputs.size());
    for (ir::Operation* op : c.ops) {
      const int64_t code = chain_code(*op);
      program.push_back(code);
      program.push_back(reg.at(op->operand(0)));
      program.push_back(infer_meta::fused_ew_is_binary(code) ? reg.at(op->operand(1)) : -1);
      reg[op->result(0)] = next++;
    }
    ir::Operation* last = c.ops.back();
    ir::Builder b(&block);
    b.set_insertion_point(&block, iterator_of(last));
    ir::Value* out = b.create1("fused_elementwise", {inputs}, {{"program", ir::Attribute::int_array(program)}});
    last->result(0)->replace_all_uses_with(out);
    for (auto it = c.ops.rbegin(); it != c.ops.rend(); ++it) block.erase(*it);
    ++fused;
  }
  return fused;
}

}  // namespace

bool ElementwiseFusion::run(ir::Program& program) {
  // fused_elementwise has no gradient: leave programs that differentiate (a `grad` op) alone.
  for (ir::Operation* op : program.all_ops())
    if (op->name() == "grad") return false;
  return fuse_block(program.block()) > 0;
}

}  // namespace oar::pass
