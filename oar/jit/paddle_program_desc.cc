#include "oar/jit/paddle_program_desc.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <unordered_map>

#include "oar/core/error.h"
#include "oar/core/shape.h"
#include "oar/io/paddle_tensor_file.h"
#include "oar/io/protobuf_wire.h"

namespace oar::jit::paddle {

namespace {

using io::WireField;
using io::WireReader;

// ---- the messages (field numbers of Paddle's framework.proto) --------------------------------
constexpr uint64_t kDenseTensor = 7, kFeedMinibatch = 9, kFetchList = 10;

struct Var {
  std::string name;
  uint64_t kind = kDenseTensor;  // VarType.type
  DType dtype = DType::Float32;
  bool has_dtype = false;
  std::vector<int64_t> dims;
  bool persistable = false;
};

struct Attr {
  uint64_t type = 0;  // AttrType: INT 0, FLOAT 1, STRING 2, INTS 3, FLOATS 4, STRINGS 5, BOOLEAN 6, ...
  int64_t i = 0;
  double f = 0;
  std::string s;
  bool b = false;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  bool is_block = false;
};

struct Op {
  std::string type;
  std::map<std::string, std::vector<std::string>> inputs, outputs;
  std::map<std::string, Attr> attrs;
  size_t index = 0;
};

class Decoder {
 public:
  explicit Decoder(std::string where) : where_(std::move(where)) {}

  void program(std::string_view bytes, std::vector<Var>* vars, std::vector<Op>* ops) {
    WireReader r(bytes, fail());
    WireField f;
    int blocks = 0;
    while (r.next(f)) {
      if (f.number != 1 || f.wire_type != 2) continue;  // version, op_version_map
      if (blocks++ == 0) block(f.bytes, vars, ops);
    }
    if (blocks == 0) fail()("it has no blocks");
  }

 private:
  WireReader::Fail fail() const {
    return [w = where_](const std::string& m) {
      OAR_THROW(InvalidArgument, "Paddle program file '", w, "' is corrupted or truncated: ", m);
    };
  }

  void block(std::string_view bytes, std::vector<Var>* vars, std::vector<Op>* ops) {
    WireReader r(bytes, fail());
    WireField f;
    while (r.next(f)) {
      if (f.number == 3 && f.wire_type == 2) vars->push_back(var(f.bytes));
      if (f.number == 4 && f.wire_type == 2) {
        ops->push_back(op(f.bytes));
        ops->back().index = ops->size() - 1;
      }
    }
  }

  Var var(std::string_view bytes) {
    Var v;
    WireReader r(bytes, fail());
    WireField f;
    while (r.next(f)) {
      if (f.number == 1 && f.wire_type == 2) v.name = std::string(f.bytes);
      else if (f.number == 3 && f.wire_type == 0) v.persistable = f.value != 0;
      else if (f.number == 2 && f.wire_type == 2) var_type(f.bytes, &v);
    }
    return v;
  }

  void var_type(std::string_view bytes, Var* v) {
    WireReader r(bytes, fail());
    WireField f;
    while (r.next(f)) {
      if (f.number == 1 && f.wire_type == 0) v->kind = f.value;
      if (f.number != 3 || f.wire_type != 2) continue;  // dense_tensor: {tensor: TensorDesc, lod_level}
      WireReader dense(f.bytes, fail());
      WireField d;
      while (dense.next(d)) {
        if (d.number != 1 || d.wire_type != 2) continue;
        WireReader tensor(d.bytes, fail());
        WireField t;
        while (tensor.next(t)) {
          if (t.number == 1 && t.wire_type == 0) v->has_dtype = io::dtype_of_paddle_code(t.value, &v->dtype);
          if (t.number == 2) tensor.varints(t, [&](uint64_t x) { v->dims.push_back(static_cast<int64_t>(x)); });
        }
      }
    }
  }

