#include "oar/jit/paddle_export.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "oar/core/error.h"
#include "oar/ir/block.h"
#include "oar/ir/operation.h"

namespace oar::jit::paddle {

namespace {

using Json = nlohmann::json;
using ir::Operation;
using ir::Value;

// ---- the file's vocabulary (as Paddle 3.3's serializer writes it) ----------------------------
const char* dtype_tag(DType t) {
  switch (t) {
    case DType::Bool: return "0.t_bool";
    case DType::Int8: return "0.t_i8";
    case DType::UInt8: return "0.t_ui8";
    case DType::Int16: return "0.t_i16";
    case DType::Int32: return "0.t_i32";
    case DType::Int64: return "0.t_i64";
    case DType::Float16: return "0.t_f16";
    case DType::BFloat16: return "0.t_bf16";
    case DType::Float32: return "0.t_f32";
    case DType::Float64: return "0.t_f64";
    case DType::Complex64: return "0.t_c64";
    case DType::Complex128: return "0.t_c128";
  }
  return "0.t_f32";
}

Json tensor_type(DType dtype, const std::vector<int64_t>& dims) {
  return {{"#", "0.t_dtensor"}, {"D", Json::array({Json{{"#", dtype_tag(dtype)}}, dims, "NCHW", Json::array(), 0})}};
}
Json tensor_type(const ir::TensorType& t) { return tensor_type(t.dtype, t.shape); }
Json vector_type(const std::vector<Json>& elements) { return {{"#", "0.t_vec"}, {"D", elements}}; }

Json typed(const char* tag, Json data) { return {{"#", tag}, {"D", std::move(data)}}; }
Json a_bool(bool v) { return typed("0.a_bool", v); }
Json a_i32(int64_t v) { return typed("0.a_i32", v); }
Json a_f32(double v) { return typed("0.a_f32", static_cast<double>(static_cast<float>(v))); }
Json a_f64(double v) { return typed("0.a_f64", v); }
Json a_str(const std::string& v) { return typed("0.a_str", v); }
Json a_dtype(DType t) { return typed("1.a_dtype", dtype_name(t)); }
Json a_place(bool cpu) { return typed("1.a_place", Json::array({cpu ? 1 : 0, 0, ""})); }
Json a_intarray(const std::vector<int64_t>& v) { return typed("1.a_intarray", v); }
Json a_array(const char* element_tag, const std::vector<int64_t>& v) {
  Json items = Json::array();
  for (int64_t x : v) items.push_back(typed(element_tag, x));
  return typed("0.a_array", items);
}

using Attrs = std::vector<std::pair<std::string, Json>>;

class Exporter;
using Translator = std::function<void(Exporter&, const Operation&)>;
const std::unordered_map<std::string, Translator>& translators();

// Expands an IntArray written for 2 spatial dims with one value ([3] → [3, 3]).
std::vector<int64_t> pair_of(std::vector<int64_t> v) {
  if (v.size() == 1) v.push_back(v[0]);
  return v;
}

class Exporter {
 public:
  explicit Exporter(const std::set<std::string>& trainable) : trainable_(trainable) {}

  // Writes every op; with `failures`, records the ops without a Paddle form instead of throwing.
  void run(const ir::Block& block, std::vector<std::string>* failures) {
    for (auto& op : block.ops()) {
      auto it = translators().find(op->name());
      try {
        OAR_ENFORCE(op->num_regions() == 0, Unimplemented, "control flow has no Paddle form oar writes yet");
        OAR_ENFORCE(it != translators().end(), Unimplemented, "oar writes no Paddle form of this op yet");
        it->second(*this, *op);
      } catch (const Error& e) {
        if (!failures) throw Error(e.kind(), "jit.save in Paddle's format: op '" + op->name() + "': " + e.what());
        if (e.kind() == ErrorKind::Unimplemented && !missing_input_) record(failures, op->name(), e.what());
        missing_input_ = false;
      }
    }
  }

  // One entry per op name: "quantize_linear ×3: <why>" (the message without its kind and source line).
  static void record(std::vector<std::string>* failures, const std::string& name, std::string why) {
    if (why.size() > 2 && why[0] == '(') why = why.substr(why.find(") ") + 2);
    if (const size_t at = why.rfind(" ["); at != std::string::npos) why.resize(at);
    for (std::string& f : *failures) {
      const bool once = f.rfind(name + ":", 0) == 0, more = f.rfind(name + " ×", 0) == 0;
      if (!once && !more) continue;
      const int n = once ? 1 : std::stoi(f.substr(name.size() + 3));  // "×" is 2 bytes in UTF-8
      f = name + " ×" + std::to_string(n + 1) + f.substr(f.find(':'));
      return;
    }
    failures->push_back(name + ": " + why);
  }

