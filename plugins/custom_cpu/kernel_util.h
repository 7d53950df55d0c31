// What every custom_cpu kernel needs between the C context and its enqueued closure.
// Contract:
// - the element types are bool, int32, int64, float32 and float64 (visit_dtype); the half
//   types float16 and bfloat16 (half.h, computed in float) join them in visit_math_dtype and
//   visit_float_dtype; int8, uint8 and int16 are storage only (visit_storage_dtype: the casts
//   and copies);
// - TensorDesc is a copy of an OarTensor (the context's arrays die when the kernel returns),
//   made by input()/output(), which also check that the tensor is well formed and lies in
//   memory of the kernel's device;
// - every check runs before anything is enqueued and throws KernelError; run_kernel() turns
//   that into OAR_STATUS_ERROR with the message in ctx->error, so errors are synchronous;
// - convert<To>(v) is the one value conversion (casts, copies, scalars): float to int is
//   defined for NaN and out-of-range values (the type's minimum, as x86 gives), never UB;
// - integer arithmetic wraps (two's complement) instead of being undefined on overflow.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "oar/device/device_ext.h"
#include "plugins/custom_cpu/half.h"
#include "plugins/custom_cpu/plugin.h"
#include "plugins/custom_cpu/stream.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {

// ---- errors ----

struct KernelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A case the kernel does not handle (a dtype it lacks): oar raises NotImplementedError.
struct KernelUnsupported : KernelError {
  using KernelError::KernelError;
};

// Input values the kernel refuses (check_values, a domain check): oar raises ValueError with the
// message alone, as the CPU kernel's check does.
struct KernelInvalidValue : KernelError {
  using KernelError::KernelError;
};

// The printf-style message the throwers below carry.
inline std::string format_message(const char* format, va_list args) {
  char message[512];
  std::vsnprintf(message, sizeof message, format, args);
  return message;
}

[[noreturn]] inline void fail(const char* format, ...) __attribute__((format(printf, 1, 2)));
inline void fail(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::string message = format_message(format, args);
  va_end(args);
  throw KernelError(message);
}

[[noreturn]] inline void unsupported(const char* format, ...) __attribute__((format(printf, 1, 2)));
inline void unsupported(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::string message = format_message(format, args);
  va_end(args);
  throw KernelUnsupported(message);
}

[[noreturn]] inline void invalid_value(const char* format, ...) __attribute__((format(printf, 1, 2)));
inline void invalid_value(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::string message = format_message(format, args);
  va_end(args);
  throw KernelInvalidValue(message);
}

inline const char* op_name(const OarKernelContext* ctx) { return ctx->op != nullptr ? ctx->op : "?"; }

// Runs the kernel's checks and enqueue; a thrown error becomes ctx->error and ERROR.
template <typename Body>
OarStatus run_kernel(const OarKernelContext* ctx, Body&& body) noexcept {
  const char* message = nullptr;
  std::string text;
  OarStatus status = OAR_STATUS_ERROR;
  try {
    body();
    return OAR_STATUS_OK;
  } catch (const KernelUnsupported& e) {
    text = std::string("custom_cpu: ") + e.what();
    message = text.c_str();
    status = OAR_STATUS_UNSUPPORTED;
  } catch (const KernelInvalidValue& e) {
    text = e.what();  // the op's own message, unprefixed: oar raises it as the host would
    message = text.c_str();
    status = OAR_STATUS_INVALID_VALUE;
  } catch (const std::bad_alloc&) {
    message = "custom_cpu: out of host memory while preparing the kernel";
  } catch (const std::exception& e) {
    text = std::string("custom_cpu: ") + e.what();
    message = text.c_str();
  }
  if (ctx->error != nullptr && ctx->error_size > 0) std::snprintf(ctx->error, ctx->error_size, "%s", message);
  return status;
}

// ---- element types ----