  Op op(std::string_view bytes) {
    Op o;
    WireReader r(bytes, fail());
    WireField f;
    while (r.next(f)) {
      if (f.number == 3 && f.wire_type == 2) o.type = std::string(f.bytes);
      else if ((f.number == 1 || f.number == 2) && f.wire_type == 2) slot(f.bytes, f.number == 1 ? &o.inputs : &o.outputs);
      else if (f.number == 4 && f.wire_type == 2) {
        std::string name;
        Attr a = attr(f.bytes, &name);
        o.attrs[name] = std::move(a);
      }
    }
    return o;
  }

  void slot(std::string_view bytes, std::map<std::string, std::vector<std::string>>* slots) {
    WireReader r(bytes, fail());
    WireField f;
    std::string parameter;
    std::vector<std::string> arguments;
    while (r.next(f)) {
      if (f.number == 1 && f.wire_type == 2) parameter = std::string(f.bytes);
      if (f.number == 2 && f.wire_type == 2) arguments.emplace_back(f.bytes);
    }
    (*slots)[parameter] = std::move(arguments);
  }

  Attr attr(std::string_view bytes, std::string* name) {
    Attr a;
    WireReader r(bytes, fail());
    WireField f;
    auto as_float = [](uint64_t bits) {
      float x;
      const auto b = static_cast<uint32_t>(bits);
      std::memcpy(&x, &b, 4);
      return static_cast<double>(x);
    };
    auto as_double = [](uint64_t bits) {
      double x;
      std::memcpy(&x, &bits, 8);
      return x;
    };
    while (r.next(f)) {
      switch (f.number) {
        case 1: *name = std::string(f.bytes); break;
        case 2: a.type = f.value; break;
        case 3: a.i = static_cast<int32_t>(f.value); break;  // int32 (negative: a 10-byte varint)
        case 13: a.i = static_cast<int64_t>(f.value); break;
        case 4: a.f = as_float(f.value); break;
        case 19: a.f = as_double(f.value); break;
        case 5: a.s = std::string(f.bytes); break;
        case 10: a.b = f.value != 0; break;
        case 6: r.varints(f, [&](uint64_t x) { a.ints.push_back(static_cast<int32_t>(x)); }); break;
        case 15: r.varints(f, [&](uint64_t x) { a.ints.push_back(static_cast<int64_t>(x)); }); break;
        case 11: r.varints(f, [&](uint64_t x) { a.ints.push_back(x != 0); }); break;
        case 7:
        case 16: {
          const bool wide = f.number == 16;
          if (f.wire_type != 2) {
            a.floats.push_back(wide ? as_double(f.value) : as_float(f.value));
            break;
          }
          const size_t n = wide ? 8 : 4;
          for (size_t k = 0; k + n <= f.bytes.size(); k += n) {
            uint64_t bits = 0;
            std::memcpy(&bits, f.bytes.data() + k, n);
            a.floats.push_back(wide ? as_double(bits) : as_float(bits));
          }
          break;
        }
        case 12:
        case 14: a.is_block = true; break;
        case 20: scalar(f.bytes, &a); break;
        default: break;  // strings, var names: no rewrite reads them
      }
    }
    return a;
  }

  void scalar(std::string_view bytes, Attr* a) {  // Scalar {type, b, i, r, c}
    WireReader r(bytes, fail());
    WireField f;
    while (r.next(f)) {
      if (f.number == 2) a->f = static_cast<double>(f.value != 0);
      if (f.number == 3) a->f = static_cast<double>(static_cast<int64_t>(f.value));
      if (f.number == 4) std::memcpy(&a->f, &f.value, 8);
    }
  }

  std::string where_;
};

// ---- the rewrite into PIR ops ---------------------------------------------------------------
PirAttr a_bool(bool v) { PirAttr a; a.kind = PirAttr::Bool; a.b = v; return a; }
PirAttr a_int(int64_t v) { PirAttr a; a.kind = PirAttr::Int; a.i = v; return a; }
PirAttr a_float(double v) { PirAttr a; a.kind = PirAttr::Float; a.f = v; return a; }
PirAttr a_str(const std::string& v) { PirAttr a; a.kind = PirAttr::Str; a.s = v; return a; }
PirAttr a_ints(std::vector<int64_t> v) { PirAttr a; a.kind = PirAttr::Ints; a.ints = std::move(v); return a; }
PirAttr a_dtype(DType t) { PirAttr a; a.kind = PirAttr::DType; a.dtype = t; a.s = dtype_name(t); return a; }

class Rewriter;
using Rewrite = std::function<void(Rewriter&, const Op&)>;
const std::unordered_map<std::string, Rewrite>& rewrites();

class Rewriter {
 public:
  Rewriter(std::string where, const std::vector<Var>& vars) : where_(std::move(where)) {
    for (const Var& v : vars) vars_[v.name] = v;
  }

