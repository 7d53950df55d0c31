#include "oar/jit/paddle_import.h"

#include <cmath>

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "oar/ir/builder.h"
#include "oar/ir/operation.h"
#include "oar/ir/verifier.h"

namespace oar::jit::paddle {

namespace {

using ir::Attribute;
using ir::Value;

// A value known at import time: what full / full_int_array made (uniform or not).
// A number from the file used as an integer (an axis, a dim, an int constant). Casting a NaN or
// an out-of-range double to int64 is undefined behaviour, so damaged files stop here.
int64_t as_int(double v, const char* what) {
  OAR_ENFORCE(std::isfinite(v) && v >= -9.2e18 && v <= 9.2e18, InvalidArgument, what,
              " should be an integer, got ", v);
  return static_cast<int64_t>(v);
}

struct Constant {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::vector<double> values;  // one value when uniform
  bool uniform = true;
};

// One dim of a shape that a Paddle program computes (shape64 → slice → stack): a size known
// now, or dim `axis` of `source` at run time.
struct Dim {
  int64_t size = -1;
  Value* source = nullptr;
  int64_t axis = 0;
};
struct ShapeValue {
  std::vector<Dim> dims;
  bool scalar = false;  // one dim taken out by slice's decrease_axis
};

class Importer;
using Translator = std::function<void(Importer&, const PirOp&)>;
const std::unordered_map<std::string, Translator>& translators();

class Importer {
 public:
  Importer(ImportedProgram& out, std::string where)
      : out_(out), b_(*out.program), where_(std::move(where)) {}

  void run(const PirBlock& block) {
    for (const PirOp& op : block.ops) {
      std::string name = op.name;
      auto it = translators().find(name);
      // In-place forms (batch_norm_, relu_) compute the same values in a program of values.
      if (it == translators().end() && name.size() > 1 && name.back() == '_')
        it = translators().find(name.substr(0, name.size() - 1));
      OAR_ENFORCE(it != translators().end(), Unimplemented, "Paddle program '", where_, "': op ", op.where(),
                  " has no oar translation (supported ops: docs/paddle_formats.md)");
      try {
        it->second(*this, op);
      } catch (const Error& e) {
        if (std::string(e.what()).find("Paddle program '") != std::string::npos) throw;
        throw Error(e.kind(), "Paddle program '" + where_ + "': op " + op.where() + ": " + e.what());
      } catch (const std::out_of_range&) {  // an .at() on a missing input, output or element
        OAR_THROW(InvalidArgument, "Paddle program '", where_, "' is malformed: op ", op.where(),
                  " lacks an input, output or attribute element it needs");
      }
    }
  }

  ir::Builder& b() { return b_; }
  ImportedProgram& out() { return out_; }

  // ---- values ----------------------------------------------------------------------------
  bool present(const PirOp& op, size_t i) const { return i < op.inputs.size() && op.inputs[i] != 0; }

  // Input i as an oar value (constants are materialised where a tensor is needed).
  Value* value(const PirOp& op, size_t i) {
    OAR_ENFORCE(present(op, i), InvalidArgument, "input ", i, " is absent");
    return value_of(op.inputs[i]);
  }
  Value* optional(const PirOp& op, size_t i) { return present(op, i) ? value(op, i) : nullptr; }

