#include "oar/jit/paddle_pir.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "oar/core/error.h"
#include "oar/core/shape.h"

namespace oar::jit::paddle {

namespace {

using Json = nlohmann::json;

// Dialect ids as Paddle's serializer numbers them ("1.conv2d" is pd_op.conv2d).
std::string dialect_name(const std::string& id) {
  if (id == "0") return "builtin";
  if (id == "1") return "pd_op";
  if (id == "2") return "cf";
  if (id == "3") return "custom_op";
  if (id == "4") return "pd_dist";
  return "dialect" + id;
}

class Parser {
 public:
  explicit Parser(std::string where) : where_(std::move(where)) {}

  PirProgram program(const Json& root) {
    PirProgram p;
    const Json& base = at(root, "base_code", "the file");
    p.version = integer(at(base, "version", "base_code"), "the version");
    const Json& regions = at(at(root, "program", "the file"), "regions", "program");
    if (!regions.is_array() || regions.size() != 1) fail("the program should have exactly one region");
    const Json& blocks = at(regions[0], "blocks", "the program's region");
    if (!blocks.is_array() || blocks.size() != 1) fail("the program's region should have exactly one block");
    p.block = block(blocks[0]);
    return p;
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const {
    OAR_THROW(InvalidArgument, "Paddle program file '", where_, "' is malformed: ", msg);
  }
  const Json& at(const Json& j, const char* key, const char* in) const {
    if (!j.is_object() || !j.contains(key)) fail(std::string(in) + " lacks \"" + key + "\"");
    return j[key];
  }

  // A JSON number that must be an integer. nlohmann's get<int64_t> on a float outside int64's
  // range is undefined behaviour, so damaged files are checked here first. Integral floats are
  // accepted (a hand-edited "2.0" means 2).
  int64_t integer(const Json& d, const char* what) const {
    if (d.is_number_integer()) {
      if (d.is_number_unsigned() && d.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
        fail(std::string(what) + " is too large");
      return d.get<int64_t>();
    }
    if (d.is_number_float()) {
      const double v = d.get<double>();
      if (std::isfinite(v) && v == std::floor(v) && v >= -9.2e18 && v <= 9.2e18) return static_cast<int64_t>(v);
    }
    if (d.is_boolean()) return d.get<bool>() ? 1 : 0;
    fail(std::string(what) + " should be an integer, got " + d.dump().substr(0, 40));
  }
  std::vector<int64_t> integers(const Json& d, const char* what) const {
    if (!d.is_array()) fail(std::string(what) + " should be a list of integers");
    std::vector<int64_t> v;
    for (const Json& e : d) v.push_back(integer(e, what));
    return v;
  }

  PirBlock block(const Json& j) {
    PirBlock b;
    if (j.contains("args"))
      for (const Json& a : j["args"]) b.args.push_back(typed_value(a));
    const Json& ops = at(j, "ops", "a block");
    if (!ops.is_array()) fail("a block's \"ops\" is not a list");
    for (const Json& o : ops) {
      b.ops.push_back(op(o));
      b.ops.back().index = b.ops.size() - 1;
    }
    return b;
  }

  std::pair<int64_t, PirType> typed_value(const Json& j) {
    const int64_t id = integer(at(j, "%", "a value"), "a value id");
    if (!j.contains("TT")) return {id, PirType{}};
    return {id, type(j["TT"])};
  }

  static bool dtype_of_tag(const std::string& tag, DType* out) {
    static const std::map<std::string, DType> tags = {
        {"0.t_bool", DType::Bool},      {"0.t_i8", DType::Int8},        {"0.t_ui8", DType::UInt8},
        {"0.t_i16", DType::Int16},      {"0.t_i32", DType::Int32},      {"0.t_i64", DType::Int64},
        {"0.t_f16", DType::Float16},    {"0.t_bf16", DType::BFloat16},  {"0.t_f32", DType::Float32},
        {"0.t_f64", DType::Float64},    {"0.t_c64", DType::Complex64},  {"0.t_c128", DType::Complex128}};
    auto it = tags.find(tag);
    if (it == tags.end()) return false;
    *out = it->second;
    return true;
  }

  PirType type(const Json& j) {
    const std::string tag = at(j, "#", "a type").get<std::string>();
    PirType t;
    if (tag == "0.t_vec") {
      t.is_vector = true;
      for (const Json& e : at(j, "D", "a vector type")) t.elements.push_back(type(e));
    } else if (tag == "0.t_dtensor") {
      const Json& d = at(j, "D", "a tensor type");
      if (!d.is_array() || d.size() < 2) fail("a tensor type lacks its dtype and dims");
      const std::string dt = at(d[0], "#", "a tensor type's dtype").get<std::string>();
      if (!dtype_of_tag(dt, &t.dtype)) fail("a tensor type has element type '" + dt + "', which oar does not know");
      t.dims = integers(d[1], "a tensor type's dims");
    } else if (tag != "0.t_null") {
      fail("a value has type '" + tag + "', which oar does not know (dense tensors and vectors of them only)");
    }
    return t;
  }

  PirAttr attr(const Json& at_) {
    const std::string tag = at(at_, "#", "an attribute").get<std::string>();
    const Json& d = at_.contains("D") ? at_["D"] : Json();
    PirAttr a;
    if (tag == "0.a_bool") { a.kind = PirAttr::Bool; a.b = d.get<bool>(); }
    else if (tag == "0.a_i32" || tag == "0.a_i64" || tag == "0.a_index") { a.kind = PirAttr::Int; a.i = integer(d, "an integer attribute"); }
    else if (tag == "0.a_f32" || tag == "0.a_f64") { a.kind = PirAttr::Float; a.f = number(d); }
    else if (tag == "0.a_str") { a.kind = PirAttr::Str; a.s = d.get<std::string>(); }
    else if (tag == "1.a_dtype") {
      a.kind = PirAttr::DType;
      a.s = d.get<std::string>();
      // "Undefined(ALL_DTYPE)": no dtype given (sum keeps its input's)
      if (a.s.rfind("Undefined", 0) == 0 || a.s == "undefined") a.s = "undefined";
      else a.dtype = dtype_from_name(a.s);
    } else if (tag == "1.a_intarray") { a.kind = PirAttr::Ints; a.ints = integers(d, "an int-array attribute"); }
    else if (tag == "1.a_scalar") {
      // [dtype tag, value]
      a.kind = PirAttr::Float;
      a.f = d.is_array() && d.size() == 2 ? number(d[1]) : number(d);
    } else if (tag == "0.a_array") {
      a.kind = PirAttr::Ints;
      for (const Json& e : d) {
        PirAttr x = attr(e);
        if (x.kind == PirAttr::Float) { a.kind = PirAttr::Floats; a.floats.push_back(x.f); }
        else if (x.kind == PirAttr::Int || x.kind == PirAttr::Bool) {
          a.ints.push_back(x.kind == PirAttr::Int ? x.i : x.b);
          a.floats.push_back(static_cast<double>(a.ints.back()));
        } else { a.kind = PirAttr::Other; }
      }
    }
    return a;  // places, layouts and the like: Other (oar has no use for them)
  }

  static double number(const Json& d) {
    if (d.is_string()) {  // "inf", "-inf", "nan" are written as strings
      const std::string s = d.get<std::string>();
      return s == "nan" ? std::nan("") : s == "-inf" ? -INFINITY : INFINITY;
    }
    if (!d.is_number()) OAR_THROW(InvalidArgument, "Paddle program: a float attribute is not a number");
    return d.get<double>();
  }

  PirOp op(const Json& j) {
    PirOp o;
    const std::string tag = at(j, "#", "an op").get<std::string>();
    if (tag == "p") {
      // builtin.parameter: A = [.., .., .., name], OA = [persistable, stop_gradient, trainable]
      o.name = "builtin.parameter";
      const Json& a = at(j, "A", "a parameter");
      if (!a.is_array() || a.empty() || !a.back().is_string()) fail("a parameter op lacks its name");
      o.parameter_name = a.back().get<std::string>();
      if (j.contains("OA") && j["OA"].is_array() && j["OA"].size() >= 3) {
        o.persistable = integer(j["OA"][0], "a parameter's flags") != 0;
        o.trainable = integer(j["OA"][2], "a parameter's flags") != 0;
      }
      o.outputs.push_back(typed_value(at(j, "O", "a parameter")));
      return o;
    }
    const size_t dot = tag.find('.');
    o.name = dot == std::string::npos ? tag : dialect_name(tag.substr(0, dot)) + "." + tag.substr(dot + 1);
    if (j.contains("A"))
      for (const Json& a : j["A"])
        if (a.is_object() && a.contains("N")) o.attrs[a["N"].get<std::string>()] = attr(at(a, "AT", "an attribute"));
    if (j.contains("I"))
      for (const Json& i : j["I"]) o.inputs.push_back(integer(at(i, "%", "an input"), "an input id"));
    if (j.contains("O"))
      for (const Json& out : j["O"]) o.outputs.push_back(typed_value(out));
    if (j.contains("regions"))
      for (const Json& r : j["regions"]) {
        std::vector<PirBlock> blocks;
        for (const Json& b : at(r, "blocks", "a region")) blocks.push_back(block(b));
        o.regions.push_back(std::move(blocks));
      }
    return o;
  }

  std::string where_;
};

}  // namespace

std::string PirType::str() const {
  if (!is_vector) return std::string(dtype_name(dtype)) + shape_str(dims);
  std::string s = "vec<";
  for (size_t i = 0; i < elements.size(); ++i) s += (i ? ", " : "") + elements[i].str();
  return s + ">";
}

const PirAttr* PirOp::attr(const std::string& n) const {
  auto it = attrs.find(n);
  return it == attrs.end() ? nullptr : &it->second;
}

std::string PirOp::where() const {
  std::string s = name + " (op " + std::to_string(index);
  if (const PirAttr* a = attr("struct_name"); a && a->kind == PirAttr::Str && !a->s.empty())
    s += ", layer '" + a->s + "'";
  return s + ")";
}

bool looks_like_pir_json(const std::string& bytes) {
  const size_t first = bytes.find_first_not_of(" \t\r\n");
  return first != std::string::npos && bytes[first] == '{' && bytes.find("\"base_code\"") != std::string::npos &&
         bytes.find("\"pir\"") != std::string::npos;
}

PirProgram parse_pir_json(const std::string& bytes, const std::string& where) {
  Json root = Json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  OAR_ENFORCE(!root.is_discarded(), InvalidArgument, "Paddle program file '", where,
              "' is corrupted or truncated: it is not valid JSON");
  try {
    const Json& base = root.at("base_code");
    OAR_ENFORCE(base.value("magic", std::string()) == "pir", InvalidArgument, "'", where,
                "' is not a Paddle PIR program (base_code.magic is not \"pir\")");
    return Parser(where).program(root);
  } catch (const Json::exception& e) {
    OAR_THROW(InvalidArgument, "Paddle program file '", where, "' is malformed: ", e.what());
  }
}

}  // namespace oar::jit::paddle