  PirProgram run(const std::vector<Op>& ops) {
    // Persistable dense tensors are the parameters (in the .pdiparams file, sorted by name).
    for (auto& [name, v] : vars_)
      if (v.persistable && v.kind == kDenseTensor) {
        PirOp p;
        p.name = "builtin.parameter";
        p.parameter_name = name;
        p.outputs.push_back({define(name), type_of(name)});
        push(std::move(p));
      }
    for (const Op& op : ops) {
      op_ = &op;
      auto it = rewrites().find(op.type);
      OAR_ENFORCE(it != rewrites().end(), Unimplemented, "Paddle program '", where_, "': op ", op.type, " (op ",
                  op.index, ") has no oar translation (supported ops: docs/model_format.md)");
      for (auto& [name, a] : op.attrs)
        OAR_ENFORCE(!a.is_block, Unimplemented, "Paddle program '", where_, "': op ", op.type, " (op ", op.index,
                    ") has a sub-block (control flow), which oar does not read from legacy programs");
      try {
        it->second(*this, op);
      } catch (const std::out_of_range&) {
        OAR_THROW(InvalidArgument, "Paddle program '", where_, "' is malformed: op ", op.type, " (op ", op.index,
                  ") lacks an input, output or attribute it needs");
      }
    }
    return std::move(out_);
  }

  // ---- reading the legacy op ----
  const std::string& in(const Op& op, const char* slot, size_t k = 0) const { return op.inputs.at(slot).at(k); }
  bool has_in(const Op& op, const char* slot) const {
    auto it = op.inputs.find(slot);
    return it != op.inputs.end() && !it->second.empty();
  }
  const std::string& out(const Op& op, const char* slot, size_t k = 0) const { return op.outputs.at(slot).at(k); }
  const Attr* attr(const Op& op, const char* name) const {
    auto it = op.attrs.find(name);
    return it == op.attrs.end() ? nullptr : &it->second;
  }
  int64_t int_attr(const Op& op, const char* name, int64_t dflt) const {
    const Attr* a = attr(op, name);
    return a ? (a->type == 6 ? a->b : a->i) : dflt;
  }
  double float_attr(const Op& op, const char* name, double dflt) const {
    const Attr* a = attr(op, name);
    return a ? (a->type == 0 || a->type == 9 ? static_cast<double>(a->i) : a->f) : dflt;
  }
  bool bool_attr(const Op& op, const char* name, bool dflt) const {
    const Attr* a = attr(op, name);
    return a ? (a->type == 6 ? a->b : a->i != 0) : dflt;
  }
  std::string str_attr(const Op& op, const char* name, const std::string& dflt) const {
    const Attr* a = attr(op, name);
    return a ? a->s : dflt;
  }
  std::vector<int64_t> ints_attr(const Op& op, const char* name) const {
    const Attr* a = attr(op, name);
    return a ? a->ints : std::vector<int64_t>{};
  }
  DType dtype_attr(const Op& op, const char* name) const {
    DType t = DType::Float32;
    const int64_t code = int_attr(op, name, 5);
    OAR_ENFORCE(io::dtype_of_paddle_code(static_cast<uint64_t>(code), &t), Unimplemented, op.type, ": dtype code ",
                code, " of attribute '", name, "'");
    return t;
  }
  const std::vector<int64_t>& dims_of(const std::string& var) const { return vars_.at(var).dims; }
  void unsupported(const Op& op, const std::string& what) const {
    OAR_THROW(Unimplemented, "Paddle program '", where_, "': op ", op.type, " (op ", op.index, ") ", what);
  }