  Value* value_of(int64_t id) {
    if (auto it = values_.find(id); it != values_.end()) {
      OAR_ENFORCE(it->second != nullptr, Unimplemented, "value %", id,
                  " is a non-persistable parameter (e.g. a dropout state), which oar's ops do not read");
      return it->second;
    }
    if (auto it = constants_.find(id); it != constants_.end()) return values_[id] = materialize(it->second);
    OAR_ENFORCE(!shapes_.count(id), Unimplemented, "value %", id,
                " is a shape computed in the program, used as a tensor (oar takes shapes as attributes)");
    OAR_THROW(InvalidArgument, "value %", id, " is used before it is defined");
  }
  std::vector<Value*> values(const PirOp& op, size_t i) {
    std::vector<Value*> out;
    for (int64_t id : elements(op, i)) out.push_back(value_of(id));
    return out;
  }
  const std::vector<int64_t>& elements(const PirOp& op, size_t i) {
    auto it = vectors_.find(present(op, i) ? op.inputs[i] : 0);
    OAR_ENFORCE(it != vectors_.end(), InvalidArgument, "input ", i, " is not a vector (builtin.combine)");
    return it->second;
  }
  const Constant* constant(const PirOp& op, size_t i) const {
    if (!present(op, i)) return nullptr;
    auto it = constants_.find(op.inputs[i]);
    return it == constants_.end() ? nullptr : &it->second;
  }
  double scalar(const PirOp& op, size_t i, const char* what) {
    const Constant* c = constant(op, i);
    OAR_ENFORCE(c && c->uniform, Unimplemented, what, " (input ", i,
                ") must be a constant made by full in the program; oar takes it as an attribute");
    return c->values[0];
  }
  // An int list given as a constant (full_int_array) or as a computed shape (-1 for dims known
  // only at run time).
  std::vector<int64_t> int_list(const PirOp& op, size_t i, const char* what) {
    if (const Constant* c = constant(op, i)) {
      std::vector<int64_t> v;
      const int64_t n = c->uniform ? numel_of(c->shape) : static_cast<int64_t>(c->values.size());
      for (int64_t k = 0; k < n; ++k) v.push_back(as_int(c->uniform ? c->values[0] : c->values[k], what));
      return v;
    }
    if (const ShapeValue* s = shape(op, i)) {
      std::vector<int64_t> v;
      for (const Dim& d : s->dims) v.push_back(d.size);
      return v;
    }
    if (present(op, i) && vectors_.count(op.inputs[i])) {  // a combine of scalar constants or shape dims
      std::vector<int64_t> v;
      for (int64_t id : vectors_[op.inputs[i]]) {
        if (auto c = constants_.find(id); c != constants_.end() && c->second.uniform)
          v.push_back(as_int(c->second.values[0], what));
        else if (auto s = shapes_.find(id); s != shapes_.end() && s->second.scalar)
          v.push_back(s->second.dims[0].size);
        else
          OAR_THROW(Unimplemented, what, " (input ", i, ") is a list of values computed at run time");
      }
      return v;
    }
    OAR_THROW(Unimplemented, what, " (input ", i,
              ") must be a constant (full_int_array) or a shape; oar takes it as an attribute");
  }
  const ShapeValue* shape(const PirOp& op, size_t i) const {
    if (!present(op, i)) return nullptr;
    auto it = shapes_.find(op.inputs[i]);
    return it == shapes_.end() ? nullptr : &it->second;
  }

  void set(const PirOp& op, size_t k, Value* v) {
    OAR_ENFORCE(k < op.outputs.size(), InvalidArgument, "has no output ", k);
    values_[op.outputs[k].first] = v;
  }
  void set_vector(const PirOp& op, size_t k, const std::vector<Value*>& vs) {
    std::vector<int64_t> ids;
    for (Value* v : vs) {
      const int64_t id = --next_synthetic_id_;
      values_[id] = v;
      ids.push_back(id);
    }
    vectors_[op.outputs.at(k).first] = std::move(ids);
  }
  void set_vector_ids(const PirOp& op, size_t k, std::vector<int64_t> ids) { vectors_[op.outputs.at(k).first] = std::move(ids); }
  void set_constant(const PirOp& op, Constant c) { constants_[op.outputs.at(0).first] = std::move(c); }
  void set_shape(const PirOp& op, ShapeValue s) { shapes_[op.outputs.at(0).first] = std::move(s); }
  bool is_shape_scalar(int64_t id) const {
    auto it = shapes_.find(id);
    return it != shapes_.end() && it->second.scalar;
  }
  const ShapeValue& shape_of(int64_t id) const { return shapes_.at(id); }
  bool is_constant(int64_t id) const { return constants_.count(id) > 0; }
  const Constant& constant_of(int64_t id) const { return constants_.at(id); }

  // ---- building --------------------------------------------------------------------------
  Value* op1(const std::string& name, const ir::Operands& operands, const ir::AttributeMap& attrs = {}) {
    return b_.create1(name, operands, attrs);
  }

  // A tensor of `dims` (sizes now or at run time) filled with `value`: the dims known only at run
  // time come from their source tensors (a size-1 slice of each, filled and broadcast).
  Value* full_of(const std::vector<Dim>& dims, double value, DType dtype) {
    std::vector<int64_t> now;
    std::vector<size_t> dynamic;
    for (size_t k = 0; k < dims.size(); ++k) {
      now.push_back(dims[k].size >= 0 ? dims[k].size : 1);
      if (dims[k].size < 0) dynamic.push_back(k);
    }
    Value* out = op1("full", {}, {{"shape", Attribute::int_array(now)}, {"fill_value", scalar_attr(value, dtype)},
                                  {"dtype", Attribute::dtype(dtype)}});
    for (size_t k : dynamic) {
      Value* src = dims[k].source;
      const int64_t rank = src->type().rank(), axis = dims[k].axis;
      // [1, .., n, .., 1] from the source, zeros of `dtype`, reshaped to n at position k of dims.
      std::vector<int64_t> axes, starts, ends;
      for (int64_t a = 0; a < rank; ++a)
        if (a != axis) axes.push_back(a), starts.push_back(0), ends.push_back(1);
      Value* line = axes.empty() ? src : op1("slice", {{src}}, {{"axes", Attribute::int_array(axes)},
                                                                {"starts", Attribute::int_array(starts)},
                                                                {"ends", Attribute::int_array(ends)}});
      Value* zeros = op1("full_like", {{line}}, {{"fill_value", scalar_attr(0, dtype)}, {"dtype", Attribute::dtype(dtype)}});
      std::vector<int64_t> target(dims.size(), 1);
      target[k] = -1;
      out = op1("add", {{out}, {op1("reshape", {{zeros}}, {{"shape", Attribute::int_array(target)}})}});
    }
    if (!dynamic.empty()) {
      std::vector<int64_t> expand;
      for (const Dim& d : dims) expand.push_back(d.size >= 0 ? d.size : -1);
      out = op1("expand", {{out}}, {{"shape", Attribute::int_array(expand)}});
    }
    return out;
  }

