#include "oar/pass/buffer_plan.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "oar/ir/op_registry.h"
#include "oar/ir/region.h"

namespace oar::pass {

int64_t byte_size(const ir::TensorType& t) {
  int64_t n = 1;
  for (int64_t d : t.shape) {
    if (d < 0) return -1;
    n *= d;
  }
  return n * static_cast<int64_t>(dtype_size(t.dtype));
}

int BufferPlan::slot_of(const ir::Value* v) const {
  auto it = slot.find(v);
  return it == slot.end() ? -1 : it->second;
}

std::string BufferPlan::str() const {
  std::ostringstream os;
  os << "slots " << slot_bytes.size() << ", bytes without reuse " << bytes_without_reuse << ", with reuse "
     << bytes_with_reuse << ", in-place ops " << inplace.size();
  if (unknown_size_buffers) os << ", unknown-size buffers " << unknown_size_buffers;
  return os.str();
}

namespace {

bool is_external(const ir::Operation* op) { return op->name() == "data" || op->name() == "parameter"; }
bool is_view(const ir::Operation* op) { return op->def() && op->def()->is_view && op->num_operands() > 0; }

}  // namespace

BufferPlan plan_buffers(const ir::Block& block, const std::unordered_set<const ir::Value*>& live_out,
                        const InplacePredicate& can_run_in_place) {
  auto in_place_capable = [&](const ir::Operation* op) {
    if (can_run_in_place) return can_run_in_place(*op);
    return op->def() && !op->def()->inplace_variant.empty();
  };
  BufferPlan plan;
  std::vector<const ir::Operation*> ops;
  std::unordered_map<const ir::Operation*, size_t> index;
  for (auto& op : block.ops()) {
    index[op.get()] = ops.size();
    ops.push_back(op.get());
  }
  const size_t end = ops.size();  // "lives to the end"

  // The op of this block that holds `user` (itself, or the op whose region contains it).
  auto top_level = [&](const ir::Operation* user) -> const ir::Operation* {
    while (user && user->parent_block() != &block) user = user->parent_op();
    return user;
  };
  // Last use of every value defined here.
  for (const ir::Operation* op : ops)
    for (size_t r = 0; r < op->num_results(); ++r) {
      const ir::Value* v = op->result(r);
      size_t last = index[op];
      for (const ir::Use& u : v->uses())
        if (const ir::Operation* t = top_level(u.user)) {
          const bool yields = t->def() && t->def()->is_terminator;
          last = std::max(last, yields ? end : index[t]);
        }
      if (live_out.count(v)) last = end;
      plan.last_use[v] = last;
    }

  // Buffers: the base of each value (itself, or the base of a view's operand 0; null when the
  // memory is external) and the last use of each buffer over all its views.
  std::unordered_map<const ir::Value*, const ir::Value*> base;
  std::unordered_map<const ir::Value*, size_t> buffer_last;
  for (const ir::Operation* op : ops)
    for (size_t r = 0; r < op->num_results(); ++r) {
      const ir::Value* v = op->result(r);
      const ir::Value* b = v;
      if (is_external(op)) {
        b = nullptr;
      } else if (is_view(op)) {
        const ir::Value* src = op->operand(0);
        auto it = base.find(src);
        b = it == base.end() ? nullptr : it->second;  // a view of a block argument: external
      }
      base[v] = b;
      if (b) buffer_last[b] = std::max(buffer_last[b], plan.last_use[v]);
    }

  std::vector<std::vector<const ir::Value*>> dies_at(end);
  for (const ir::Operation* op : ops)
    for (size_t r = 0; r < op->num_results(); ++r) {
      const ir::Value* v = op->result(r);
      if (base[v] == v && buffer_last[v] < end) dies_at[buffer_last[v]].push_back(v);
    }
  std::multimap<int64_t, int> free_slots;  // byte size -> slot
  std::unordered_map<const ir::Value*, int> buffer_slot;
  std::unordered_set<const ir::Value*> transferred;  // handed to an in-place result
  for (size_t i = 0; i < end; ++i) {
    const ir::Operation* op = ops[i];
    for (size_t r = 0; r < op->num_results(); ++r) {
      const ir::Value* v = op->result(r);
      const ir::Value* b = base[v];
      if (b == nullptr) continue;
      if (b != v) {  // a view: its base's slot
        plan.slot[v] = buffer_slot.at(b);
        continue;
      }
      const int64_t bytes = byte_size(v->type());
      if (bytes >= 0) plan.bytes_without_reuse += bytes;
      else ++plan.unknown_size_buffers;
      int s = -1;
      if (r == 0 && op->num_results() == 1 && op->num_operands() > 0 && in_place_capable(op)) {
        // Same known byte size, or (unknown dims) the same type: the executor checks the shapes
        // when it runs.
        const ir::Value* x = op->operand(0);
        auto xb = base.find(x);
        const bool fits = bytes >= 0 ? byte_size(x->type()) == bytes : x->type() == v->type();
        if (xb != base.end() && xb->second == x && buffer_last[x] == i && fits &&
            x->type().dtype == v->type().dtype && !transferred.count(x)) {
          s = buffer_slot.at(x);
          transferred.insert(x);
          plan.inplace.insert(op);
        }
      }
      if (s < 0 && bytes >= 0) {
        auto it = free_slots.find(bytes);
        if (it != free_slots.end()) {
          s = it->second;
          free_slots.erase(it);
        }
      }
      if (s < 0) {
        s = static_cast<int>(plan.slot_bytes.size());
        plan.slot_bytes.push_back(bytes);
      }
      buffer_slot[v] = s;
      plan.slot[v] = s;
    }
    // Buffers whose last reader is this op give their slot back (in definition order, so that
    // the plan is deterministic).
    if (i < dies_at.size())
      for (const ir::Value* b : dies_at[i])
        if (!transferred.count(b) && plan.slot_bytes[buffer_slot.at(b)] >= 0)
          free_slots.emplace(plan.slot_bytes[buffer_slot.at(b)], buffer_slot.at(b));
  }
  for (int64_t bytes : plan.slot_bytes)
    if (bytes >= 0) plan.bytes_with_reuse += bytes;
  return plan;
}

}  // namespace oar::pass