  // ---- writing PIR ops ----
  int64_t use(const std::string& var) {
    auto it = latest_.find(var);
    OAR_ENFORCE(it != latest_.end(), InvalidArgument, "Paddle program '", where_, "': op ", op_->type, " (op ",
                op_->index, ") reads variable '", var, "' before anything writes it");
    return it->second;
  }
  int64_t define(const std::string& var) { return latest_[var] = next_++; }
  PirType type_of(const std::string& var) const {
    PirType t;
    if (auto it = vars_.find(var); it != vars_.end()) {
      t.dtype = it->second.dtype;
      t.dims = it->second.dims;
    }
    return t;
  }

  // A PIR op; `outputs` are variable names (each a new value), `extra` more unnamed values.
  std::vector<int64_t> emit(const std::string& name, const std::vector<int64_t>& inputs,
                            std::map<std::string, PirAttr> attrs, const std::vector<std::string>& outputs,
                            size_t unnamed = 0) {
    PirOp o;
    o.name = name;
    o.inputs = inputs;
    o.attrs = std::move(attrs);
    std::vector<int64_t> ids;
    for (const std::string& v : outputs) {
      ids.push_back(define(v));
      o.outputs.push_back({ids.back(), type_of(v)});
    }
    for (size_t k = 0; k < unnamed; ++k) {
      ids.push_back(next_++);
      o.outputs.push_back({ids.back(), PirType{}});
    }
    push(std::move(o));
    return ids;
  }
  int64_t ints_constant(const std::vector<int64_t>& v) {
    return emit("pd_op.full_int_array", {}, {{"value", a_ints(v)}, {"dtype", a_dtype(DType::Int64)}}, {}, 1)[0];
  }
  int64_t scalar_constant(double v, DType dtype = DType::Float32) {
    return emit("pd_op.full", {}, {{"shape", a_ints({1})}, {"value", a_float(v)}, {"dtype", a_dtype(dtype)}}, {}, 1)[0];
  }
  int64_t combine(const std::vector<std::string>& vars) {
    std::vector<int64_t> ids;
    for (const std::string& v : vars) ids.push_back(use(v));
    return emit("builtin.combine", ids, {}, {}, 1)[0];
  }