template <typename T> inline constexpr int32_t dtype_of = -1;
template <> inline constexpr int32_t dtype_of<bool> = OAR_BOOL;
template <> inline constexpr int32_t dtype_of<int32_t> = OAR_INT32;
template <> inline constexpr int32_t dtype_of<int64_t> = OAR_INT64;
template <> inline constexpr int32_t dtype_of<float> = OAR_FLOAT32;
template <> inline constexpr int32_t dtype_of<double> = OAR_FLOAT64;
template <> inline constexpr int32_t dtype_of<float16_t> = OAR_FLOAT16;
template <> inline constexpr int32_t dtype_of<bfloat16_t> = OAR_BFLOAT16;
template <> inline constexpr int32_t dtype_of<int8_t> = OAR_INT8;
template <> inline constexpr int32_t dtype_of<uint8_t> = OAR_UINT8;
template <> inline constexpr int32_t dtype_of<int16_t> = OAR_INT16;
template <> inline constexpr int32_t dtype_of<std::complex<float>> = OAR_COMPLEX64;
template <> inline constexpr int32_t dtype_of<std::complex<double>> = OAR_COMPLEX128;

inline const char* dtype_name(int32_t dtype) {
  static const char* const names[] = {"bool", "int8", "uint8", "int16", "int32", "int64", "float16",
                                      "bfloat16", "float32", "float64", "complex64", "complex128"};
  return dtype >= 0 && dtype < 12 ? names[dtype] : "unknown";
}

inline bool is_supported_dtype(int32_t dtype) {
  return dtype == OAR_BOOL || dtype == OAR_INT32 || dtype == OAR_INT64 || dtype == OAR_FLOAT32 ||
         dtype == OAR_FLOAT64 || dtype == OAR_FLOAT16 || dtype == OAR_BFLOAT16 || dtype == OAR_INT8 ||
         dtype == OAR_UINT8 || dtype == OAR_INT16 || dtype == OAR_COMPLEX64 || dtype == OAR_COMPLEX128;
}

inline size_t element_size(int32_t dtype) {
  switch (dtype) {
    case OAR_BOOL: return sizeof(bool);
    case OAR_INT8: return 1;
    case OAR_UINT8: return 1;
    case OAR_INT16: return 2;
    case OAR_COMPLEX64: return 8;
    case OAR_COMPLEX128: return 16;
    case OAR_INT32: return 4;
    case OAR_INT64: return 8;
    case OAR_FLOAT32: return 4;
    case OAR_FLOAT64: return 8;
    case OAR_FLOAT16: return 2;
    case OAR_BFLOAT16: return 2;
    default: return 0;
  }
}

// f(T{}) for the C++ type of `dtype`.
template <typename F>
decltype(auto) visit_dtype(int32_t dtype, F&& f) {
  switch (dtype) {
    case OAR_BOOL: return f(bool{});
    case OAR_INT32: return f(int32_t{});
    case OAR_INT64: return f(int64_t{});
    case OAR_FLOAT32: return f(float{});
    case OAR_FLOAT64: return f(double{});
    default: unsupported("dtype %s is not supported (bool, int32, int64, float32, float64 are)", dtype_name(dtype));
  }
}

// visit_dtype and the half types (computed in float): the arithmetic kernels.
template <typename F>
decltype(auto) visit_math_dtype(int32_t dtype, F&& f) {
  switch (dtype) {
    case OAR_FLOAT16: return f(float16_t{});
    case OAR_BFLOAT16: return f(bfloat16_t{});
    default: return visit_dtype(dtype, std::forward<F>(f));
  }
}

// Every element type, the 8- and 16-bit integers and the complex types included: kernels that
// only move or convert values (cast, assign, copy_, full, where, concat).
template <typename F>
decltype(auto) visit_storage_dtype(int32_t dtype, F&& f) {
  switch (dtype) {
    case OAR_COMPLEX64: return f(std::complex<float>{});
    case OAR_COMPLEX128: return f(std::complex<double>{});
    case OAR_INT8: return f(int8_t{});
    case OAR_UINT8: return f(uint8_t{});
    case OAR_INT16: return f(int16_t{});
    default: return visit_math_dtype(dtype, std::forward<F>(f));
  }
}

// f(T{}) for the floating types (float32, float64, float16, bfloat16); others are unsupported.
template <typename F>
decltype(auto) visit_float_dtype(int32_t dtype, const char* op, F&& f) {
  switch (dtype) {
    case OAR_FLOAT32: return f(float{});
    case OAR_FLOAT64: return f(double{});
    case OAR_FLOAT16: return f(float16_t{});
    case OAR_BFLOAT16: return f(bfloat16_t{});
    default: unsupported("no %s kernel for %s (float16, bfloat16, float32, float64 have one)", op, dtype_name(dtype));
  }
}