  std::string text() const {
    Json root = {{"base_code", {{"magic", "pir"}, {"trainable", true}, {"version", 4}}},
                 {"program", {{"regions", Json::array({Json{
                                  {"#", "region_0"},
                                  {"blocks", Json::array({Json{{"#", "block_0"}, {"args", Json::array()}, {"ops", ops_}}})}}})}}}};
    return root.dump();
  }

  // ---- values ----
  int64_t id(const Value* v) {
    auto it = ids_.find(v);
    if (it == ids_.end()) {
      missing_input_ = true;  // its producer failed: report that op, not this one
      OAR_THROW(Unimplemented, "an input comes from an op without a Paddle form");
    }
    return it->second;
  }
  void bind(const Value* v, int64_t id) { ids_[v] = id; }

  // Emits a Paddle op; returns the ids of its outputs (consecutive).
  std::vector<int64_t> op(const std::string& name, const std::vector<int64_t>& inputs, const Attrs& attrs,
                          const std::vector<Json>& out_types) {
    Json a = Json::array(), in = Json::array(), out = Json::array();
    for (auto& [n, v] : attrs) a.push_back({{"AT", v}, {"N", n}});
    for (int64_t i : inputs) in.push_back({{"%", i}});
    std::vector<int64_t> ids;
    for (const Json& t : out_types) {
      ids.push_back(next_++);
      out.push_back({{"%", ids.back()}, {"TT", t}});
    }
    ops_.push_back({{"#", name}, {"A", a}, {"I", in}, {"O", out}});
    return ids;
  }
  int64_t op1(const std::string& name, const std::vector<int64_t>& inputs, const Attrs& attrs, const Json& type) {
    return op(name, inputs, attrs, {type})[0];
  }

  // A parameter (persistable: its tensor is in the .pdiparams file; else Paddle makes it, as the
  // state of an RNN's dropout).
  int64_t parameter(const std::string& name, const ir::TensorType& type, bool persistable = true) {
    const bool train = persistable && trainable_.count(name) > 0;
    const int64_t id = next_++;
    ops_.push_back({{"#", "p"}, {"A", Json::array({0, 1, 1, name})}, {"DA", Json::array()},
                    {"O", {{"%", id}, {"TT", tensor_type(type)}}},
                    {"OA", Json::array({persistable ? 1 : 0, train ? 0 : 1, train ? 1 : 0})}, {"QA", Json::array()}});
    return id;
  }
  int64_t dropout_state() {
    return parameter("rnn_" + std::to_string(rnns_++) + ".dropout_state__non_persistable",
                     ir::TensorType(DType::UInt8, {}), false);
  }
  int64_t full_int_array(const std::vector<int64_t>& v) {
    return op1("1.full_int_array", {},
               {{"value", a_array("0.a_i64", v)}, {"dtype", a_dtype(DType::Int64)}, {"place", a_place(true)}},
               tensor_type(DType::Int64, {static_cast<int64_t>(v.size())}));
  }
  int64_t full(const std::vector<int64_t>& shape, double value, DType dtype) {
    return op1("1.full", {},
               {{"shape", a_intarray(shape)}, {"value", a_f64(value)}, {"dtype", a_dtype(dtype)}, {"place", a_place(true)}},
               tensor_type(dtype, shape));
  }
  int64_t next_fetch_column() { return fetches_++; }
  int64_t combine(const std::vector<const Value*>& values) {
    std::vector<int64_t> ids;
    std::vector<Json> types;
    for (const Value* v : values) {
      ids.push_back(id(v));
      types.push_back(tensor_type(v->type()));
    }
    return op1("0.combine", ids, {}, vector_type(types));
  }

