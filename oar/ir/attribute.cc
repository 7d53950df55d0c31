#include "oar/ir/attribute.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "oar/core/error.h"

namespace oar::ir {

const char* attr_kind_name(AttrKind k) {
  switch (k) {
    case AttrKind::None: return "none";
    case AttrKind::Bool: return "bool";
    case AttrKind::Int: return "int";
    case AttrKind::Float: return "float";
    case AttrKind::Str: return "str";
    case AttrKind::DType: return "DataType";
    case AttrKind::IntArray: return "IntArray";
    case AttrKind::FloatArray: return "float[]";
    case AttrKind::Scalar: return "Scalar";
  }
  return "?";
}

namespace {
[[noreturn]] void wrong_kind(const std::string& what, AttrKind want, AttrKind got) {
  OAR_THROW(TypeMismatch, what, ": expected a ", attr_kind_name(want), " attribute, got ",
            attr_kind_name(got));
}
}  // namespace

#define OAR_IR_ATTR_GET(FN, RET, KIND, ALT)                           \
  RET Attribute::FN(const std::string& what) const {                  \
    if (kind() != AttrKind::KIND) wrong_kind(what, AttrKind::KIND, kind()); \
    return ALT;                                                       \
  }
OAR_IR_ATTR_GET(as_bool, bool, Bool, std::get<bool>(v_))
OAR_IR_ATTR_GET(as_int, int64_t, Int, std::get<int64_t>(v_))
OAR_IR_ATTR_GET(as_float, double, Float, std::get<double>(v_))
OAR_IR_ATTR_GET(as_string, const std::string&, Str, std::get<std::string>(v_))
OAR_IR_ATTR_GET(as_dtype, DType, DType, std::get<DType>(v_))
OAR_IR_ATTR_GET(as_int_array, const std::vector<int64_t>&, IntArray, std::get<IntArrayBox>(v_).v)
OAR_IR_ATTR_GET(as_float_array, const std::vector<double>&, FloatArray, std::get<std::vector<double>>(v_))
OAR_IR_ATTR_GET(as_scalar, const Scalar&, Scalar, std::get<Scalar>(v_))
#undef OAR_IR_ATTR_GET

namespace {
bool same_double(double a, double b) {
  // Bitwise identity, so that nan == nan and -0.0 != 0.0 (the text keeps both apart).
  return std::memcmp(&a, &b, sizeof a) == 0;
}
}  // namespace

bool same_scalar(const Scalar& a, const Scalar& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Scalar::Kind::Bool:
    case Scalar::Kind::Int: return a.to<int64_t>() == b.to<int64_t>();
    case Scalar::Kind::Float: return same_double(a.to<double>(), b.to<double>());
    case Scalar::Kind::Complex: {
      auto x = a.to<complex128>(), y = b.to<complex128>();
      return same_double(x.real(), y.real()) && same_double(x.imag(), y.imag());
    }
  }
  return false;
}

bool Attribute::operator==(const Attribute& o) const {
  if (kind() != o.kind()) return false;
  switch (kind()) {
    case AttrKind::None: return true;
    case AttrKind::Bool: return as_bool() == o.as_bool();
    case AttrKind::Int: return as_int() == o.as_int();
    case AttrKind::Float: return same_double(as_float(), o.as_float());
    case AttrKind::Str: return as_string() == o.as_string();
    case AttrKind::DType: return as_dtype() == o.as_dtype();
    case AttrKind::IntArray: return as_int_array() == o.as_int_array();
    case AttrKind::FloatArray: {
      const auto &a = as_float_array(), &b = o.as_float_array();
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (!same_double(a[i], b[i])) return false;
      return true;
    }
    case AttrKind::Scalar: return same_scalar(as_scalar(), o.as_scalar());
  }
  return false;
}

std::string float_text(double d) {
  if (std::isnan(d)) return std::signbit(d) ? "-nan" : "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {  // the shortest precision that reads back exactly
    std::snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (std::strtod(buf, nullptr) == d && std::signbit(std::strtod(buf, nullptr)) == std::signbit(d)) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // keep it a float in the text
  return s;
}

namespace {
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}
}  // namespace

std::string Attribute::str() const {
  switch (kind()) {
    case AttrKind::None: return "none";
    case AttrKind::Bool: return as_bool() ? "true" : "false";
    case AttrKind::Int: return std::to_string(as_int());
    case AttrKind::Float: return float_text(as_float());
    case AttrKind::Str: return quote(as_string());
    case AttrKind::DType: return dtype_name(as_dtype());
    case AttrKind::IntArray: {
      std::string s = "ints[";
      const auto& v = as_int_array();
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
      return s + "]";
    }
    case AttrKind::FloatArray: {
      std::string s = "floats[";
      const auto& v = as_float_array();
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + float_text(v[i]);
      return s + "]";
    }
    case AttrKind::Scalar: {
      const Scalar& sc = as_scalar();
      switch (sc.kind()) {
        case Scalar::Kind::Bool: return sc.to<int64_t>() ? "scalar(true)" : "scalar(false)";
        case Scalar::Kind::Int: return "scalar(" + std::to_string(sc.to<int64_t>()) + ")";
        case Scalar::Kind::Float: return "scalar(" + float_text(sc.to<double>()) + ")";
        case Scalar::Kind::Complex: {
          auto c = sc.to<complex128>();
          return "scalar(" + float_text(c.real()) + ", " + float_text(c.imag()) + ")";
        }
      }
    }
  }
  return "?";
}

template <> bool attr_as<bool>(const Attribute& a, const std::string& w) { return a.as_bool(w); }
template <> int64_t attr_as<int64_t>(const Attribute& a, const std::string& w) { return a.as_int(w); }
template <> double attr_as<double>(const Attribute& a, const std::string& w) {
  return a.kind() == AttrKind::Int ? static_cast<double>(a.as_int()) : a.as_float(w);
}
template <> std::string attr_as<std::string>(const Attribute& a, const std::string& w) { return a.as_string(w); }
template <> DType attr_as<DType>(const Attribute& a, const std::string& w) { return a.as_dtype(w); }
template <> IntArray attr_as<IntArray>(const Attribute& a, const std::string& w) {
  return IntArray(a.as_int_array(w));
}
template <> Scalar attr_as<Scalar>(const Attribute& a, const std::string& w) { return a.as_scalar(w); }
template <> std::optional<int64_t> attr_as<std::optional<int64_t>>(const Attribute& a, const std::string& w) {
  if (a.is_none()) return std::nullopt;
  return a.as_int(w);
}
template <> std::optional<DType> attr_as<std::optional<DType>>(const Attribute& a, const std::string& w) {
  if (a.is_none()) return std::nullopt;
  return a.as_dtype(w);
}
template <> std::optional<Scalar> attr_as<std::optional<Scalar>>(const Attribute& a, const std::string& w) {
  if (a.is_none()) return std::nullopt;
  return a.as_scalar(w);
}

}  // namespace oar::ir