template <typename T> inline constexpr bool is_float_v = std::is_floating_point_v<T>;
template <typename T> struct is_complex_type : std::false_type {};
template <typename R> struct is_complex_type<std::complex<R>> : std::true_type {};
template <typename T> inline constexpr bool is_complex_v = is_complex_type<T>::value;
template <typename T> inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;
// float, double and the half types (stored 16-bit, computed in float).
template <typename T> inline constexpr bool is_floating_v = is_float_v<T> || is_half_v<T>;

template <typename To, typename From>
To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_complex_v<From> && std::is_same_v<To, bool>) {
    return v != From(0);  // either part
  } else if constexpr (is_complex_v<To>) {
    using R = typename To::value_type;
    if constexpr (is_complex_v<From>) return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    else return To(convert<R>(v), R(0));
  } else if constexpr (is_complex_v<From>) {
    return convert<To>(v.real());  // the real part, as the host casts
  } else if constexpr (is_half_v<From>) {
    return convert<To>(static_cast<float>(v));  // exact, then the float rules
  } else if constexpr (is_half_v<To>) {
    return To(static_cast<float>(v));  // as the host: through float (a double rounds twice)
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_int_v<To> && is_float_v<From> && sizeof(To) < 4) {
    return static_cast<To>(convert<int32_t>(v));  // as x86 converts: through int32, then wrap
  } else if constexpr (is_int_v<To> && is_float_v<From>) {
    // Both bounds are exact in double: -2^31 / 2^31 and -2^63 / 2^63.
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
    constexpr double hi = -lo;
    const double d = static_cast<double>(v);
    if (!(d > lo - 1.0 && d < hi)) return std::numeric_limits<To>::min();  // NaN too
    return static_cast<To>(d);
  } else {
    return static_cast<To>(v);  // int narrowing wraps (C++20); float narrowing rounds
  }
}

template <typename T> T wrap_add(T a, T b) { using U = std::make_unsigned_t<T>; return T(U(a) + U(b)); }
template <typename T> T wrap_sub(T a, T b) { using U = std::make_unsigned_t<T>; return T(U(a) - U(b)); }
template <typename T> T wrap_mul(T a, T b) { using U = std::make_unsigned_t<T>; return T(U(a) * U(b)); }
template <typename T> T wrap_neg(T a) { using U = std::make_unsigned_t<T>; return T(U(0) - U(a)); }

// ---- tensors ----

struct TensorDesc {
  char* data = nullptr;
  int32_t dtype = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int64_t numel = 0;

  int ndim() const { return static_cast<int>(shape.size()); }
  template <typename T> T* as() const { return reinterpret_cast<T*>(data); }
};

inline std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// A checked copy of t: well formed, of a supported dtype, inside memory of the kernel's device.
inline TensorDesc describe(const OarKernelContext* ctx, const OarTensor& t, const char* role) {
  if (t.ndim < 0) fail("'%s' is absent", role);
  if (!is_supported_dtype(t.dtype))
    unsupported("'%s' has dtype %s; custom_cpu has bool, the integers, float16, bfloat16, float32 and float64",
                role, dtype_name(t.dtype));
  if (t.ndim > 0 && (t.shape == nullptr || t.strides == nullptr)) fail("'%s' has no shape or strides", role);
  TensorDesc d;
  d.data = static_cast<char*>(t.data);
  d.dtype = t.dtype;
  d.shape.assign(t.shape, t.shape + t.ndim);
  d.strides.assign(t.strides, t.strides + t.ndim);
  d.numel = 1;
  for (int64_t s : d.shape) {
    if (s < 0) fail("'%s' has a negative extent in shape %s", role, shape_str(d.shape).c_str());
    d.numel *= s;
  }
  if (d.numel != t.numel)
    fail("'%s' has numel %lld but shape %s", role, static_cast<long long>(t.numel), shape_str(d.shape).c_str());
  if (d.numel == 0) return d;
  // The span of elements the view reaches must be device memory of this device.
  int64_t lo = 0, hi = 0;
  for (int i = 0; i < d.ndim(); ++i) (d.strides[i] < 0 ? lo : hi) += d.strides[i] * (d.shape[i] - 1);
  const size_t es = element_size(d.dtype);
  const char* first = d.data + lo * static_cast<int64_t>(es);
  if (d.data == nullptr || !is_device_range(ctx->device_id, first, static_cast<size_t>(hi - lo + 1) * es))
    fail("'%s' (%p, shape %s) is not in memory of custom_cpu:%d", role, static_cast<void*>(d.data),
         shape_str(d.shape).c_str(), ctx->device_id);
  return d;
}

