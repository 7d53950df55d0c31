// Attribute: a typed constant attached to an operation (axis, keepdim, a shape, a dtype, ...).
// The kinds cover every non-tensor argument type of the op specs: bool, int, float, str,
// DataType, IntArray, float arrays, Scalar (which remembers bool/int/float/complex) and None (the
// value of an absent optional: `int?`, `DataType?`, `Scalar?`).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "oar/core/dtype.h"
#include "oar/core/int_array.h"
#include "oar/core/scalar.h"

namespace oar::ir {

enum class AttrKind : uint8_t { None, Bool, Int, Float, Str, DType, IntArray, FloatArray, Scalar };
const char* attr_kind_name(AttrKind k);  // "bool", "int", ..., for error messages

class Attribute {
 public:
  Attribute() : v_(std::monostate{}) {}  // None
  static Attribute none() { return Attribute(); }
  static Attribute boolean(bool b) { return Attribute(Value(b)); }
  static Attribute integer(int64_t i) { return Attribute(Value(i)); }
  static Attribute floating(double d) { return Attribute(Value(d)); }
  static Attribute string(std::string s) { return Attribute(Value(std::move(s))); }
  static Attribute dtype(DType t) { return Attribute(Value(t)); }
  static Attribute int_array(std::vector<int64_t> v) { return Attribute(Value(IntArrayBox{std::move(v)})); }
  static Attribute float_array(std::vector<double> v) { return Attribute(Value(std::move(v))); }
  static Attribute scalar(const Scalar& s) { return Attribute(Value(s)); }

  AttrKind kind() const { return static_cast<AttrKind>(v_.index()); }
  bool is_none() const { return kind() == AttrKind::None; }

  // Typed access; a wrong kind throws TypeMismatch naming `what` (op and attribute).
  bool as_bool(const std::string& what = "attribute") const;
  int64_t as_int(const std::string& what = "attribute") const;
  double as_float(const std::string& what = "attribute") const;
  const std::string& as_string(const std::string& what = "attribute") const;
  DType as_dtype(const std::string& what = "attribute") const;
  const std::vector<int64_t>& as_int_array(const std::string& what = "attribute") const;
  const std::vector<double>& as_float_array(const std::string& what = "attribute") const;
  const Scalar& as_scalar(const std::string& what = "attribute") const;

  bool operator==(const Attribute& o) const;
  bool operator!=(const Attribute& o) const { return !(*this == o); }
  // The text form (parser.cc reads it back): true, 3, 2.5, "s", float32, ints[1, 2],
  // floats[0.5], scalar(2), scalar(2.5), scalar(true), scalar(1.0, 2.0) (complex), none.
  std::string str() const;

 private:
  struct IntArrayBox {  // distinct from std::vector<double> and from int64_t in the variant
    std::vector<int64_t> v;
  };
  using Value = std::variant<std::monostate, bool, int64_t, double, std::string, DType, IntArrayBox,
                             std::vector<double>, Scalar>;
  explicit Attribute(Value v) : v_(std::move(v)) {}
  Value v_;
};

// Converts an attribute to the C++ type an infer_meta function takes (the generator's argument
// types): bool, int64_t, double, std::string, DType, IntArray, Scalar and their optionals.
template <typename T> T attr_as(const Attribute& a, const std::string& what);

// The inverse of attr_as: an op argument as an attribute (the tracer records op calls with these).
inline Attribute to_attribute(bool v) { return Attribute::boolean(v); }
inline Attribute to_attribute(int64_t v) { return Attribute::integer(v); }
inline Attribute to_attribute(double v) { return Attribute::floating(v); }
inline Attribute to_attribute(const std::string& v) { return Attribute::string(v); }
inline Attribute to_attribute(DType v) { return Attribute::dtype(v); }
inline Attribute to_attribute(const IntArray& v) { return Attribute::int_array(v); }
inline Attribute to_attribute(const Scalar& v) { return Attribute::scalar(v); }
template <typename T>
Attribute to_attribute(const std::optional<T>& v) { return v ? to_attribute(*v) : Attribute::none(); }

// Scalar equality that tells kinds apart (Scalar(1) != Scalar(1.0)).
bool same_scalar(const Scalar& a, const Scalar& b);
// Shortest text that reads back to exactly the same double ("2.0", "0.1", "inf", "-inf", "nan").
std::string float_text(double d);

}  // namespace oar::ir
