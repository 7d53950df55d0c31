#include "oar/pass/blocked_conv.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "oar/ir/builder.h"
#include "oar/ops/infer_meta/blocked.h"
#include "oar/pass/rewrite_helpers.h"

namespace oar::pass {

namespace {

using ir::Attribute;
using ir::Operation;
using ir::Value;

std::string string_attr(const Operation& op, const char* name, const std::string& fallback) {
  const Attribute* a = op.attr(name);
  return a && a->kind() == ir::AttrKind::Str ? a->as_string() : fallback;
}

// Paddle's per-dim forms (one value, one per dim) -> 2 values; nullopt for other forms.
std::optional<std::vector<int64_t>> two(const Operation& op, const char* name) {
  const Attribute* a = op.attr(name);
  if (!a || a->kind() != ir::AttrKind::IntArray) return std::nullopt;
  const auto& v = a->as_int_array();
  if (v.size() == 1) return std::vector<int64_t>{v[0], v[0]};
  if (v.size() == 2) return v;
  return std::nullopt;
}

// Padding as [top, bottom, left, right] from 1, 2 or 4 values; nullopt for other forms.
std::optional<std::vector<int64_t>> pairs(const Operation& op) {
  const Attribute* a = op.attr("padding");
  if (!a || a->kind() != ir::AttrKind::IntArray) return std::nullopt;
  const auto& v = a->as_int_array();
  if (v.size() == 1) return std::vector<int64_t>{v[0], v[0], v[0], v[0]};
  if (v.size() == 2) return std::vector<int64_t>{v[0], v[0], v[1], v[1]};
  if (v.size() == 4) return v;
  return std::nullopt;
}

bool nchw_float32(const Value* v, bool known_channels) {
  const ir::TensorType& t = v->type();
  if (t.dtype != DType::Float32 || t.shape.size() != 4) return false;
  if (known_channels && t.shape[1] < 0) return false;
  return t.shape[2] >= 0 && t.shape[3] >= 0;  // spatial sizes known: windows are fixed
}

// A conv2d / fused_conv2d_bias_act this pass can take over, in resolved form.
struct Conv {
  Value *x, *weight, *bias;
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
  std::string activation;
};

std::optional<Conv> as_conv(const Operation& op) {
  if (op.name() != "conv2d" && op.name() != "fused_conv2d_bias_act") return std::nullopt;
  if (op.num_results() != 1 || string_attr(op, "data_format", "") != "NCHW" ||
      string_attr(op, "padding_algorithm", "") != "EXPLICIT")
    return std::nullopt;
  Conv c;
  c.activation = op.name() == "conv2d" ? "none" : string_attr(op, "activation", "");
  if (c.activation != "none" && c.activation != "relu") return std::nullopt;
  c.x = op.slot(0).at(0);
  c.weight = op.slot(1).at(0);
  const auto b = op.slot(2);
  c.bias = b.empty() ? nullptr : b[0];
  if (!nchw_float32(c.x, true) || !nchw_float32(op.result(0), true)) return std::nullopt;
  const ir::TensorType& w = c.weight->type();
  if (w.dtype != DType::Float32 || w.shape.size() != 4) return std::nullopt;
  for (int64_t d : w.shape)
    if (d < 0) return std::nullopt;
  auto s = two(op, "stride"), d = two(op, "dilation");
  auto p = pairs(op);
  const Attribute* g = op.attr("groups");
  if (!s || !d || !p || !g || g->kind() != ir::AttrKind::Int) return std::nullopt;
  c.stride = *s;
  c.dilation = *d;
  c.padding = *p;
  c.groups = g->as_int();
  return c;
}

// The single reader of v, or null.
Operation* only_reader(const Value* v) {
  const auto& uses = v->uses();
  return uses.size() == 1 ? uses.front().user : nullptr;
}

ir::AttributeMap conv_attrs(const Conv& c, bool blocked_out) {
  return {{"stride", Attribute::int_array(c.stride)},       {"padding", Attribute::int_array(c.padding)},
          {"dilation", Attribute::int_array(c.dilation)},   {"groups", Attribute::integer(c.groups)},
          {"activation", Attribute::string(c.activation)}, {"blocked_out", Attribute::boolean(blocked_out)}};
}

// Step 1: each eligible conv (with its residual add and relu) -> one conv2d_fused, plain out.
bool fuse_epilogues(ir::Block& block) {
  std::vector<Operation*> ops;
  for (auto& op : block.ops()) ops.push_back(op.get());
  std::unordered_set<Operation*> gone;
  bool changed = false;
  for (Operation* op : ops) {
    if (gone.count(op)) continue;
    std::optional<Conv> c = as_conv(*op);
    if (!c) continue;
    std::vector<Operation*> absorbed{op};
    Value* out = op->result(0);
    Value* residual = nullptr;
    Operation* add = only_reader(out);
    if (c->activation == "none" && add && add->name() == "add" && add->parent_block() == &block &&
        add->result(0)->type() == out->type()) {
      Value* other = add->operand(0) == out ? add->operand(1) : add->operand(0);
      if (other != out && other->type() == out->type()) {
        residual = other;
        absorbed.push_back(add);
        out = add->result(0);
        Operation* relu = only_reader(out);
        if (relu && relu->name() == "relu" && relu->parent_block() == &block) {
          c->activation = "relu";
          absorbed.push_back(relu);
          out = relu->result(0);
        }
      }
    }
    ir::Builder b(&block);
    b.set_insertion_point(&block, iterator_of(absorbed.back()));
    Value* fused = b.create1("conv2d_fused",
                             {{c->x}, {c->weight}, c->bias ? std::vector<Value*>{c->bias} : std::vector<Value*>{},
                              residual ? std::vector<Value*>{residual} : std::vector<Value*>{}},
                             conv_attrs(*c, false));
    out->replace_all_uses_with(fused);
    for (auto it = absorbed.rbegin(); it != absorbed.rend(); ++it) {
      gone.insert(*it);
      block.erase(*it);
    }
    changed = true;
  }
  return changed;
}

// A max_pool2d this pass can run on blocked values: kernel, stride, padding pairs, ceil_mode.
struct Pool {
  std::vector<int64_t> kernel, stride, padding;
  bool ceil_mode;
};

std::optional<Pool> as_max_pool(const Operation& op) {
  if (op.name() != "max_pool2d" || string_attr(op, "data_format", "") != "NCHW" ||
      string_attr(op, "padding_algorithm", "") != "EXPLICIT" || !nchw_float32(op.result(0), true))
    return std::nullopt;
  auto k = two(op, "kernel_size"), p = pairs(op);
  if (!k || !p) return std::nullopt;
  Pool pool{*k, *k, *p, false};
  const Attribute* s = op.attr("stride");
  if (s && s->kind() == ir::AttrKind::IntArray && !s->as_int_array().empty()) {
    auto st = two(op, "stride");
    if (!st) return std::nullopt;
    pool.stride = *st;
  }
  const Attribute* cm = op.attr("ceil_mode");
  pool.ceil_mode = cm && cm->kind() == ir::AttrKind::Bool && cm->as_bool();
  return pool;
}

bool is_global_avg_pool(const Operation& op) {
  if (op.name() != "adaptive_avg_pool2d" || string_attr(op, "data_format", "") != "NCHW") return false;
  auto o = two(op, "output_size");
  return o && (*o)[0] == 1 && (*o)[1] == 1;
}

// Padded lanes cost a convolution reading them multiply-adds (LeNet's 6 channels would become
// 16: its second conv did 2.7x the work, 15% slower end to end), and oneDNN itself reads
// few-channel inputs in NCHW: a conv reads blocked input only where the padding adds at most a
// quarter. (Pools may: their cost is per vector of 16 lanes either way.)
bool worth_blocking(int64_t channels) {
  const int64_t padded = (channels + infer_meta::kChannelBlock - 1) / infer_meta::kChannelBlock * infer_meta::kChannelBlock;
  return channels > 0 && padded * 4 <= channels * 5;
}

// Whether `reader` would read operand `v` blocked: pools always (a vector per pixel whatever the
// channel count), convolutions when v's channels are worth blocking.
bool reads_blocked(const Operation& reader, const Value* v) {
  if (reader.name() == "conv2d_fused")
    return (reader.operand(0) == v || reader.slot(3) == std::vector<Value*>{const_cast<Value*>(v)}) &&
           worth_blocking(v->type().shape[1]);
  return as_max_pool(reader).has_value() || is_global_avg_pool(reader);
}

bool any_reader_blocked(const Value* v) {
  for (const ir::Use& u : v->uses())
    if (u.user->parent_block() == v->defining_op()->parent_block() && reads_blocked(*u.user, v)) return true;
  return false;
}


// Step 2: a few-channel first layer and its max pool -> conv2d_max_pool_fused (NCHW in and out).
// Above this many taps per output a convolution is better left to oneDNN.
constexpr int64_t kFusedPoolMaxTaps = 64;

bool ints_are(const Operation& op, const char* name, int64_t v) {
  const Attribute* a = op.attr(name);
  if (!a || a->kind() != ir::AttrKind::IntArray) return false;
  for (int64_t x : a->as_int_array())
    if (x != v) return false;
  return true;
}

bool fuse_first_layer_pools(ir::Block& block) {
  std::vector<Operation*> ops;
  for (auto& op : block.ops()) ops.push_back(op.get());
  bool changed = false;
  std::unordered_set<const Operation*> erased;  // pools already replaced: `ops` still lists them
  for (Operation* op : ops) {
    if (erased.count(op)) continue;
    if (op->name() != "conv2d_fused" || !op->slot(3).empty() || op->operand(0)->type().shape.size() != 4 ||
        !ints_are(*op, "stride", 1) || !ints_are(*op, "dilation", 1) || op->attr("groups")->as_int() != 1)
      continue;
    const Shape& w = op->operand(1)->type().shape;
    const Shape& conv_out = op->result(0)->type().shape;
    if (w[1] * w[2] * w[3] > kFusedPoolMaxTaps || worth_blocking(w[0]) || conv_out[3] > infer_meta::kConvPoolMaxRow)
      continue;
    Operation* pool_op = only_reader(op->result(0));
    if (!pool_op || pool_op->parent_block() != &block) continue;
    std::optional<Pool> pool = as_max_pool(*pool_op);
    if (!pool) continue;
    ir::Builder b(&block);
    b.set_insertion_point(&block, iterator_of(pool_op));
    Value* fused = b.create1(
        "conv2d_max_pool_fused", {op->slot(0), op->slot(1), op->slot(2)},
        {{"padding", *op->attr("padding")}, {"activation", *op->attr("activation")},
         {"pool_kernel", Attribute::int_array(pool->kernel)}, {"pool_stride", Attribute::int_array(pool->stride)},
         {"pool_padding", Attribute::int_array(pool->padding)}, {"ceil_mode", Attribute::boolean(pool->ceil_mode)}});
    erased.insert(pool_op);
    replace_op(pool_op, {fused});
    block.erase(op);
    changed = true;
  }
  return changed;
}

// Step 3: blocked outputs and readers. New ops are built beside the old ones; at the end each
// old value still read by something else reads one to_plain_layout, and the old ops go.
bool block_layouts(ir::Block& block) {
  std::vector<Operation*> ops;
  for (auto& op : block.ops()) ops.push_back(op.get());
  std::vector<std::pair<Value*, Value*>> replaced;  // old plain value -> its blocked twin, in order
  std::unordered_map<Value*, Value*> blocked;
  ir::Builder b(&block);
  auto blocked_of = [&](Value* v) -> Value* {
    auto it = blocked.find(v);
    return it == blocked.end() ? nullptr : it->second;
  };
  for (Operation* op : ops) {
    Value* out = op->num_results() == 1 ? op->result(0) : nullptr;
    b.set_insertion_point(&block, iterator_of(op));
    if (op->name() == "conv2d_fused") {
      Value* x = op->operand(0);
      // Few channels: read NCHW (the old value, which gets its to_plain_layout below).
      Value* xb = worth_blocking(x->type().shape[1]) ? blocked_of(x) : nullptr;
      const auto res = op->slot(3);
      // Else the primitive writes NCHW itself.
      const bool blocked_out = any_reader_blocked(out);
      if (!xb && !blocked_out) continue;
      // A residual must be in the result's layout.
      std::vector<Value*> rb;
      if (!res.empty()) {
        Value* r = blocked_of(res[0]);
        // An NCHW read keeps the old value, which gets its one to_plain_layout below.
        if (blocked_out) rb.push_back(r ? r : b.create1("to_blocked_layout", {{res[0]}}));
        else rb.push_back(res[0]);
      }
      ir::AttributeMap attrs = op->attributes();
      attrs["blocked_out"] = Attribute::boolean(blocked_out);
      Value* nb = b.create1("conv2d_fused", {{xb ? xb : x}, op->slot(1), op->slot(2), rb}, attrs);
      if (blocked_out) {
        blocked[out] = nb;
        replaced.emplace_back(out, nb);
      } else {
        replace_op(op, {nb});
      }
      continue;
    }
    if (!out || op->num_operands() != 1) continue;
    Value* xb = blocked_of(op->operand(0));
    if (!xb) continue;
    Value* nb = nullptr;
    if (auto pool = as_max_pool(*op)) {
      nb = b.create1("max_pool2d_blocked", {{xb}},
                     {{"kernel_size", Attribute::int_array(pool->kernel)}, {"stride", Attribute::int_array(pool->stride)},
                      {"padding", Attribute::int_array(pool->padding)}, {"ceil_mode", Attribute::boolean(pool->ceil_mode)}});
    } else if (is_global_avg_pool(*op)) {
      nb = b.create1("global_avg_pool2d_blocked", {{xb}});
    }
    if (!nb) continue;
    blocked[out] = nb;
    replaced.emplace_back(out, nb);
  }
  // Readers last: an old op is erased before the values it reads are checked for readers.
  for (auto it = replaced.rbegin(); it != replaced.rend(); ++it) {
    auto [old, nb] = *it;
    Operation* def = old->defining_op();
    if (old->has_uses()) {
      Operation* after = nb->defining_op();
      b.set_insertion_point(&block, std::next(iterator_of(after)));
      Value* plain = b.create1("to_plain_layout", {{nb}}, {{"channels", Attribute::integer(old->type().shape[1])}});
      old->replace_all_uses_with(plain);
    }
    block.erase(def);
  }
  return !replaced.empty();
}

}  // namespace

bool BlockedConvolutions::run(ir::Program& program) {
  for (Operation* op : program.all_ops())
    if (op->name() == "grad") return false;
  const bool fused = fuse_epilogues(program.block());
  const bool first = fuse_first_layer_pools(program.block());
  const bool blocked = block_layouts(program.block());
  return fused || first || blocked;
}

}  // namespace oar::pass