// An optional tensor argument: nullopt when absent (ndim -1) or not passed.
inline std::optional<TensorDesc> optional_input(const OarKernelContext* ctx, int i, const char* role) {
  if (i >= ctx->num_inputs || ctx->inputs == nullptr || ctx->inputs[i].ndim < 0) return std::nullopt;
  return describe(ctx, ctx->inputs[i], role);
}

// A tensor's elements in row-major order, read on the stream (read() is empty for an absent
// tensor): for kernels that need a small operand whole, whatever its strides.
template <typename T>
struct Reader {
  StridedWalker<1> walk;
  const T* data = nullptr;
  Reader() = default;
  explicit Reader(const std::optional<TensorDesc>& t) {
    if (!t) return;
    walk = StridedWalker<1>(t->shape, {t->strides});
    data = t->as<const T>();
  }
  std::vector<T> read() const {
    std::vector<T> v;
    if (data == nullptr) return v;
    v.reserve(static_cast<size_t>(walk.numel()));
    walk.run([&](const std::array<int64_t, 1>& off) { v.push_back(data[off[0]]); });
    return v;
  }
};

inline TensorDesc input(const OarKernelContext* ctx, int i, const char* role) {
  if (i >= ctx->num_inputs || ctx->inputs == nullptr) fail("expects input '%s' (#%d); got %d inputs", role, i, ctx->num_inputs);
  return describe(ctx, ctx->inputs[i], role);
}

inline TensorDesc output(const OarKernelContext* ctx, int i = 0) {
  if (i >= ctx->num_outputs || ctx->outputs == nullptr) fail("expects output #%d; got %d outputs", i, ctx->num_outputs);
  return describe(ctx, ctx->outputs[i], "out");
}

inline void expect_dtype(const TensorDesc& t, int32_t dtype, const char* role) {
  if (t.dtype != dtype) fail("'%s' has dtype %s; expected %s", role, dtype_name(t.dtype), dtype_name(dtype));
}

inline void expect_shape(const TensorDesc& t, const std::vector<int64_t>& shape, const char* role) {
  if (t.shape != shape)
    fail("'%s' has shape %s; expected %s", role, shape_str(t.shape).c_str(), shape_str(shape).c_str());
}

// Kernels that index their output by position need the contiguous layout the ABI promises.
inline void expect_contiguous(const TensorDesc& t, const char* role) {
  const std::vector<int64_t> want = contiguous_strides(t.shape);
  for (int i = 0; i < t.ndim(); ++i)
    if (t.shape[i] != 1 && t.strides[i] != want[i]) fail("'%s' is not contiguous", role);
}

// numpy broadcasting of two shapes, aligned to the right.
inline std::vector<int64_t> broadcast_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      fail("shapes %s and %s do not broadcast", shape_str(a).c_str(), shape_str(b).c_str());
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// t's strides aligned to `shape`: missing leading dimensions and size-1 dimensions that
// `shape` stretches get stride 0.
inline std::vector<int64_t> broadcast_strides(const TensorDesc& t, const std::vector<int64_t>& shape,
                                              const char* role) {
  const int n = static_cast<int>(shape.size()), r = t.ndim();
  if (r > n) fail("'%s' with shape %s has more dimensions than %s", role, shape_str(t.shape).c_str(), shape_str(shape).c_str());
  std::vector<int64_t> strides(n, 0);
  for (int i = 0; i < r; ++i) {
    const int d = n - r + i;
    if (t.shape[i] == shape[d]) strides[d] = shape[d] == 1 ? 0 : t.strides[i];
    else if (t.shape[i] != 1)
      fail("'%s' with shape %s does not broadcast to %s", role, shape_str(t.shape).c_str(), shape_str(shape).c_str());
  }
  return strides;
}

// ---- attributes ----

// A Scalar attribute: an integer or a float (complex: f + i f_imag) as given, converted to the
// kernel's type on use.
struct Scalar {
  bool is_float = false;
  double f = 0;
  int64_t i = 0;
  double f_imag = 0;