  static Attribute scalar_attr(double v, DType dtype) {
    if (dtype == DType::Bool) return Attribute::scalar(Scalar(v != 0));
    if (is_integral(dtype)) return Attribute::scalar(Scalar(as_int(v, "an integer constant")));
    return Attribute::scalar(Scalar(v));
  }

 private:
  Value* materialize(const Constant& c) {
    if (c.uniform) {
      std::vector<Dim> dims;
      for (int64_t d : c.shape) dims.push_back(Dim{d});
      return full_of(dims, c.values[0], c.dtype);
    }
    // Distinct values: a constant parameter (the file format's way to carry data).
    const std::string name = "_const_" + std::to_string(out_.constants.size());
    Tensor t = Tensor::make(c.shape, DType::Float64);
    std::copy(c.values.begin(), c.values.end(), t.data<double>());
    out_.constants[name] = t.cast(c.dtype);
    return b_.parameter(name, ir::TensorType(c.dtype, c.shape));
  }

  ImportedProgram& out_;
  ir::Builder b_;
  std::string where_;
  std::unordered_map<int64_t, Value*> values_;
  std::unordered_map<int64_t, std::vector<int64_t>> vectors_;
  std::unordered_map<int64_t, Constant> constants_;
  std::unordered_map<int64_t, ShapeValue> shapes_;
  int64_t next_synthetic_id_ = 0;
};

// ---- attribute helpers ---------------------------------------------------------------------
const PirAttr& need(const PirOp& op, const char* name) {
  const PirAttr* a = op.attr(name);
  OAR_ENFORCE(a != nullptr, InvalidArgument, "lacks attribute '", name, "'");
  return *a;
}
int64_t attr_int(const PirOp& op, const char* name) {
  const PirAttr& a = need(op, name);
  return a.kind == PirAttr::Bool ? a.b : a.kind == PirAttr::Float ? as_int(a.f, name) : a.i;
}
int64_t attr_int_or(const PirOp& op, const char* name, int64_t dflt) { return op.attr(name) ? attr_int(op, name) : dflt; }
double attr_float(const PirOp& op, const char* name) {
  const PirAttr& a = need(op, name);
  return a.kind == PirAttr::Float ? a.f : static_cast<double>(a.i);
}
bool attr_bool(const PirOp& op, const char* name, bool dflt = false) {
  const PirAttr* a = op.attr(name);
  return a ? (a->kind == PirAttr::Bool ? a->b : a->i != 0) : dflt;
}
std::string attr_str(const PirOp& op, const char* name, const std::string& dflt = "") {
  const PirAttr* a = op.attr(name);
  return a && a->kind == PirAttr::Str ? a->s : dflt;
}
const std::vector<int64_t>& attr_ints(const PirOp& op, const char* name) { return need(op, name).ints; }

Attribute ints(std::vector<int64_t> v) { return Attribute::int_array(std::move(v)); }
Attribute str(const std::string& s) { return Attribute::string(s); }
Attribute boolean(bool v) { return Attribute::boolean(v); }
Attribute integer(int64_t v) { return Attribute::integer(v); }
Attribute floating(double v) { return Attribute::floating(v); }

// ---- translators ---------------------------------------------------------------------------
void unary_same(Importer& im, const PirOp& op, const std::string& oar_name) {
  im.set(op, 0, im.op1(oar_name, {{im.value(op, 0)}}));
}
void binary_same(Importer& im, const PirOp& op, const std::string& oar_name) {
  im.set(op, 0, im.op1(oar_name, {{im.value(op, 0)}, {im.value(op, 1)}}));
}

void conv2d(Importer& im, const PirOp& op) {
  im.set(op, 0, im.op1("conv2d", {{im.value(op, 0)}, {im.value(op, 1)}, {}},
                       {{"stride", ints(attr_ints(op, "strides"))}, {"padding", ints(attr_ints(op, "paddings"))},
                        {"dilation", ints(attr_ints(op, "dilations"))}, {"groups", integer(attr_int(op, "groups"))},
                        {"data_format", str(attr_str(op, "data_format", "NCHW"))},
                        {"padding_algorithm", str(attr_str(op, "padding_algorithm", "EXPLICIT"))}}));
}

void pool2d(Importer& im, const PirOp& op) {
  Value* x = im.value(op, 0);
  const std::string type = attr_str(op, "pooling_type"), format = attr_str(op, "data_format", "NCHW");
  OAR_ENFORCE(type == "max" || type == "avg", Unimplemented, "pooling_type '", type, "'");
  std::vector<int64_t> kernel = im.int_list(op, 1, "kernel_size");
  if (attr_bool(op, "global_pooling") || attr_bool(op, "adaptive")) {
    if (attr_bool(op, "global_pooling")) kernel = {1, 1};
    if (type == "avg") {
      im.set(op, 0, im.op1("adaptive_avg_pool2d", {{x}}, {{"output_size", ints(kernel)}, {"data_format", str(format)}}));
    } else {
      OAR_ENFORCE(format == "NCHW", Unimplemented, "adaptive max pooling in ", format);
      im.set(op, 0, im.op1("adaptive_max_pool2d", {{x}}, {{"output_size", ints(kernel)}}));
    }
    return;
  }
  ir::AttributeMap a = {{"kernel_size", ints(kernel)}, {"stride", ints(attr_ints(op, "strides"))},
                        {"padding", ints(attr_ints(op, "paddings"))}, {"ceil_mode", boolean(attr_bool(op, "ceil_mode"))},
                        {"data_format", str(format)},
                        {"padding_algorithm", str(attr_str(op, "padding_algorithm", "EXPLICIT"))}};
  if (type == "avg") a["exclusive"] = boolean(attr_bool(op, "exclusive", true));
  im.set(op, 0, im.op1(type == "max" ? "max_pool2d" : "avg_pool2d", {{x}}, a));
}

void batch_norm(Importer& im, const PirOp& op) {
  // inputs: x, mean, variance, scale, bias; outputs: out, mean_out, variance_out, saved_*, reserve
  Value* x = im.value(op, 0);
  Value* mean = im.value(op, 1);
  Value* var = im.value(op, 2);
  const bool batch_stats = !attr_bool(op, "is_test") && !attr_bool(op, "use_global_stats");
  const std::string format = attr_str(op, "data_format", "NCHW");
  const int64_t channel_axis = format == "NCHW" || format == "NCL" || format == "NCDHW" ? 1 : x->type().rank() - 1;
  ir::Operation* bn = im.b().create(
      "batch_norm_base", {{x}, {mean}, {var}, im.present(op, 3) ? ir::Operands::value_type{im.value(op, 3)} : ir::Operands::value_type{},
                          im.present(op, 4) ? ir::Operands::value_type{im.value(op, 4)} : ir::Operands::value_type{}},
      {{"use_batch_stats", boolean(batch_stats)}, {"update_running", boolean(false)},
       {"momentum", floating(attr_float(op, "momentum"))}, {"epsilon", floating(attr_float(op, "epsilon"))},
       {"channel_axis", integer(channel_axis)}});
  im.set(op, 0, bn->result(0));
  if (op.outputs.size() > 2) {  // the running statistics pass through (inference does not update them)
    im.set(op, 1, mean);
    im.set(op, 2, var);
  }
}

void layer_norm(Importer& im, const PirOp& op) {
  ir::Operation* ln = im.b().create(
      "layer_norm_base",
      {{im.value(op, 0)}, im.present(op, 1) ? ir::Operands::value_type{im.value(op, 1)} : ir::Operands::value_type{},
       im.present(op, 2) ? ir::Operands::value_type{im.value(op, 2)} : ir::Operands::value_type{}},
      {{"epsilon", floating(attr_float(op, "epsilon"))}, {"begin_norm_axis", integer(attr_int(op, "begin_norm_axis"))}});
  im.set(op, 0, ln->result(0));
}

void dropout(Importer& im, const PirOp& op) {
  Value* x = im.value(op, 0);
  const double p = im.present(op, 2) ? im.scalar(op, 2, "p") : attr_float(op, "p");
  const std::string mode = attr_str(op, "mode", "upscale_in_train");
  if (attr_bool(op, "is_test")) {
    im.set(op, 0, mode == "upscale_in_train" ? x : im.op1("scale", {{x}}, {{"scale", Attribute::scalar(Scalar(1.0 - p))}}));
    return;
  }
  im.set(op, 0, im.op1("dropout", {{x}}, {{"p", floating(p)}, {"training", boolean(true)}, {"mode", str(mode)}}));
}

void scale(Importer& im, const PirOp& op) {
  Value* x = im.value(op, 0);
  const double bias = attr_float(op, "bias");
  const bool after = attr_bool(op, "bias_after_scale", true);
  if (im.constant(op, 1) && im.constant(op, 1)->uniform) {
    im.set(op, 0, im.op1("scale", {{x}}, {{"scale", Attribute::scalar(Scalar(im.scalar(op, 1, "scale")))},
                                         {"bias", Attribute::scalar(Scalar(bias))},
                                         {"bias_after_scale", boolean(after)}}));
    return;
  }
  Value* s = im.present(op, 1) ? im.value(op, 1) : nullptr;
  auto add_bias = [&](Value* v) { return im.op1("scale", {{v}}, {{"bias", Attribute::scalar(Scalar(bias))}}); };
  Value* y = after ? add_bias(im.op1("multiply", {{x}, {s}})) : im.op1("multiply", {{add_bias(x)}, {s}});
  im.set(op, 0, y);
}

void full(Importer& im, const PirOp& op) {
  Constant c;
  c.dtype = need(op, "dtype").dtype;
  c.shape = attr_ints(op, "shape");
  c.values = {attr_float(op, "value")};
  im.set_constant(op, c);
}

void full_int_array(Importer& im, const PirOp& op) {
  Constant c;
  c.dtype = need(op, "dtype").dtype;
  const std::vector<int64_t>& v = attr_ints(op, "value");
  c.shape = {static_cast<int64_t>(v.size())};
  c.values.assign(v.begin(), v.end());
  c.uniform = false;
  im.set_constant(op, c);
}

void full_like(Importer& im, const PirOp& op) {
  const DType dtype = need(op, "dtype").dtype;
  im.set(op, 0, im.op1("full_like", {{im.value(op, 0)}},
                       {{"fill_value", Importer::scalar_attr(im.scalar(op, 1, "value"), dtype)},
                        {"dtype", Attribute::dtype(dtype)}}));
}

void full_with_tensor(Importer& im, const PirOp& op) {
  const DType dtype = need(op, "dtype").dtype;
  const double value = im.scalar(op, 0, "value");
  std::vector<Dim> dims;
  if (const ShapeValue* s = im.shape(op, 1)) dims = s->dims;
  else if (im.present(op, 1) && !im.is_constant(op.inputs[1])) {
    for (int64_t id : im.elements(op, 1)) {
      if (im.is_shape_scalar(id)) dims.push_back(im.shape_of(id).dims[0]);
      else dims.push_back(Dim{as_int(im.constant_of(id).values.at(0), "a shape element")});
    }
  } else {
    for (int64_t d : im.int_list(op, 1, "shape")) dims.push_back(Dim{d});
  }
  im.set(op, 0, im.full_of(dims, value, dtype));
}

void shape(Importer& im, const PirOp& op) {
  Value* x = im.value(op, 0);
  ShapeValue s;
  for (int64_t k = 0; k < x->type().rank(); ++k) {
    const int64_t d = x->type().shape[k];
    s.dims.push_back(d >= 0 ? Dim{d} : Dim{-1, x, k});
  }
  im.set_shape(op, s);
}

void slice(Importer& im, const PirOp& op) {
  const std::vector<int64_t>& axes = attr_ints(op, "axes");
  const std::vector<int64_t> decrease = op.attr("decrease_axis") ? attr_ints(op, "decrease_axis") : std::vector<int64_t>{};
  std::vector<int64_t> starts = im.int_list(op, 1, "starts"), ends = im.int_list(op, 2, "ends");
  if (const ShapeValue* s = im.shape(op, 0)) {  // a piece of a computed shape
    OAR_ENFORCE(axes.size() == 1 && axes[0] == 0 && starts.size() == 1 && ends.size() == 1, Unimplemented,
                "slicing a shape along axes other than 0");
    const auto n = static_cast<int64_t>(s->dims.size());
    auto clamp = [n](int64_t v) { return std::clamp(v < 0 ? v + n : v, int64_t{0}, n); };
    ShapeValue piece;
    for (int64_t k = clamp(starts[0]); k < clamp(ends[0]); ++k) piece.dims.push_back(s->dims[k]);
    piece.scalar = !decrease.empty();
    OAR_ENFORCE(!piece.scalar || piece.dims.size() == 1, InvalidArgument, "decrease_axis on a slice of ",
                piece.dims.size(), " dims");
    im.set_shape(op, piece);
    return;
  }
  Value* y = im.op1("slice", {{im.value(op, 0)}}, {{"axes", ints(axes)}, {"starts", ints(starts)}, {"ends", ints(ends)}});
  if (!decrease.empty()) y = im.op1("squeeze", {{y}}, {{"axis", ints(decrease)}});
  im.set(op, 0, y);
}

void combine(Importer& im, const PirOp& op) { im.set_vector_ids(op, 0, op.inputs); }

void builtin_split(Importer& im, const PirOp& op) {
  const std::vector<int64_t>& ids = im.elements(op, 0);
  OAR_ENFORCE(ids.size() == op.outputs.size(), InvalidArgument, "splits a vector of ", ids.size(), " into ",
              op.outputs.size(), " values");
  for (size_t k = 0; k < ids.size(); ++k) im.set(op, k, im.value_of(ids[k]));
}

void stack(Importer& im, const PirOp& op) {
  const std::vector<int64_t>& ids = im.elements(op, 0);
  const bool of_dims = std::all_of(ids.begin(), ids.end(), [&](int64_t id) {
    return im.is_shape_scalar(id) || (im.is_constant(id) && im.constant_of(id).uniform && im.constant_of(id).shape.empty());
  });
  if (of_dims && !ids.empty() && std::any_of(ids.begin(), ids.end(), [&](int64_t id) { return im.is_shape_scalar(id); })) {
    ShapeValue s;  // a shape assembled from dims: stays symbolic
    for (int64_t id : ids)
      s.dims.push_back(im.is_shape_scalar(id) ? im.shape_of(id).dims[0]
                                              : Dim{as_int(im.constant_of(id).values[0], "a shape element")});
    im.set_shape(op, s);
    return;
  }
  im.set(op, 0, im.op1("stack", {im.values(op, 0)}, {{"axis", integer(attr_int(op, "axis"))}}));
}

void concat(Importer& im, const PirOp& op) {
  im.set(op, 0, im.op1("concat", {im.values(op, 0)}, {{"axis", integer(as_int(im.scalar(op, 1, "axis"), "axis"))}}));
}

void split(Importer& im, const PirOp& op) {
  ir::Operation* s = im.b().create("split_with_sizes", {{im.value(op, 0)}},
                                   {{"sections", ints(im.int_list(op, 1, "sections"))},
                                    {"axis", integer(as_int(im.scalar(op, 2, "axis"), "axis"))}});
  im.set_vector(op, 0, s->results());
}

void split_with_num(Importer& im, const PirOp& op) {
  Value* x = im.value(op, 0);
  int64_t axis = as_int(im.scalar(op, 1, "axis"), "axis");
  if (axis < 0) axis += x->type().rank();
  const int64_t num = attr_int(op, "num"), n = x->type().shape.at(axis);
  OAR_ENFORCE(n >= 0 && num > 0 && n % num == 0, Unimplemented, "split_with_num of a dim of size ", n, " into ", num);
  ir::Operation* s = im.b().create("split_with_sizes", {{x}},
                                   {{"sections", ints(std::vector<int64_t>(num, n / num))}, {"axis", integer(axis)}});
  im.set_vector(op, 0, s->results());
}

void reshape(Importer& im, const PirOp& op) {
  std::vector<int64_t> shape = im.int_list(op, 1, "shape");
  OAR_ENFORCE(std::count(shape.begin(), shape.end(), -1) <= 1, Unimplemented,
              "reshape to a shape with more than one dim known only at run time (", shape_str(shape), ")");
  im.set(op, 0, im.op1("reshape", {{im.value(op, 0)}}, {{"shape", ints(shape)}}));
}

void expand(Importer& im, const PirOp& op) {
  im.set(op, 0, im.op1("expand", {{im.value(op, 0)}}, {{"shape", ints(im.int_list(op, 1, "shape"))}}));
}

void axis_list_op(Importer& im, const PirOp& op, const std::string& name) {
  im.set(op, 0, im.op1(name, {{im.value(op, 0)}}, {{"axis", ints(im.int_list(op, 1, "axis"))}}));
}

void reduce(Importer& im, const PirOp& op, const std::string& name) {
  std::vector<int64_t> axis = im.int_list(op, 1, "axis");
  ir::AttributeMap a = {{"axis", ints(axis)},  // [] reduces over every axis, as in Paddle
                        {"keepdim", boolean(attr_bool(op, "keepdim"))}};
  if (name == "sum") {
    const PirAttr* dt = op.attr("dtype");
    a["dtype"] = dt && dt->kind == PirAttr::DType && dt->s != "undefined" ? Attribute::dtype(dt->dtype) : Attribute::none();
  }
  im.set(op, 0, im.op1(name, {{im.value(op, 0)}}, a));
}

void rnn(Importer& im, const PirOp& op) {
  // inputs: x [time, batch, input], pre_state (vector: h, [c]), weight_list (vector: every
  // (layer, direction)'s weight_ih, weight_hh, then every one's bias_ih, bias_hh), sequence_length,
  // dropout_state_in. Outputs: out, dropout_state_out, state (vector), reserve.
  Value* x = im.value(op, 0);
  std::vector<Value*> states = im.values(op, 1), weights = im.values(op, 2);
  Value* seq = im.optional(op, 3);
  const std::string mode = attr_str(op, "mode");
  const int64_t layers = attr_int(op, "num_layers"), dirs = attr_bool(op, "is_bidirec") ? 2 : 1;
  const bool lstm = mode == "LSTM";
  OAR_ENFORCE(states.size() == (lstm ? 2u : 1u), InvalidArgument, "expects ", lstm ? 2 : 1, " initial states, got ",
              states.size());
  const auto cells = static_cast<size_t>(layers * dirs);
  const bool has_bias = weights.size() == 4 * cells;
  OAR_ENFORCE(has_bias || weights.size() == 2 * cells, InvalidArgument, "has ", weights.size(),
              " weights for ", cells, " cells");
  OAR_ENFORCE(attr_bool(op, "is_test") || attr_float(op, "dropout_prob") == 0, Unimplemented,
              "training-mode dropout between RNN layers");
  auto state_of = [&](Value* all, int64_t k) {
    Value* s = im.op1("slice", {{all}}, {{"axes", ints({0})}, {"starts", ints({k})}, {"ends", ints({k + 1})}});
    return im.op1("squeeze", {{s}}, {{"axis", ints({0})}});
  };
  std::vector<Value*> last_h, last_c;
  for (int64_t l = 0; l < layers; ++l) {
    std::vector<Value*> outs;
    for (int64_t d = 0; d < dirs; ++d) {
      const auto k = static_cast<size_t>(l * dirs + d);
      ir::Operands operands = {{x}, {weights[2 * k]}, {weights[2 * k + 1]}};
      operands.push_back(has_bias ? ir::Operands::value_type{weights[2 * cells + 2 * k]} : ir::Operands::value_type{});
      operands.push_back(has_bias ? ir::Operands::value_type{weights[2 * cells + 2 * k + 1]} : ir::Operands::value_type{});
      operands.push_back({state_of(states[0], static_cast<int64_t>(k))});
      operands.push_back(lstm ? ir::Operands::value_type{state_of(states[1], static_cast<int64_t>(k))} : ir::Operands::value_type{});
      operands.push_back(seq ? ir::Operands::value_type{seq} : ir::Operands::value_type{});
      operands.push_back({});  // weight_ho: Paddle's rnn op has no projection
      ir::Operation* r = im.b().create("rnn_layer", operands, {{"mode", str(mode)}, {"is_reverse", boolean(d == 1)}});
      outs.push_back(r->result(0));
      last_h.push_back(r->result(1));
      last_c.push_back(r->result(2));
    }
    x = outs.size() == 1 ? outs[0] : im.op1("concat", {outs}, {{"axis", integer(-1)}});
  }
  im.set(op, 0, x);
  std::vector<Value*> final_states = {im.op1("stack", {last_h}, {{"axis", integer(0)}})};
  if (lstm) final_states.push_back(im.op1("stack", {last_c}, {{"axis", integer(0)}}));
  im.set_vector(op, 2, final_states);
}

const std::unordered_map<std::string, Translator>& translators() {
  static const std::unordered_map<std::string, Translator> table = [] {
    std::unordered_map<std::string, Translator> t;
    t["builtin.parameter"] = [](Importer& im, const PirOp& op) {
      const PirType& type = op.outputs.at(0).second;
      if (!op.persistable) {  // e.g. an RNN's dropout state: no data in the file, no use at inference
        im.set(op, 0, nullptr);
        return;
      }
      im.out().persistable_parameters.push_back(op.parameter_name);
      if (op.trainable) im.out().trainable_parameters.push_back(op.parameter_name);
      im.set(op, 0, im.b().parameter(op.parameter_name, ir::TensorType(type.dtype, type.dims)));
    };
    t["pd_op.data"] = [](Importer& im, const PirOp& op) {
      const PirType& type = op.outputs.at(0).second;
      im.set(op, 0, im.b().data(attr_str(op, "name"), ir::TensorType(type.dtype, type.dims)));
    };
    t["pd_op.fetch"] = [](Importer& im, const PirOp& op) {
      Value* v = im.value(op, 0);
      im.b().create("fetch", {{v}}, {{"name", str(attr_str(op, "name"))}});
      im.set(op, 0, v);
    };
    t["builtin.combine"] = combine;
    t["builtin.split"] = builtin_split;
    for (const char* n : {"relu", "relu6", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "abs", "hardswish",
                          "silu", "floor", "ceil", "sin", "cos", "erf", "square", "reciprocal", "sign", "softsign",
                          "logical_not", "isnan", "isinf", "isfinite"})
      t[std::string("pd_op.") + n] = [n](Importer& im, const PirOp& op) { unary_same(im, op, n); };
    t["pd_op.swish"] = [](Importer& im, const PirOp& op) { unary_same(im, op, "silu"); };
    t["pd_op.logsigmoid"] = [](Importer& im, const PirOp& op) { unary_same(im, op, "log_sigmoid"); };
    for (const char* n : {"add", "subtract", "multiply", "divide", "maximum", "minimum", "elementwise_pow", "remainder",
                          "floor_divide", "equal", "not_equal", "less_than", "less_equal", "greater_than",
                          "greater_equal", "logical_and", "logical_or", "logical_xor", "fmax", "fmin"})
      t[std::string("pd_op.") + n] = [n](Importer& im, const PirOp& op) { binary_same(im, op, n); };
    t["pd_op.flip"] = [](Importer& im, const PirOp& op) {
      im.set(op, 0, im.op1("flip", {{im.value(op, 0)}}, {{"axis", ints(attr_ints(op, "axis"))}}));
    };
    t["pd_op.assign"] = [](Importer& im, const PirOp& op) { im.set(op, 0, im.value(op, 0)); };
    t["pd_op.conv2d"] = conv2d;
    t["pd_op.depthwise_conv2d"] = conv2d;
    t["pd_op.pool2d"] = pool2d;
    t["pd_op.batch_norm"] = batch_norm;
    t["pd_op.layer_norm"] = layer_norm;
    t["pd_op.dropout"] = dropout;
    t["pd_op.scale"] = scale;
    t["pd_op.full"] = full;
    t["pd_op.full_int_array"] = full_int_array;
    t["pd_op.full_like"] = full_like;
    t["pd_op.full_with_tensor"] = full_with_tensor;
    t["pd_op.shape"] = shape;
    t["pd_op.shape64"] = shape;
    t["pd_op.slice"] = slice;
    t["pd_op.stack"] = stack;
    t["pd_op.concat"] = concat;
    t["pd_op.split"] = split;
    t["pd_op.split_with_num"] = split_with_num;
    t["pd_op.reshape"] = reshape;
    t["pd_op.expand"] = expand;
    t["pd_op.squeeze"] = [](Importer& im, const PirOp& op) { axis_list_op(im, op, "squeeze"); };
    t["pd_op.unsqueeze"] = [](Importer& im, const PirOp& op) { axis_list_op(im, op, "unsqueeze"); };
    for (const char* n : {"mean", "sum", "max", "min"})
      t[std::string("pd_op.") + n] = [n](Importer& im, const PirOp& op) { reduce(im, op, n); };
    t["pd_op.rnn"] = rnn;
    t["pd_op.flatten"] = [](Importer& im, const PirOp& op) {
      im.set(op, 0, im.op1("flatten", {{im.value(op, 0)}}, {{"start_axis", integer(attr_int(op, "start_axis"))},
                                                           {"stop_axis", integer(attr_int(op, "stop_axis"))}}));
    };
    t["pd_op.transpose"] = [](Importer& im, const PirOp& op) {
      im.set(op, 0, im.op1("transpose", {{im.value(op, 0)}}, {{"perm", ints(attr_ints(op, "perm"))}}));
    };
    t["pd_op.matmul"] = [](Importer& im, const PirOp& op) {
      im.set(op, 0, im.op1("matmul", {{im.value(op, 0)}, {im.value(op, 1)}},
                           {{"transpose_x", boolean(attr_bool(op, "transpose_x"))},
                            {"transpose_y", boolean(attr_bool(op, "transpose_y"))}}));
    };
    t["pd_op.softmax"] = [](Importer& im, const PirOp& op) {
      im.set(op, 0, im.op1("softmax", {{im.value(op, 0)}}, {{"axis", integer(attr_int(op, "axis"))}}));
    };
    t["pd_op.log_softmax"] = [](Importer& im, const PirOp& op) {
      im.set(op, 0, im.op1("log_softmax", {{im.value(op, 0)}}, {{"axis", integer(attr_int(op, "axis"))}}));
    };
    t["pd_op.cast"] = [](Importer& im, const PirOp& op) {
      im.set(op, 0, im.op1("cast", {{im.value(op, 0)}}, {{"dtype", Attribute::dtype(need(op, "dtype").dtype)}}));
    };
    t["pd_op.gelu"] = [](Importer& im, const PirOp& op) {
      im.set(op, 0, im.op1("gelu", {{im.value(op, 0)}}, {{"approximate", boolean(attr_bool(op, "approximate"))}}));
    };
    t["pd_op.leaky_relu"] = [](Importer& im, const PirOp& op) {
      im.set(op, 0, im.op1("leaky_relu", {{im.value(op, 0)}}, {{"negative_slope", floating(attr_float(op, "negative_slope"))}}));
    };
    t["pd_op.hardsigmoid"] = [](Importer& im, const PirOp& op) {
      im.set(op, 0, im.op1("hardsigmoid", {{im.value(op, 0)}}, {{"slope", floating(attr_float(op, "slope"))},
                                                               {"offset", floating(attr_float(op, "offset"))}}));
    };
    t["pd_op.pow"] = [](Importer& im, const PirOp& op) {
      im.set(op, 0, im.op1("pow", {{im.value(op, 0)}}, {{"y", Attribute::scalar(Scalar(attr_float(op, "y")))}}));
    };
    t["pd_op.embedding"] = [](Importer& im, const PirOp& op) {
      const int64_t pad = attr_int_or(op, "padding_idx", -1);
      im.set(op, 0, im.op1("embedding", {{im.value(op, 0)}, {im.value(op, 1)}},
                           {{"padding_idx", pad == -1 ? Attribute::none() : integer(pad)}}));
    };
    return t;
  }();
  return table;
}

}  // namespace

ImportedProgram import_program(const PirProgram& pir, const std::string& where) {
  ImportedProgram out;
  out.program = std::make_shared<ir::Program>();
  Importer(out, where).run(pir.block);
  std::sort(out.persistable_parameters.begin(), out.persistable_parameters.end());
  OAR_ENFORCE(!out.program->outputs().empty(), InvalidArgument, "Paddle program '", where,
              "' has no outputs (fetch ops)");
  ir::verify(*out.program);
  return out;
}

std::vector<std::string> supported_ops() {
  std::vector<std::string> names;
  for (auto& [name, fn] : translators()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace oar::jit::paddle