 private:
  void push(PirOp o) {
    o.index = out_.block.ops.size();
    out_.block.ops.push_back(std::move(o));
  }
  std::string where_;
  std::map<std::string, Var> vars_;
  std::unordered_map<std::string, int64_t> latest_;
  int64_t next_ = 1;
  PirProgram out_;
  const Op* op_ = nullptr;
};

void unary(Rewriter& rw, const Op& op, const std::string& pir, std::map<std::string, PirAttr> attrs = {}) {
  rw.emit("pd_op." + pir, {rw.use(rw.in(op, "X"))}, std::move(attrs), {rw.out(op, "Out")});
}

// Legacy elementwise ops align Y with X at `axis` (Y [C] against X [N, C, H, W] at axis 1):
// reshape Y to X's rank with ones around it, then broadcast as usual.
void elementwise(Rewriter& rw, const Op& op, const std::string& pir) {
  const std::string &x = rw.in(op, "X"), &y = rw.in(op, "Y");
  const int64_t rx = static_cast<int64_t>(rw.dims_of(x).size()), ry = static_cast<int64_t>(rw.dims_of(y).size());
  int64_t axis = rw.int_attr(op, "axis", -1);
  int64_t yid = rw.use(y);
  if (axis != -1 && ry < rx) {
    if (axis < 0) axis += rx;
    std::vector<int64_t> shape(static_cast<size_t>(axis), 1);
    for (int64_t d : rw.dims_of(y)) shape.push_back(d);
    while (static_cast<int64_t>(shape.size()) < rx) shape.push_back(1);
    if (std::count(shape.begin(), shape.end(), -1) > 1) rw.unsupported(op, "aligns a Y of several unknown dims");
    yid = rw.emit("pd_op.reshape", {yid, rw.ints_constant(shape)}, {}, {}, 1)[0];
  }
  rw.emit("pd_op." + pir, {rw.use(x), yid}, {}, {rw.out(op, "Out")});
}

void conv(Rewriter& rw, const Op& op) {
  if (rw.has_in(op, "Bias") || rw.has_in(op, "ResidualData")) rw.unsupported(op, "is a fused convolution");
  rw.emit("pd_op.conv2d", {rw.use(rw.in(op, "Input")), rw.use(rw.in(op, "Filter"))},
          {{"strides", a_ints(rw.ints_attr(op, "strides"))}, {"paddings", a_ints(rw.ints_attr(op, "paddings"))},
           {"dilations", a_ints(rw.ints_attr(op, "dilations"))}, {"groups", a_int(rw.int_attr(op, "groups", 1))},
           {"padding_algorithm", a_str(rw.str_attr(op, "padding_algorithm", "EXPLICIT"))},
           {"data_format", a_str(rw.str_attr(op, "data_format", "NCHW"))}},
          {rw.out(op, "Output")});
}

void pool2d(Rewriter& rw, const Op& op) {
  rw.emit("pd_op.pool2d", {rw.use(rw.in(op, "X")), rw.ints_constant(rw.ints_attr(op, "ksize"))},
          {{"strides", a_ints(rw.ints_attr(op, "strides"))}, {"paddings", a_ints(rw.ints_attr(op, "paddings"))},
           {"ceil_mode", a_bool(rw.bool_attr(op, "ceil_mode", false))},
           {"exclusive", a_bool(rw.bool_attr(op, "exclusive", true))},
           {"data_format", a_str(rw.str_attr(op, "data_format", "NCHW"))},
           {"pooling_type", a_str(rw.str_attr(op, "pooling_type", "max"))},
           {"global_pooling", a_bool(rw.bool_attr(op, "global_pooling", false))},
           {"adaptive", a_bool(rw.bool_attr(op, "adaptive", false))},
           {"padding_algorithm", a_str(rw.str_attr(op, "padding_algorithm", "EXPLICIT"))}},
          {rw.out(op, "Out")});
}

void batch_norm(Rewriter& rw, const Op& op) {
  const std::vector<int64_t> inputs = {rw.use(rw.in(op, "X")), rw.use(rw.in(op, "Mean")), rw.use(rw.in(op, "Variance")),
                                       rw.use(rw.in(op, "Scale")), rw.use(rw.in(op, "Bias"))};
  rw.emit("pd_op.batch_norm", inputs,
          {{"is_test", a_bool(rw.bool_attr(op, "is_test", true))}, {"momentum", a_float(rw.float_attr(op, "momentum", 0.9))},
           {"epsilon", a_float(rw.float_attr(op, "epsilon", 1e-5))},
           {"data_format", a_str(rw.str_attr(op, "data_layout", "NCHW"))},
           {"use_global_stats", a_bool(rw.bool_attr(op, "use_global_stats", false))},
           {"trainable_statistics", a_bool(rw.bool_attr(op, "trainable_statistics", false))}},
          {rw.out(op, "Y"), rw.out(op, "MeanOut"), rw.out(op, "VarianceOut")});
}

void reshape(Rewriter& rw, const Op& op) {
  if (rw.has_in(op, "Shape") || rw.has_in(op, "ShapeTensor")) rw.unsupported(op, "takes its shape from tensors");
  const int64_t shape = rw.ints_constant(rw.ints_attr(op, "shape"));
  rw.emit("pd_op.reshape", {rw.use(rw.in(op, "X")), shape}, {}, {rw.out(op, "Out")});
}

void with_axes(Rewriter& rw, const Op& op, const std::string& pir, const char* attr) {
  const int64_t axes = rw.ints_constant(rw.ints_attr(op, attr));
  rw.emit("pd_op." + pir, {rw.use(rw.in(op, "X")), axes}, {}, {rw.out(op, "Out")});
}

void reduce(Rewriter& rw, const Op& op, const std::string& pir) {
  const bool all = rw.bool_attr(op, "reduce_all", false);
  const int64_t axes = rw.ints_constant(all ? std::vector<int64_t>{} : rw.ints_attr(op, "dim"));
  rw.emit("pd_op." + pir, {rw.use(rw.in(op, "X")), axes}, {{"keepdim", a_bool(rw.bool_attr(op, "keep_dim", false))}},
          {rw.out(op, "Out")});
}

const std::unordered_map<std::string, Rewrite>& rewrites() {
  static const std::unordered_map<std::string, Rewrite> table = [] {
    std::unordered_map<std::string, Rewrite> t;
    t["feed"] = [](Rewriter& rw, const Op& op) {
      const std::string& var = rw.out(op, "Out");
      const PirType type = rw.type_of(var);
      rw.emit("pd_op.data", {}, {{"name", a_str(var)}, {"shape", a_ints(type.dims)}, {"dtype", a_dtype(type.dtype)}},
              {var});
    };
    t["fetch"] = [](Rewriter& rw, const Op& op) {
      const std::string& var = rw.in(op, "X");
      rw.emit("pd_op.fetch", {rw.use(var)}, {{"name", a_str(var)}}, {}, 1);
    };
    t["conv2d"] = conv;
    t["depthwise_conv2d"] = conv;
    t["pool2d"] = pool2d;
    t["batch_norm"] = batch_norm;
    for (auto [legacy, pir] : std::vector<std::pair<const char*, const char*>>{
             {"elementwise_add", "add"}, {"elementwise_sub", "subtract"}, {"elementwise_mul", "multiply"},
             {"elementwise_div", "divide"}, {"elementwise_max", "maximum"}, {"elementwise_min", "minimum"},
             {"elementwise_pow", "elementwise_pow"}})
      t[legacy] = [pir = std::string(pir)](Rewriter& rw, const Op& op) { elementwise(rw, op, pir); };
    for (const char* n : {"relu", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "abs", "silu", "floor", "ceil",
                          "sin", "cos", "erf", "square", "reciprocal", "softsign"})
      t[n] = [n](Rewriter& rw, const Op& op) { unary(rw, op, n); };
    t["relu6"] = [](Rewriter& rw, const Op& op) {
      if (rw.float_attr(op, "threshold", 6.0) != 6.0) rw.unsupported(op, "has a threshold other than 6");
      unary(rw, op, "relu6");
    };
    t["hard_swish"] = [](Rewriter& rw, const Op& op) {
      if (rw.float_attr(op, "threshold", 6) != 6 || rw.float_attr(op, "scale", 6) != 6 ||
          rw.float_attr(op, "offset", 3) != 3)
        rw.unsupported(op, "has a threshold, scale or offset other than 6, 6, 3");
      unary(rw, op, "hardswish");
    };
    t["hard_sigmoid"] = [](Rewriter& rw, const Op& op) {
      unary(rw, op, "hardsigmoid", {{"slope", a_float(rw.float_attr(op, "slope", 0.2))},
                                    {"offset", a_float(rw.float_attr(op, "offset", 0.5))}});
    };
    t["swish"] = [](Rewriter& rw, const Op& op) {
      if (rw.float_attr(op, "beta", 1.0) != 1.0) rw.unsupported(op, "has a beta other than 1");
      unary(rw, op, "silu");
    };
    t["gelu"] = [](Rewriter& rw, const Op& op) {
      unary(rw, op, "gelu", {{"approximate", a_bool(rw.bool_attr(op, "approximate", false))}});
    };
    t["leaky_relu"] = [](Rewriter& rw, const Op& op) {
      unary(rw, op, "leaky_relu", {{"negative_slope", a_float(rw.float_attr(op, "alpha", 0.02))}});
    };
    t["softmax"] = [](Rewriter& rw, const Op& op) { unary(rw, op, "softmax", {{"axis", a_int(rw.int_attr(op, "axis", -1))}}); };
    t["transpose2"] = [](Rewriter& rw, const Op& op) { unary(rw, op, "transpose", {{"perm", a_ints(rw.ints_attr(op, "axis"))}}); };
    t["transpose"] = t["transpose2"];
    t["flatten_contiguous_range"] = [](Rewriter& rw, const Op& op) {
      unary(rw, op, "flatten", {{"start_axis", a_int(rw.int_attr(op, "start_axis", 1))},
                                {"stop_axis", a_int(rw.int_attr(op, "stop_axis", -1))}});
    };
    t["cast"] = [](Rewriter& rw, const Op& op) { unary(rw, op, "cast", {{"dtype", a_dtype(rw.dtype_attr(op, "out_dtype"))}}); };
    t["assign"] = [](Rewriter& rw, const Op& op) { unary(rw, op, "assign"); };
    t["reshape2"] = reshape;
    t["reshape"] = reshape;
    t["squeeze2"] = [](Rewriter& rw, const Op& op) { with_axes(rw, op, "squeeze", "axes"); };
    t["unsqueeze2"] = [](Rewriter& rw, const Op& op) { with_axes(rw, op, "unsqueeze", "axes"); };
    t["reduce_mean"] = [](Rewriter& rw, const Op& op) { reduce(rw, op, "mean"); };
    t["reduce_sum"] = [](Rewriter& rw, const Op& op) { reduce(rw, op, "sum"); };
    t["reduce_max"] = [](Rewriter& rw, const Op& op) { reduce(rw, op, "max"); };
    t["matmul_v2"] = [](Rewriter& rw, const Op& op) {
      rw.emit("pd_op.matmul", {rw.use(rw.in(op, "X")), rw.use(rw.in(op, "Y"))},
              {{"transpose_x", a_bool(rw.bool_attr(op, "trans_x", false))},
               {"transpose_y", a_bool(rw.bool_attr(op, "trans_y", false))}},
              {rw.out(op, "Out")});
    };
    t["matmul"] = [](Rewriter& rw, const Op& op) {
      const double alpha = rw.float_attr(op, "alpha", 1.0);
      std::vector<int64_t> ids = rw.emit(
          "pd_op.matmul", {rw.use(rw.in(op, "X")), rw.use(rw.in(op, "Y"))},
          {{"transpose_x", a_bool(rw.bool_attr(op, "transpose_X", false))},
           {"transpose_y", a_bool(rw.bool_attr(op, "transpose_Y", false))}},
          alpha == 1.0 ? std::vector<std::string>{rw.out(op, "Out")} : std::vector<std::string>{}, alpha == 1.0 ? 0 : 1);
      if (alpha != 1.0)
        rw.emit("pd_op.scale", {ids[0], rw.scalar_constant(alpha)}, {{"bias", a_float(0)}, {"bias_after_scale", a_bool(true)}},
                {rw.out(op, "Out")});
    };
    t["mul"] = [](Rewriter& rw, const Op& op) {
      if (rw.dims_of(rw.in(op, "X")).size() != 2 || rw.int_attr(op, "x_num_col_dims", 1) != 1 ||
          rw.int_attr(op, "y_num_col_dims", 1) != 1)
        rw.unsupported(op, "flattens inputs of more than 2 dims");
      rw.emit("pd_op.matmul", {rw.use(rw.in(op, "X")), rw.use(rw.in(op, "Y"))},
              {{"transpose_x", a_bool(false)}, {"transpose_y", a_bool(false)}}, {rw.out(op, "Out")});
    };
    t["dropout"] = [](Rewriter& rw, const Op& op) {
      const int64_t p = rw.scalar_constant(rw.float_attr(op, "dropout_prob", 0.5));
      rw.emit("pd_op.dropout", {rw.use(rw.in(op, "X")), 0, p},
              {{"is_test", a_bool(rw.bool_attr(op, "is_test", false))},
               {"mode", a_str(rw.str_attr(op, "dropout_implementation", "downgrade_in_infer"))}},
              {rw.out(op, "Out")});
    };
    t["scale"] = [](Rewriter& rw, const Op& op) {
      if (rw.has_in(op, "ScaleTensor")) rw.unsupported(op, "takes its scale from a tensor");
      rw.emit("pd_op.scale", {rw.use(rw.in(op, "X")), rw.scalar_constant(rw.float_attr(op, "scale", 1.0))},
              {{"bias", a_float(rw.float_attr(op, "bias", 0.0))},
               {"bias_after_scale", a_bool(rw.bool_attr(op, "bias_after_scale", true))}},
              {rw.out(op, "Out")});
    };
    t["layer_norm"] = [](Rewriter& rw, const Op& op) {
      rw.emit("pd_op.layer_norm",
              {rw.use(rw.in(op, "X")), rw.has_in(op, "Scale") ? rw.use(rw.in(op, "Scale")) : 0,
               rw.has_in(op, "Bias") ? rw.use(rw.in(op, "Bias")) : 0},
              {{"epsilon", a_float(rw.float_attr(op, "epsilon", 1e-5))},
               {"begin_norm_axis", a_int(rw.int_attr(op, "begin_norm_axis", 1))}},
              {rw.out(op, "Y")});
    };
    t["concat"] = [](Rewriter& rw, const Op& op) {
      if (rw.has_in(op, "AxisTensor")) rw.unsupported(op, "takes its axis from a tensor");
      const int64_t xs = rw.combine(op.inputs.at("X"));
      rw.emit("pd_op.concat", {xs, rw.scalar_constant(static_cast<double>(rw.int_attr(op, "axis", 0)), DType::Int32)}, {},
              {rw.out(op, "Out")});
    };
    t["stack"] = [](Rewriter& rw, const Op& op) {
      rw.emit("pd_op.stack", {rw.combine(op.inputs.at("X"))}, {{"axis", a_int(rw.int_attr(op, "axis", 0))}},
              {rw.out(op, "Y")});
    };
    t["fill_constant"] = [](Rewriter& rw, const Op& op) {
      if (rw.has_in(op, "ShapeTensor") || rw.has_in(op, "ValueTensor")) rw.unsupported(op, "takes tensors");
      const std::string text = rw.str_attr(op, "str_value", "");
      const double value = text.empty() ? rw.float_attr(op, "value", 0.0) : std::stod(text);
      rw.emit("pd_op.full", {}, {{"shape", a_ints(rw.ints_attr(op, "shape"))}, {"value", a_float(value)},
                                 {"dtype", a_dtype(rw.dtype_attr(op, "dtype"))}},
              {rw.out(op, "Out")});
    };
    t["slice"] = [](Rewriter& rw, const Op& op) {
      if (rw.has_in(op, "StartsTensor") || rw.has_in(op, "EndsTensor") || rw.has_in(op, "StartsTensorList") ||
          rw.has_in(op, "EndsTensorList"))
        rw.unsupported(op, "takes its bounds from tensors");
      const int64_t starts = rw.ints_constant(rw.ints_attr(op, "starts")), ends = rw.ints_constant(rw.ints_attr(op, "ends"));
      rw.emit("pd_op.slice", {rw.use(rw.in(op, "Input")), starts, ends},
              {{"axes", a_ints(rw.ints_attr(op, "axes"))}, {"decrease_axis", a_ints(rw.ints_attr(op, "decrease_axis"))}},
              {rw.out(op, "Out")});
    };
    t["lookup_table_v2"] = [](Rewriter& rw, const Op& op) {
      rw.emit("pd_op.embedding", {rw.use(rw.in(op, "Ids")), rw.use(rw.in(op, "W"))},
              {{"padding_idx", a_int(rw.int_attr(op, "padding_idx", -1))}}, {rw.out(op, "Out")});
    };
    return t;
  }();
  return table;
}

}  // namespace

bool looks_like_program_desc(const std::string& bytes) {
  return !bytes.empty() && bytes[0] == 0x0a;  // field 1 (blocks), length-delimited
}

PirProgram parse_program_desc(const std::string& bytes, const std::string& where) {
  std::vector<Var> vars;
  std::vector<Op> ops;
  Decoder(where).program(bytes, &vars, &ops);
  PirProgram p = Rewriter(where, vars).run(ops);
  p.version = 0;
  return p;
}

}  // namespace oar::jit::paddle