  template <typename T>
  T to() const {
    if constexpr (is_complex_v<T>) {
      using R = typename T::value_type;
      if (is_float) return T(static_cast<R>(f), static_cast<R>(f_imag));
      return T(static_cast<R>(i), R(0));
    }
    if (is_float) return convert<T>(f);
    if constexpr (std::is_same_v<T, bool>) return i != 0;
    else return convert<T>(i);
  }
  double to_double() const { return is_float ? f : static_cast<double>(i); }
};

inline const OarAttr* find_attr(const OarKernelContext* ctx, const char* name) {
  const OarAttr* a = ctx->attrs == nullptr ? nullptr : oar_find_attr(ctx, name);
  return a == nullptr || a->kind == OAR_ATTR_NONE ? nullptr : a;
}

inline bool bool_attr(const OarKernelContext* ctx, const char* name, bool fallback) {
  const OarAttr* a = find_attr(ctx, name);
  if (a == nullptr) return fallback;
  if (a->kind == OAR_ATTR_BOOL || a->kind == OAR_ATTR_INT || a->kind == OAR_ATTR_SCALAR_BOOL ||
      a->kind == OAR_ATTR_SCALAR_INT)
    return a->i != 0;
  fail("attribute '%s' is not a bool (kind %d)", name, a->kind);
}

inline Scalar scalar_attr(const OarKernelContext* ctx, const char* name, Scalar fallback) {
  const OarAttr* a = find_attr(ctx, name);
  if (a == nullptr) return fallback;
  switch (a->kind) {
    case OAR_ATTR_SCALAR_FLOAT: case OAR_ATTR_FLOAT: return Scalar{true, a->f, 0};
    case OAR_ATTR_SCALAR_COMPLEX: return Scalar{true, a->f, 0, a->f_imag};
    case OAR_ATTR_SCALAR_INT: case OAR_ATTR_INT: case OAR_ATTR_SCALAR_BOOL: case OAR_ATTR_BOOL:
      return Scalar{false, 0, a->i};
    default: fail("attribute '%s' is not a scalar (kind %d)", name, a->kind);
  }
}

// An int attribute; absent (None) gives the fallback.
inline int64_t int_attr(const OarKernelContext* ctx, const char* name, int64_t fallback) {
  const OarAttr* a = find_attr(ctx, name);
  if (a == nullptr) return fallback;
  if (a->kind != OAR_ATTR_INT && a->kind != OAR_ATTR_SCALAR_INT)
    fail("attribute '%s' is not an int (kind %d)", name, a->kind);
  return a->i;
}

// A float attribute (or any number); absent (None) gives the fallback.
inline double float_attr(const OarKernelContext* ctx, const char* name, double fallback) {
  const OarAttr* a = find_attr(ctx, name);
  if (a == nullptr) return fallback;
  switch (a->kind) {
    case OAR_ATTR_FLOAT: case OAR_ATTR_SCALAR_FLOAT: return a->f;
    case OAR_ATTR_INT: case OAR_ATTR_SCALAR_INT: case OAR_ATTR_BOOL: case OAR_ATTR_SCALAR_BOOL:
      return static_cast<double>(a->i);
    default: fail("attribute '%s' is not a number (kind %d)", name, a->kind);
  }
}

// An IntArray attribute; absent (None) gives an empty list.
inline std::vector<int64_t> ints_attr(const OarKernelContext* ctx, const char* name) {
  const OarAttr* a = find_attr(ctx, name);
  if (a == nullptr) return {};
  if (a->kind == OAR_ATTR_INT || a->kind == OAR_ATTR_SCALAR_INT) return {a->i};
  if (a->kind != OAR_ATTR_INT_ARRAY) fail("attribute '%s' is not an int array (kind %d)", name, a->kind);
  if (a->count > 0 && a->ints == nullptr) fail("attribute '%s' has no entries", name);
  return std::vector<int64_t>(a->ints, a->ints + a->count);
}

// ---- launching ----

// Enqueues `task` on the kernel's stream; it runs after the kernel returns.
inline void launch(const OarKernelContext* ctx, Task task) {
  std::shared_ptr<Stream> s = resolve_stream(ctx->device_id, ctx->stream);
  if (s == nullptr) fail("%p is not a stream of custom_cpu:%d", static_cast<void*>(ctx->stream), ctx->device_id);
  s->enqueue(std::move(task));
}

}  // namespace oar_custom_cpu