 private:
  const std::set<std::string>& trainable_;
  Json ops_ = Json::array();
  std::unordered_map<const Value*, int64_t> ids_;
  int64_t next_ = 1;
  int64_t fetches_ = 0;
  int64_t rnns_ = 0;
  bool missing_input_ = false;
};

// ---- attribute access on oar ops ------------------------------------------------------------
const ir::Attribute& attr(const Operation& op, const char* name) {
  const ir::Attribute* a = op.attr(name);
  OAR_ENFORCE(a != nullptr, InvalidArgument, "lacks attribute '", name, "'");
  return *a;
}
std::vector<int64_t> ints(const Operation& op, const char* name) { return attr(op, name).as_int_array(name); }
double scalar(const Operation& op, const char* name) { return attr(op, name).as_scalar(name).to<double>(); }
Value* operand(const Operation& op, size_t slot) {
  std::vector<Value*> v = op.slot(slot);
  return v.empty() ? nullptr : v[0];
}
Json type_of(const Value* v) { return tensor_type(v->type()); }

// ---- translators ----------------------------------------------------------------------------
void same_unary(Exporter& ex, const Operation& op, const std::string& paddle_name, const Attrs& attrs = {}) {
  ex.bind(op.result(0), ex.op1("1." + paddle_name, {ex.id(op.operand(0))}, attrs, type_of(op.result(0))));
}
void same_binary(Exporter& ex, const Operation& op, const std::string& paddle_name) {
  ex.bind(op.result(0),
          ex.op1("1." + paddle_name, {ex.id(op.operand(0)), ex.id(op.operand(1))}, {}, type_of(op.result(0))));
}

// Adds a per-channel bias to a conv output: reshape to [1, C, 1, 1] (or [1, 1, 1, C]) and add.
int64_t add_channel_bias(Exporter& ex, int64_t out, const Value* result, const Value* bias, int64_t channel_axis) {
  std::vector<int64_t> shape(result->type().rank(), 1);
  shape[channel_axis] = -1;
  std::vector<int64_t> static_shape = shape;
  static_shape[channel_axis] = bias->type().shape.at(0);
  const int64_t b = ex.op1("1.reshape", {ex.id(bias), ex.full_int_array(shape)}, {}, tensor_type(bias->type().dtype, static_shape));
  return ex.op1("1.add", {out, b}, {}, type_of(result));
}

void conv2d(Exporter& ex, const Operation& op) {
  const std::string format = attr(op, "data_format").as_string();
  const Value* x = op.operand(0);
  const Value* w = operand(op, 1);
  const int64_t out = ex.op1(
      "1.conv2d", {ex.id(x), ex.id(w)},
      {{"strides", a_array("0.a_i32", pair_of(ints(op, "stride")))},
       {"paddings", a_array("0.a_i32", pair_of(ints(op, "padding")))},
       {"padding_algorithm", a_str(attr(op, "padding_algorithm").as_string())},
       {"dilations", a_array("0.a_i32", pair_of(ints(op, "dilation")))},
       {"groups", a_i32(attr(op, "groups").as_int())},
       {"data_format", a_str(format)}},
      type_of(op.result(0)));
  const Value* bias = operand(op, 2);
  ex.bind(op.result(0), bias ? add_channel_bias(ex, out, op.result(0), bias, format == "NCHW" ? 1 : 3) : out);
}

void pool2d(Exporter& ex, const Operation& op, const std::string& type, bool adaptive) {
  std::vector<int64_t> kernel = pair_of(ints(op, adaptive ? "output_size" : "kernel_size"));
  std::vector<int64_t> stride = {1, 1}, padding = {0, 0};
  bool ceil_mode = false, exclusive = true;
  std::string format = op.attr("data_format") ? attr(op, "data_format").as_string() : "NCHW";
  std::string algorithm = "EXPLICIT";
  if (!adaptive) {
    const ir::Attribute& s = attr(op, "stride");
    stride = s.is_none() || s.as_int_array().empty() ? kernel : pair_of(s.as_int_array());
    padding = pair_of(ints(op, "padding"));
    ceil_mode = attr(op, "ceil_mode").as_bool();
    algorithm = attr(op, "padding_algorithm").as_string();
    if (op.attr("exclusive")) exclusive = attr(op, "exclusive").as_bool();
    if (const ir::Attribute* d = op.attr("divisor_override"))
      OAR_ENFORCE(d->is_none(), Unimplemented, "Paddle's pool2d has no divisor_override");
  }
  ex.bind(op.result(0),
          ex.op1("1.pool2d", {ex.id(op.operand(0)), ex.full_int_array(kernel)},
                 {{"strides", a_array("0.a_i64", stride)}, {"paddings", a_array("0.a_i64", padding)},
                  {"ceil_mode", a_bool(ceil_mode)}, {"exclusive", a_bool(exclusive)}, {"data_format", a_str(format)},
                  {"pooling_type", a_str(type)}, {"global_pooling", a_bool(false)}, {"adaptive", a_bool(adaptive)},
                  {"padding_algorithm", a_str(algorithm)}},
                 type_of(op.result(0))));
}

void batch_norm(Exporter& ex, const Operation& op) {
  // inputs: x, running_mean, running_var, weight?, bias? → Paddle's batch_norm_ (its six outputs).
  const Value* x = op.operand(0);
  const Value* mean = operand(op, 1);
  const Value* weight = operand(op, 3);
  const Value* bias = operand(op, 4);
  OAR_ENFORCE(weight && bias, Unimplemented, "batch norm without weight or bias");
  const int64_t channel_axis = attr(op, "channel_axis").as_int();
  const bool batch_stats = attr(op, "use_batch_stats").as_bool();
  const Json stat = type_of(mean);
  std::vector<int64_t> outs = ex.op(
      "1.batch_norm_", {ex.id(x), ex.id(mean), ex.id(operand(op, 2)), ex.id(weight), ex.id(bias)},
      {{"is_test", a_bool(!batch_stats)}, {"momentum", a_f32(attr(op, "momentum").as_float())},
       {"epsilon", a_f32(attr(op, "epsilon").as_float())},
       {"data_format", a_str(channel_axis == 1 ? "NCHW" : "NHWC")}, {"use_global_stats", a_bool(false)},
       {"trainable_statistics", a_bool(false)}},
      {type_of(op.result(0)), stat, stat, stat, stat, tensor_type(DType::UInt8, {-1})});
  ex.bind(op.result(0), outs[0]);
}

void layer_norm(Exporter& ex, const Operation& op, bool base) {
  const Value* x = op.operand(0);
  const int64_t rank = x->type().rank();
  const int64_t begin = base ? attr(op, "begin_norm_axis").as_int()
                             : rank - static_cast<int64_t>(ints(op, "normalized_shape").size());
  const Value* w = operand(op, 1);  // both forms: x, weight?, bias?
  const Value* b = operand(op, 2);
  OAR_ENFORCE(w && b, Unimplemented, "layer norm without weight or bias");
  std::vector<int64_t> lead(x->type().shape.begin(), x->type().shape.begin() + begin);
  const Json stat = tensor_type(DType::Float32, lead);
  std::vector<int64_t> outs =
      ex.op("1.layer_norm", {ex.id(x), ex.id(w), ex.id(b)},
            {{"epsilon", a_f32(attr(op, "epsilon").as_float())}, {"begin_norm_axis", a_i32(begin)}},
            {type_of(op.result(0)), stat, stat});
  ex.bind(op.result(0), outs[0]);
}

void linear(Exporter& ex, const Operation& op) {
  const Value* bias = operand(op, 2);
  const int64_t mm = ex.op1("1.matmul", {ex.id(op.operand(0)), ex.id(operand(op, 1))},
                            {{"transpose_x", a_bool(false)}, {"transpose_y", a_bool(false)}}, type_of(op.result(0)));
  ex.bind(op.result(0), bias ? ex.op1("1.add", {mm, ex.id(bias)}, {}, type_of(op.result(0))) : mm);
}

void dropout(Exporter& ex, const Operation& op) {
  const Value* x = op.operand(0);
  const std::string mode = attr(op, "mode").as_string();
  OAR_ENFORCE(!attr(op, "training").as_bool(), Unimplemented, "dropout in training mode (save the layer in eval mode)");
  if (mode == "upscale_in_train") {
    ex.bind(op.result(0), ex.id(x));
    return;
  }
  const int64_t s = ex.full({1}, 1.0 - attr(op, "p").as_float(), DType::Float32);
  ex.bind(op.result(0), ex.op1("1.scale", {ex.id(x), s}, {{"bias", a_f32(0)}, {"bias_after_scale", a_bool(true)}},
                               type_of(op.result(0))));
}

void slice(Exporter& ex, const Operation& op, bool strided) {
  if (strided)
    for (int64_t s : ints(op, "strides"))
      OAR_ENFORCE(s == 1, Unimplemented, "strided_slice with a stride other than 1");
  const std::vector<int64_t> axes = ints(op, "axes");
  ex.bind(op.result(0),
          ex.op1("1.slice", {ex.id(op.operand(0)), ex.full_int_array(ints(op, "starts")), ex.full_int_array(ints(op, "ends"))},
                 {{"axes", a_array("0.a_i64", axes)}, {"infer_flags", a_array("0.a_i64", std::vector<int64_t>(axes.size(), 1))},
                  {"decrease_axis", a_array("0.a_i64", {})}},
                 type_of(op.result(0))));
}

void with_int_array_input(Exporter& ex, const Operation& op, const std::string& paddle_name, const char* attr_name) {
  ex.bind(op.result(0), ex.op1("1." + paddle_name, {ex.id(op.operand(0)), ex.full_int_array(ints(op, attr_name))}, {},
                               type_of(op.result(0))));
}

// Reductions: the axes as a full_int_array input ([] for all), keepdim as an attribute; sum
// without a dtype writes Paddle's "undefined" dtype (the input's).
void reduce(Exporter& ex, const Operation& op, const std::string& name) {
  const ir::Attribute& axis = attr(op, "axis");
  const int64_t axes = ex.full_int_array(axis.is_none() ? std::vector<int64_t>{} : axis.as_int_array());
  Attrs attrs;
  if (name == "sum") {
    const ir::Attribute& dt = attr(op, "dtype");
    attrs.push_back({"dtype", dt.is_none() ? typed("1.a_dtype", "Undefined(ALL_DTYPE)") : a_dtype(dt.as_dtype())});
  }
  attrs.push_back({"keepdim", a_bool(attr(op, "keepdim").as_bool())});
  ex.bind(op.result(0), ex.op1("1." + name, {ex.id(op.operand(0)), axes}, attrs, type_of(op.result(0))));
}

void rnn_layer(Exporter& ex, const Operation& op) {
  // oar runs one (layer, direction) per op; Paddle's rnn op with one layer and one direction
  // computes the same, reading its state with a leading layer dim and running forwards only.
  const Value* x = op.operand(0);
  const Value *b_ih = operand(op, 3), *b_hh = operand(op, 4), *h0 = operand(op, 5), *c0 = operand(op, 6);
  OAR_ENFORCE(!operand(op, 7), Unimplemented, "an RNN with sequence_length");
  OAR_ENFORCE(!operand(op, 8), Unimplemented, "a projected LSTM (proj_size)");
  OAR_ENFORCE(b_ih && b_hh, Unimplemented, "an RNN without biases");
  const std::string mode = attr(op, "mode").as_string();
  const bool reverse = attr(op, "is_reverse").as_bool();
  const bool lstm = mode == "LSTM";
  const ir::TensorType& xt = x->type();
  const int64_t hidden = op.result(1)->type().shape.at(1);
  auto flip_time = [&](int64_t v, const Json& type) {
    return ex.op1("1.flip", {v}, {{"axis", a_array("0.a_i32", {0})}}, type);
  };
  const int64_t input = reverse ? flip_time(ex.id(x), type_of(x)) : ex.id(x);
  auto lead1 = [&](const Value* s) {  // [B, H] → [1, B, H]
    std::vector<int64_t> shape = s->type().shape;
    shape.insert(shape.begin(), 1);
    return std::make_pair(ex.op1("1.unsqueeze", {ex.id(s), ex.full_int_array({0})}, {}, tensor_type(s->type().dtype, shape)),
                          tensor_type(s->type().dtype, shape));
  };
  std::vector<int64_t> states;
  std::vector<Json> state_types;
  for (const Value* s : lstm ? std::vector<const Value*>{h0, c0} : std::vector<const Value*>{h0}) {
    auto [id, type] = lead1(s);
    states.push_back(id);
    state_types.push_back(type);
  }
  const int64_t pre_state = ex.op1("0.combine", states, {}, vector_type(state_types));
  const int64_t weights = ex.combine({operand(op, 1), operand(op, 2), b_ih, b_hh});
  const Json out_type = type_of(op.result(0));
  std::vector<int64_t> outs = ex.op(
      "1.rnn", {input, pre_state, weights, 0, ex.dropout_state()},
      {{"dropout_prob", a_f32(0)}, {"is_bidirec", a_bool(false)}, {"input_size", a_i32(xt.shape.at(2))},
       {"hidden_size", a_i32(hidden)}, {"num_layers", a_i32(1)}, {"mode", a_str(mode)}, {"seed", a_i32(0)},
       {"is_test", a_bool(true)}},
      {out_type, tensor_type(DType::UInt8, {}), vector_type(state_types), tensor_type(xt.dtype, {})});
  ex.bind(op.result(0), reverse ? flip_time(outs[0], out_type) : outs[0]);
  std::vector<int64_t> finals = ex.op("0.split", {outs[2]}, {}, state_types);
  for (size_t k = 0; k < finals.size(); ++k)
    ex.bind(op.result(1 + k), ex.op1("1.squeeze", {finals[k], ex.full_int_array({0})}, {}, type_of(op.result(1 + k))));
}

const std::unordered_map<std::string, Translator>& translators() {
  static const std::unordered_map<std::string, Translator> table = [] {
    std::unordered_map<std::string, Translator> t;
    t["parameter"] = [](Exporter& ex, const Operation& op) {
      ex.bind(op.result(0), ex.parameter(attr(op, "name").as_string(), op.result(0)->type()));
    };
    t["data"] = [](Exporter& ex, const Operation& op) {
      const ir::TensorType& type = op.result(0)->type();
      ex.bind(op.result(0), ex.op1("1.data", {},
                                   {{"name", a_str(attr(op, "name").as_string())}, {"shape", a_intarray(type.shape)},
                                    {"dtype", a_dtype(type.dtype)}, {"place", a_place(false)}},
                                   tensor_type(type)));
    };
    t["fetch"] = [](Exporter& ex, const Operation& op) {
      const Value* v = op.operand(0);
      ex.op1("1.fetch", {ex.id(v)}, {{"name", a_str(attr(op, "name").as_string())}, {"col", a_i32(ex.next_fetch_column())}},
             type_of(v));
    };
    for (const char* n : {"relu", "relu6", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "abs", "hardswish", "silu",
                          "floor", "ceil", "sin", "cos", "erf", "square", "reciprocal", "sign", "softsign"})
      t[n] = [n](Exporter& ex, const Operation& op) { same_unary(ex, op, n); };
    t["log_sigmoid"] = [](Exporter& ex, const Operation& op) { same_unary(ex, op, "logsigmoid"); };
    for (const char* n : {"add", "subtract", "multiply", "divide", "maximum", "minimum", "elementwise_pow"})
      t[n] = [n](Exporter& ex, const Operation& op) { same_binary(ex, op, n); };
    t["gelu"] = [](Exporter& ex, const Operation& op) {
      same_unary(ex, op, "gelu", {{"approximate", a_bool(attr(op, "approximate").as_bool())}});
    };
    t["leaky_relu"] = [](Exporter& ex, const Operation& op) {
      same_unary(ex, op, "leaky_relu", {{"negative_slope", a_f64(attr(op, "negative_slope").as_float())}});
    };
    t["hardsigmoid"] = [](Exporter& ex, const Operation& op) {
      same_unary(ex, op, "hardsigmoid",
                 {{"slope", a_f32(attr(op, "slope").as_float())}, {"offset", a_f32(attr(op, "offset").as_float())}});
    };
    t["softmax"] = [](Exporter& ex, const Operation& op) {
      OAR_ENFORCE(attr(op, "dtype").is_none(), Unimplemented, "softmax with a dtype");
      same_unary(ex, op, "softmax", {{"axis", a_i32(attr(op, "axis").as_int())}});
    };
    t["transpose"] = [](Exporter& ex, const Operation& op) {
      same_unary(ex, op, "transpose", {{"perm", a_array("0.a_i32", ints(op, "perm"))}});
    };
    t["flatten"] = [](Exporter& ex, const Operation& op) {
      same_unary(ex, op, "flatten", {{"start_axis", a_i32(attr(op, "start_axis").as_int())},
                                     {"stop_axis", a_i32(attr(op, "stop_axis").as_int())}});
    };
    t["cast"] = [](Exporter& ex, const Operation& op) {
      same_unary(ex, op, "cast", {{"dtype", a_dtype(attr(op, "dtype").as_dtype())}});
    };
    t["flip"] = [](Exporter& ex, const Operation& op) {
      same_unary(ex, op, "flip", {{"axis", a_array("0.a_i32", ints(op, "axis"))}});
    };
    t["matmul"] = [](Exporter& ex, const Operation& op) {
      ex.bind(op.result(0), ex.op1("1.matmul", {ex.id(op.operand(0)), ex.id(op.operand(1))},
                                   {{"transpose_x", a_bool(attr(op, "transpose_x").as_bool())},
                                    {"transpose_y", a_bool(attr(op, "transpose_y").as_bool())}},
                                   type_of(op.result(0))));
    };
    t["linear"] = linear;
    t["conv2d"] = conv2d;
    t["batch_norm_base"] = batch_norm;
    t["layer_norm"] = [](Exporter& ex, const Operation& op) { layer_norm(ex, op, false); };
    t["layer_norm_base"] = [](Exporter& ex, const Operation& op) { layer_norm(ex, op, true); };
    t["max_pool2d"] = [](Exporter& ex, const Operation& op) { pool2d(ex, op, "max", false); };
    t["avg_pool2d"] = [](Exporter& ex, const Operation& op) { pool2d(ex, op, "avg", false); };
    t["adaptive_avg_pool2d"] = [](Exporter& ex, const Operation& op) { pool2d(ex, op, "avg", true); };
    t["adaptive_max_pool2d"] = [](Exporter& ex, const Operation& op) { pool2d(ex, op, "max", true); };
    t["dropout"] = dropout;
    t["slice"] = [](Exporter& ex, const Operation& op) { slice(ex, op, false); };
    t["strided_slice"] = [](Exporter& ex, const Operation& op) { slice(ex, op, true); };
    t["reshape"] = [](Exporter& ex, const Operation& op) { with_int_array_input(ex, op, "reshape", "shape"); };
    t["expand"] = [](Exporter& ex, const Operation& op) { with_int_array_input(ex, op, "expand", "shape"); };
    t["squeeze"] = [](Exporter& ex, const Operation& op) { with_int_array_input(ex, op, "squeeze", "axis"); };
    t["unsqueeze"] = [](Exporter& ex, const Operation& op) { with_int_array_input(ex, op, "unsqueeze", "axis"); };
    t["full"] = [](Exporter& ex, const Operation& op) {
      const ir::TensorType& type = op.result(0)->type();
      ex.bind(op.result(0), ex.full(type.shape, scalar(op, "fill_value"), type.dtype));
    };
    t["full_like"] = [](Exporter& ex, const Operation& op) {
      const ir::TensorType& type = op.result(0)->type();
      const int64_t value = ex.full({1}, scalar(op, "fill_value"), DType::Float32);
      ex.bind(op.result(0), ex.op1("1.full_like", {ex.id(op.operand(0)), value},
                                   {{"dtype", a_dtype(type.dtype)}, {"place", a_place(false)}}, tensor_type(type)));
    };
    t["scale"] = [](Exporter& ex, const Operation& op) {
      const int64_t s = ex.full({1}, scalar(op, "scale"), DType::Float32);
      ex.bind(op.result(0), ex.op1("1.scale", {ex.id(op.operand(0)), s},
                                   {{"bias", a_f32(scalar(op, "bias"))},
                                    {"bias_after_scale", a_bool(attr(op, "bias_after_scale").as_bool())}},
                                   type_of(op.result(0))));
    };
    t["concat"] = [](Exporter& ex, const Operation& op) {
      std::vector<const Value*> xs(op.operands().begin(), op.operands().end());
      const int64_t axis = ex.full({1}, static_cast<double>(attr(op, "axis").as_int()), DType::Int32);
      ex.bind(op.result(0), ex.op1("1.concat", {ex.combine(xs), axis}, {}, type_of(op.result(0))));
    };
    t["stack"] = [](Exporter& ex, const Operation& op) {
      std::vector<const Value*> xs(op.operands().begin(), op.operands().end());
      ex.bind(op.result(0), ex.op1("1.stack", {ex.combine(xs)}, {{"axis", a_i32(attr(op, "axis").as_int())}},
                                   type_of(op.result(0))));
    };
    for (const char* n : {"mean", "sum", "max", "min"})
      t[n] = [n](Exporter& ex, const Operation& op) { reduce(ex, op, n); };
    t["rnn_layer"] = rnn_layer;
    return t;
  }();
  return table;
}

}  // namespace

std::vector<std::string> unexportable_ops(const ir::Program& program) {
  std::set<std::string> none;
  Exporter ex(none);
  std::vector<std::string> failures;
  ex.run(program.block(), &failures);
  return failures;
}

std::string export_program(const ir::Program& program, const std::set<std::string>& trainable) {
  Exporter ex(trainable);
  ex.run(program.block(), nullptr);
  return ex.text();
}

}  // namespace oar::jit::paddle
