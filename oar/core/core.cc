// Small pieces of the core: dtype names and promotion, shapes, errors, scalars, threads, RNG.
#include <algorithm>
#include <cmath>
#include <limits>

#include "oar/core/dtype.h"
#include "oar/core/error.h"
#include "oar/core/parallel.h"
#include "oar/core/random.h"
#include "oar/core/scalar.h"
#include "oar/core/shape.h"
#include "plugins/common/philox.h"

namespace oar {

// ---- dtype ----
size_t dtype_size(DType t) {
  static constexpr size_t sizes[kNumDTypes] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16, 1, 1};
  return sizes[static_cast<int>(t)];
}

const char* dtype_name(DType t) {
  static constexpr const char* names[kNumDTypes] = {
      "bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
      "float64", "complex64", "complex128", "float8_e4m3fn", "float8_e5m2"};
  return names[static_cast<int>(t)];
}

DType dtype_from_name(const std::string& name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (name == dtype_name(static_cast<DType>(i))) return static_cast<DType>(i);
  if (name == "float") return DType::Float32;
  if (name == "double") return DType::Float64;
  if (name == "int") return DType::Int64;
  if (name == "half") return DType::Float16;
  OAR_THROW(InvalidArgument, "unknown dtype '", name,
            "': expected one of bool, int8, uint8, int16, int32, int64, float16, bfloat16, "
            "float32, float64, complex64, complex128, float8_e4m3fn, float8_e5m2");
}

DType promote_types(DType a, DType b, const char* op) {
  if (a == b) return a;
  if (is_floating(a) && is_floating(b)) {
    if (a == DType::Float64 || b == DType::Float64) return DType::Float64;
    return DType::Float32;  // float16 with bfloat16, or either with float32
  }
  if ((is_complex(a) || is_floating(a)) && (is_complex(b) || is_floating(b))) {
    const bool wide = a == DType::Complex128 || b == DType::Complex128 || a == DType::Float64 ||
                      b == DType::Float64;
    return wide ? DType::Complex128 : DType::Complex64;
  }
  OAR_THROW(TypeMismatch, op, ": Type promotion only supports calculations between floating-point ",
            "numbers and between complex and real numbers, but got x: ", dtype_name(a), ", y: ",
            dtype_name(b), ". Cast one operand with astype() first");
}

namespace {
DType g_default_float = DType::Float32;
}
DType default_float_dtype() { return g_default_float; }
void set_default_float_dtype(DType t) {
  OAR_ENFORCE_ARG(t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 ||
                      t == DType::Float64,
                  "set_default_dtype: dtype must be float16, bfloat16, float32 or float64, got ",
                  dtype_name(t));
  g_default_float = t;
}

DType Scalar::natural_dtype() const {
  switch (kind_) {
    case Kind::Bool: return DType::Bool;
    case Kind::Int: return DType::Int64;
    case Kind::Float: return default_float_dtype();
    case Kind::Complex: return DType::Complex64;
  }
  return DType::Float32;
}

// ---- errors ----
const char* error_kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::InvalidArgument: return "InvalidArgument";
    case ErrorKind::OutOfRange: return "OutOfRange";
    case ErrorKind::NotFound: return "NotFound";
    case ErrorKind::Unimplemented: return "Unimplemented";
    case ErrorKind::PreconditionNotMet: return "PreconditionNotMet";
    case ErrorKind::ResourceExhausted: return "ResourceExhausted";
    case ErrorKind::External: return "External";
    case ErrorKind::TypeMismatch: return "TypeMismatch";
  }
  return "Error";
}

// ---- shapes ----
int64_t checked_mul(int64_t a, int64_t b, const char* op, const char* what) {
  int64_t r;
  OAR_ENFORCE(!__builtin_mul_overflow(a, b, &r), ResourceExhausted, op, ": ", what, " (", a,
              " * ", b, ") is too large: it overflows int64");
  return r;
}

int64_t checked_add(int64_t a, int64_t b, const char* op, const char* what) {
  int64_t r;
  OAR_ENFORCE(!__builtin_add_overflow(a, b, &r), ResourceExhausted, op, ": ", what, " (", a,
              " + ", b, ") is too large: it overflows int64");
  return r;
}

int64_t numel_of(const Shape& s) {
  // A zero dim makes the tensor empty whatever the others are ([2^40, 2^40, 0] is fine).
  if (std::find(s.begin(), s.end(), 0) != s.end()) return 0;
  int64_t n = 1;
  for (int64_t d : s) {
    OAR_ENFORCE(!__builtin_mul_overflow(n, d, &n), ResourceExhausted, "the shape ", shape_str(s),
                " holds more elements than can be addressed (the count overflows int64)");
  }
  return n;
}

Strides contiguous_strides(const Shape& s) {
  // Only an empty tensor's strides can overflow (numel_of refuses the rest); nothing is
  // addressed through them, so they saturate instead of wrapping.
  Strides st(s.size());
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    if (__builtin_mul_overflow(acc, std::max<int64_t>(s[i], 1), &acc))
      acc = std::numeric_limits<int64_t>::max();
  }
  return st;
}

std::string shape_str(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += ", ";
    r += std::to_string(s[i]);
  }
  return r + "]";
}

int64_t normalize_axis(int64_t axis, int64_t rank, const char* op, const char* arg) {
  const int64_t r = std::max<int64_t>(rank, 1);  // a 0-D tensor accepts axis 0 and -1
  OAR_ENFORCE_ARG(axis >= -r && axis < r, op, ": argument '", arg, "' is out of range: expected ",
                  "a value in [", -r, ", ", r, ") for a tensor of rank ", rank, ", got ", axis);
  return axis < 0 ? axis + r : axis;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    OAR_ENFORCE_ARG(da == db || da == 1 || db == 1, op,
                    ": Broadcast dimension mismatch. Operands could not be broadcast together ",
                    "with shapes ", shape_str(a), " and ", shape_str(b), " (dimension ", i,
                    ": ", da, " vs ", db, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// ---- threads ----
namespace {
int g_num_threads = 0;  // 0: not set, use OpenMP's default
}
namespace {
thread_local int t_thread_override = 0;  // ThreadCountScope
}  // namespace

ThreadCountScope::ThreadCountScope(int n) : previous_(t_thread_override) { t_thread_override = std::max(n, 1); }
ThreadCountScope::~ThreadCountScope() { t_thread_override = previous_; }

int get_num_threads() {
  if (t_thread_override > 0) return t_thread_override;
#ifdef _OPENMP
  if (g_num_threads <= 0) g_num_threads = omp_get_max_threads();
#else
  g_num_threads = 1;
#endif
  return g_num_threads;
}
void set_num_threads(int n) {
  OAR_ENFORCE_ARG(n >= 1, "set_num_threads: expected a positive thread count, got ", n);
  g_num_threads = n;
}

// ---- random ----
std::array<uint32_t, 4> philox4x32(uint64_t counter, uint64_t subsequence, uint64_t key) {
  const oar_rng::Block r = oar_rng::philox4x32(counter, subsequence, key);  // shared with devices
  return {r.w[0], r.w[1], r.w[2], r.w[3]};
}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mu_);
  seed_ = seed;
  offset_ = 0;
}
void Generator::set_state(uint64_t seed, uint64_t offset) {
  std::lock_guard<std::mutex> lock(mu_);
  seed_ = seed;
  offset_ = offset;
}
uint64_t Generator::reserve(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t first = offset_;
  offset_ += n;
  return first;
}
Generator& default_generator() {
  static Generator g;
  return g;
}

}  // namespace oar
