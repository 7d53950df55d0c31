#include "oar/kernels/cpu/elementwise.h"

#include <cmath>

#include "oar/kernels/cpu/convert.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/loops.h"
#include "oar/kernels/cpu/transpose.h"
#include "oar/kernels/cpu/vec_math.h"
#include "plugins/common/clip_bound.h"

namespace oar::kernels {

void unsupported_dtype(const char* op, DType t, const char* supported) {
  OAR_THROW(TypeMismatch, op, ": unsupported dtype ", dtype_name(t), " for argument 'x'; ",
            "supported: ", supported);
}

std::vector<int64_t> broadcast_byte_strides(const Tensor& t, const Shape& shape) {
  const size_t n = shape.size(), r = t.shape().size();
  std::vector<int64_t> st(n, 0);
  const int64_t es = static_cast<int64_t>(t.element_size());
  for (size_t i = 0; i < r; ++i) {
    const size_t d = n - r + i;
    st[d] = t.shape()[i] == 1 ? 0 : t.strides()[i] * es;
  }
  return st;
}

const char* binary_op_name(BinaryOp op) {
  static const char* names[] = {"add", "subtract", "multiply", "divide", "floor_divide",
                                "remainder", "pow", "maximum", "minimum", "fmax", "fmin", "atan2",
                                "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and",
                                "logical_or", "logical_xor", "equal", "not_equal", "less_than",
                                "less_equal", "greater_than", "greater_equal"};
  return names[static_cast<int>(op)];
}

namespace {

template <typename T> constexpr bool is_half_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

template <typename T>
void check_no_zero_divisor(const Tensor& y, const char* op) {
  if constexpr (std::is_integral_v<T>) {
    const Tensor yc = y.contiguous();
    const T* p = yc.data<T>();
    for (int64_t i = 0; i < yc.numel(); ++i)
      OAR_ENFORCE_ARG(p[i] != 0, op, ": integer division by zero (argument 'y' holds a 0 at flat ",
                      "index ", i, ")");
  }
}

template <typename T, typename F>
void arith(const Tensor& x, const Tensor& y, const Tensor& out, const F& f) {
  using C = compute_t<T>;
  binary_loop<T, T, T>(x, y, out, [&](T a, T b) -> T { return T(f(C(a), C(b))); });
}

template <typename T, typename F>
void compare(const Tensor& x, const Tensor& y, const Tensor& out, const F& f) {
  using C = compute_t<T>;
  binary_loop<bool, T, T>(x, y, out, [&](T a, T b) -> bool { return f(C(a), C(b)); });
}

template <typename T>
void binary_real(BinaryOp op, const Tensor& x, const Tensor& y, const Tensor& out) {
  using C = compute_t<T>;
  const char* name = binary_op_name(op);
  switch (op) {
    case BinaryOp::Add: return arith<T>(x, y, out, [](C a, C b) { return a + b; });
    case BinaryOp::Sub: return arith<T>(x, y, out, [](C a, C b) { return a - b; });
    case BinaryOp::Mul: return arith<T>(x, y, out, [](C a, C b) { return a * b; });
    case BinaryOp::Div:
      check_no_zero_divisor<T>(y, name);
      return arith<T>(x, y, out, [](C a, C b) { return a / b; });
    case BinaryOp::FloorDiv:
      check_no_zero_divisor<T>(y, name);
      return arith<T>(x, y, out, [](C a, C b) -> C {
        if constexpr (std::is_integral_v<C>) {
          C q = a / b;
          return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
        } else {
          return std::floor(a / b);
        }
      });
    case BinaryOp::Mod:
      check_no_zero_divisor<T>(y, name);
      return arith<T>(x, y, out, [](C a, C b) -> C {
        if constexpr (std::is_integral_v<C>) {
          C r = a % b;
          return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
        } else {
          C r = std::fmod(a, b);
          return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
        }
      });
    case BinaryOp::Pow:
      return arith<T>(x, y, out, [](C a, C b) -> C {
        if constexpr (std::is_integral_v<C>) {
          if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
          C r = 1;
          while (b) {
            if (b & 1) r *= a;
            a *= a;
            b >>= 1;
          }
          return r;
        } else {
          return std::pow(a, b);
        }
      });
    case BinaryOp::Max:
      return arith<T>(x, y, out, [](C a, C b) -> C {
        if constexpr (!std::is_integral_v<C>) if (a != a || b != b) return a + b;  // NaN wins
        return a > b ? a : b;
      });
    case BinaryOp::Min:
      return arith<T>(x, y, out, [](C a, C b) -> C {
        if constexpr (!std::is_integral_v<C>) if (a != a || b != b) return a + b;
        return a < b ? a : b;
      });
    case BinaryOp::FMax:
      return arith<T>(x, y, out, [](C a, C b) -> C {
        if constexpr (!std::is_integral_v<C>) return std::fmax(a, b); else return a > b ? a : b;
      });
    case BinaryOp::FMin:
      return arith<T>(x, y, out, [](C a, C b) -> C {
        if constexpr (!std::is_integral_v<C>) return std::fmin(a, b); else return a < b ? a : b;
      });
    case BinaryOp::Atan2:
      if constexpr (std::is_integral_v<C>) {
        unsupported_dtype(name, x.dtype(), "float16, bfloat16, float32, float64");
      } else {
        return arith<T>(x, y, out, [](C a, C b) -> C { return std::atan2(a, b); });
      }
    case BinaryOp::BitAnd:
    case BinaryOp::BitOr:
    case BinaryOp::BitXor:
      if constexpr (std::is_integral_v<C>) {
        if (op == BinaryOp::BitAnd) return arith<T>(x, y, out, [](C a, C b) -> C { return a & b; });
        if (op == BinaryOp::BitOr) return arith<T>(x, y, out, [](C a, C b) -> C { return a | b; });
        return arith<T>(x, y, out, [](C a, C b) -> C { return a ^ b; });
      } else {
        unsupported_dtype(name, x.dtype(), "bool, int8, uint8, int16, int32, int64");
      }
    case BinaryOp::LogicalAnd: return compare<T>(x, y, out, [](C a, C b) { return a != C(0) && b != C(0); });
    case BinaryOp::LogicalOr: return compare<T>(x, y, out, [](C a, C b) { return a != C(0) || b != C(0); });
    case BinaryOp::LogicalXor: return compare<T>(x, y, out, [](C a, C b) { return (a != C(0)) != (b != C(0)); });
    case BinaryOp::Eq: return compare<T>(x, y, out, [](C a, C b) { return a == b; });
    case BinaryOp::Ne: return compare<T>(x, y, out, [](C a, C b) { return a != b; });
    case BinaryOp::Lt: return compare<T>(x, y, out, [](C a, C b) { return a < b; });
    case BinaryOp::Le: return compare<T>(x, y, out, [](C a, C b) { return a <= b; });
    case BinaryOp::Gt: return compare<T>(x, y, out, [](C a, C b) { return a > b; });
    case BinaryOp::Ge: return compare<T>(x, y, out, [](C a, C b) { return a >= b; });
  }
}

void binary_bool(BinaryOp op, const Tensor& x, const Tensor& y, const Tensor& out) {
  auto logic = [&](auto f) { binary_loop<bool, bool, bool>(x, y, out, f); };
  switch (op) {
    case BinaryOp::LogicalAnd: case BinaryOp::BitAnd: case BinaryOp::Mul: case BinaryOp::Min:
      return logic([](bool a, bool b) { return a && b; });
    case BinaryOp::LogicalOr: case BinaryOp::BitOr: case BinaryOp::Add: case BinaryOp::Max:
      return logic([](bool a, bool b) { return a || b; });
    case BinaryOp::LogicalXor: case BinaryOp::BitXor: case BinaryOp::Ne:
      return logic([](bool a, bool b) { return a != b; });
    case BinaryOp::Eq: return logic([](bool a, bool b) { return a == b; });
    case BinaryOp::Lt: return logic([](bool a, bool b) { return !a && b; });
    case BinaryOp::Le: return logic([](bool a, bool b) { return !a || b; });
    case BinaryOp::Gt: return logic([](bool a, bool b) { return a && !b; });
    case BinaryOp::Ge: return logic([](bool a, bool b) { return a || !b; });
    default: unsupported_dtype(binary_op_name(op), DType::Bool, "numeric types");
  }
}

template <typename T>
void binary_complex(BinaryOp op, const Tensor& x, const Tensor& y, const Tensor& out) {
  switch (op) {
    case BinaryOp::Add: return binary_loop<T, T, T>(x, y, out, [](T a, T b) { return a + b; });
    case BinaryOp::Sub: return binary_loop<T, T, T>(x, y, out, [](T a, T b) { return a - b; });
    case BinaryOp::Mul: return binary_loop<T, T, T>(x, y, out, [](T a, T b) { return a * b; });
    case BinaryOp::Div: return binary_loop<T, T, T>(x, y, out, [](T a, T b) { return a / b; });
    case BinaryOp::Pow: return binary_loop<T, T, T>(x, y, out, [](T a, T b) { return std::pow(a, b); });
    case BinaryOp::Eq: return binary_loop<bool, T, T>(x, y, out, [](T a, T b) { return a == b; });
    case BinaryOp::Ne: return binary_loop<bool, T, T>(x, y, out, [](T a, T b) { return a != b; });
    default: unsupported_dtype(binary_op_name(op), x.dtype(), "real types");
  }
}

}  // namespace

void binary(BinaryOp op, const Tensor& x, const Tensor& y, const Tensor& out) {
  const DType t = x.dtype();
  if (t == DType::Bool) return binary_bool(op, x, y, out);
  if (t == DType::Complex64) return binary_complex<complex64>(op, x, y, out);
  if (t == DType::Complex128) return binary_complex<complex128>(op, x, y, out);
  dispatch_real(t, binary_op_name(op), [&](auto tag) { binary_real<decltype(tag)>(op, x, y, out); });
}

const char* unary_op_name(UnaryOp op) {
  static const char* names[] = {
      "neg", "abs", "sign", "square", "reciprocal", "floor", "ceil", "round", "trunc",
      "exp", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
      "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "erf", "sigmoid",
      "relu", "silu", "gelu", "gelu", "relu6", "hardswish",
      "logical_not", "bitwise_not", "isnan", "isinf", "isfinite", "conj"};
  return names[static_cast<int>(op)];
}

namespace {

template <typename T, typename F>
void map(const Tensor& x, const Tensor& out, const F& f) {
  using C = compute_t<T>;
  unary_loop<T, T>(x, out, [&](T a) -> T { return T(f(C(a))); });
}

template <typename T, typename F>
void predicate(const Tensor& x, const Tensor& out, const F& f) {
  using C = compute_t<T>;
  unary_loop<bool, T>(x, out, [&](T a) -> bool { return f(C(a)); });
}

template <typename T>
void unary_float(UnaryOp op, const Tensor& x, const Tensor& out) {
  using C = compute_t<T>;
  switch (op) {
    case UnaryOp::Exp: return map<T>(x, out, [](C a) { return std::exp(a); });
    case UnaryOp::Expm1: return map<T>(x, out, [](C a) { return std::expm1(a); });
    case UnaryOp::Log: return map<T>(x, out, [](C a) { return std::log(a); });
    case UnaryOp::Log2: return map<T>(x, out, [](C a) { return std::log2(a); });
    case UnaryOp::Log10: return map<T>(x, out, [](C a) { return std::log10(a); });
    case UnaryOp::Log1p: return map<T>(x, out, [](C a) { return std::log1p(a); });
    case UnaryOp::Sqrt: return map<T>(x, out, [](C a) { return std::sqrt(a); });
    case UnaryOp::Rsqrt: return map<T>(x, out, [](C a) { return C(1) / std::sqrt(a); });
    case UnaryOp::Reciprocal: return map<T>(x, out, [](C a) { return C(1) / a; });
    case UnaryOp::Sin: return map<T>(x, out, [](C a) { return std::sin(a); });
    case UnaryOp::Cos: return map<T>(x, out, [](C a) { return std::cos(a); });
    case UnaryOp::Tan: return map<T>(x, out, [](C a) { return std::tan(a); });
    case UnaryOp::Asin: return map<T>(x, out, [](C a) { return std::asin(a); });
    case UnaryOp::Acos: return map<T>(x, out, [](C a) { return std::acos(a); });
    case UnaryOp::Atan: return map<T>(x, out, [](C a) { return std::atan(a); });
    case UnaryOp::Sinh: return map<T>(x, out, [](C a) { return std::sinh(a); });
    case UnaryOp::Cosh: return map<T>(x, out, [](C a) { return std::cosh(a); });
    case UnaryOp::Tanh: return map<T>(x, out, [](C a) { return std::tanh(a); });
    case UnaryOp::Erf: return map<T>(x, out, [](C a) { return std::erf(a); });
    case UnaryOp::Sigmoid: return map<T>(x, out, [](C a) { return C(1) / (C(1) + std::exp(-a)); });
    case UnaryOp::Silu: return map<T>(x, out, [](C a) { return a / (C(1) + std::exp(-a)); });
    case UnaryOp::Gelu:
      return map<T>(x, out, [](C a) { return C(0.5) * a * (C(1) + std::erf(a * C(M_SQRT1_2))); });
    case UnaryOp::GeluTanh:
      return map<T>(x, out, [](C a) {
        const C k = C(0.7978845608028654);  // sqrt(2/pi)
        return C(0.5) * a * (C(1) + std::tanh(k * (a + C(0.044715) * a * a * a)));
      });
    case UnaryOp::Hardswish:
      return map<T>(x, out, [](C a) { return a * std::min(std::max(a + C(3), C(0)), C(6)) / C(6); });
    case UnaryOp::IsNan: return predicate<T>(x, out, [](C a) { return std::isnan(a); });
    case UnaryOp::IsInf: return predicate<T>(x, out, [](C a) { return std::isinf(a); });
    case UnaryOp::IsFinite: return predicate<T>(x, out, [](C a) { return std::isfinite(a); });
    case UnaryOp::Floor: return map<T>(x, out, [](C a) { return std::floor(a); });
    case UnaryOp::Ceil: return map<T>(x, out, [](C a) { return std::ceil(a); });
    // Halves to even, as Paddle (2.5 -> 2, -0.5 -> -0).
    case UnaryOp::Round: return map<T>(x, out, [](C a) { return std::nearbyint(a); });
    case UnaryOp::Trunc: return map<T>(x, out, [](C a) { return std::trunc(a); });
    default: break;
  }
  OAR_THROW(Unimplemented, unary_op_name(op), ": no float kernel");
}

// out = fn(x) through a vectorised span kernel. Strided runs are gathered into a small buffer
// first, so every element goes through the same code whatever the layout.
template <typename T>
void span_loop(const Tensor& x, const Tensor& out, SpanFn<T> fn) {
  if (x.is_contiguous() && out.is_contiguous() && x.shape() == out.shape()) {
    const T* a = static_cast<const T*>(x.raw_data());
    T* o = static_cast<T*>(out.raw_data());
    parallel_for(0, out.numel(), kElementwiseGrain,
                 [&](int64_t b, int64_t e) { fn(a + b, o + b, e - b); });
    return;
  }
  StridedLoop<2> loop(out.shape(), {static_cast<char*>(out.raw_data()), static_cast<char*>(x.raw_data())},
                      {broadcast_byte_strides(out, out.shape()), broadcast_byte_strides(x, out.shape())});
  loop.run([&](char* const* p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(T) && s[1] == sizeof(T))
      return fn(reinterpret_cast<const T*>(p[1]), reinterpret_cast<T*>(p[0]), n);
    constexpr int64_t kBuf = 256;
    T buf[kBuf];
    for (int64_t i0 = 0; i0 < n; i0 += kBuf) {
      const int64_t m = std::min(kBuf, n - i0);
      for (int64_t i = 0; i < m; ++i) buf[i] = *reinterpret_cast<const T*>(p[1] + (i0 + i) * s[1]);
      fn(buf, buf, m);
      for (int64_t i = 0; i < m; ++i) *reinterpret_cast<T*>(p[0] + (i0 + i) * s[0]) = buf[i];
    }
  });
}

// float16/bfloat16 through the float32 span kernel of op: widened a block at a time into a
// float buffer, computed there (vectorised), narrowed once. False when op has no such kernel.
template <typename T>
bool half_span_loop(UnaryOp op, const Tensor& x, const Tensor& out) {
  const SpanFn<float> fn = vec_span_f32(op);
  if (!fn) return false;
  auto run = [fn](const T* in, int64_t in_stride, T* o, int64_t o_stride, int64_t n) {
    constexpr int64_t kBlock = 512;
    float buf[kBlock];
    for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
      const int64_t m = std::min(kBlock, n - i0);
      for (int64_t i = 0; i < m; ++i) buf[i] = static_cast<float>(in[(i0 + i) * in_stride]);
      fn(buf, buf, m);
      for (int64_t i = 0; i < m; ++i) o[(i0 + i) * o_stride] = T(buf[i]);
    }
  };
  if (x.is_contiguous() && out.is_contiguous() && x.shape() == out.shape()) {
    const T* a = static_cast<const T*>(x.raw_data());
    T* o = static_cast<T*>(out.raw_data());
    parallel_for(0, out.numel(), kElementwiseGrain, [&](int64_t b, int64_t e) { run(a + b, 1, o + b, 1, e - b); });
    return true;
  }
  StridedLoop<2> loop(out.shape(), {static_cast<char*>(out.raw_data()), static_cast<char*>(x.raw_data())},
                      {broadcast_byte_strides(out, out.shape()), broadcast_byte_strides(x, out.shape())});
  loop.run([&](char* const* p, const int64_t* st, int64_t n) {
    if (st[0] % static_cast<int64_t>(sizeof(T)) != 0 || st[1] % static_cast<int64_t>(sizeof(T)) != 0) {
      for (int64_t i = 0; i < n; ++i)  // strides off the element grid (views of byte buffers)
        run(reinterpret_cast<const T*>(p[1] + i * st[1]), 1, reinterpret_cast<T*>(p[0] + i * st[0]), 1, 1);
      return;
    }
    run(reinterpret_cast<const T*>(p[1]), st[1] / static_cast<int64_t>(sizeof(T)), reinterpret_cast<T*>(p[0]),
        st[0] / static_cast<int64_t>(sizeof(T)), n);
  });
  return true;
}

// The vectorised kernel for op on T, or nullptr (half types and ints have none).
template <typename T>
SpanFn<T> vec_span(UnaryOp op) {
  if constexpr (std::is_same_v<T, float>) return vec_span_f32(op);
  else if constexpr (std::is_same_v<T, double>) return vec_span_f64(op);
  else return nullptr;
}

// Ops defined for every real type (ints too).
template <typename T>
bool unary_any_real(UnaryOp op, const Tensor& x, const Tensor& out) {
  using C = compute_t<T>;
  switch (op) {
    case UnaryOp::Neg: map<T>(x, out, [](C a) { return -a; }); return true;
    case UnaryOp::Abs: map<T>(x, out, [](C a) { return a < C(0) ? -a : a; }); return true;
    case UnaryOp::Sign:
      map<T>(x, out, [](C a) { return C((a > C(0)) - (a < C(0))); });
      return true;
    case UnaryOp::Square: map<T>(x, out, [](C a) { return a * a; }); return true;
    case UnaryOp::Relu: map<T>(x, out, [](C a) { return a > C(0) ? a : C(0); }); return true;
    case UnaryOp::Relu6:
      map<T>(x, out, [](C a) { return std::min(std::max(a, C(0)), C(6)); });
      return true;
    case UnaryOp::LogicalNot: predicate<T>(x, out, [](C a) { return a == C(0); }); return true;
    case UnaryOp::Conj: unary_loop<T, T>(x, out, [](T a) { return a; }); return true;
    default: return false;
  }
}

}  // namespace

void unary(UnaryOp op, const Tensor& x, const Tensor& out) {
  const DType t = x.dtype();
  const char* name = unary_op_name(op);
  if (t == DType::Bool) {
    if (op == UnaryOp::LogicalNot || op == UnaryOp::BitNot)
      return unary_loop<bool, bool>(x, out, [](bool a) { return !a; });
    if (op == UnaryOp::IsNan || op == UnaryOp::IsInf)
      return unary_loop<bool, bool>(x, out, [](bool) { return false; });
    if (op == UnaryOp::IsFinite) return unary_loop<bool, bool>(x, out, [](bool) { return true; });
    if (op == UnaryOp::Conj) return unary_loop<bool, bool>(x, out, [](bool a) { return a; });
    unsupported_dtype(name, t, "numeric types");
  }
  if (is_complex(t)) {
    auto run = [&](auto tag) {
      using T = decltype(tag);
      switch (op) {
        case UnaryOp::Neg: return unary_loop<T, T>(x, out, [](T a) { return -a; });
        case UnaryOp::Conj: return unary_loop<T, T>(x, out, [](T a) { return std::conj(a); });
        case UnaryOp::Exp: return unary_loop<T, T>(x, out, [](T a) { return std::exp(a); });
        case UnaryOp::Log: return unary_loop<T, T>(x, out, [](T a) { return std::log(a); });
        case UnaryOp::Sqrt: return unary_loop<T, T>(x, out, [](T a) { return std::sqrt(a); });
        case UnaryOp::Sin: return unary_loop<T, T>(x, out, [](T a) { return std::sin(a); });
        case UnaryOp::Cos: return unary_loop<T, T>(x, out, [](T a) { return std::cos(a); });
        case UnaryOp::Tanh: return unary_loop<T, T>(x, out, [](T a) { return std::tanh(a); });
        case UnaryOp::Square: return unary_loop<T, T>(x, out, [](T a) { return a * a; });
        case UnaryOp::Reciprocal: return unary_loop<T, T>(x, out, [](T a) { return T(1) / a; });
        case UnaryOp::Abs: {
          using R = typename T::value_type;
          return unary_loop<R, T>(x, out, [](T a) { return std::abs(a); });
        }
        case UnaryOp::Expm1: return unary_loop<T, T>(x, out, [](T a) { return std::exp(a) - T(1); });
        case UnaryOp::Log2:
          return unary_loop<T, T>(x, out, [](T a) { return std::log(a) / typename T::value_type(0.6931471805599453); });
        case UnaryOp::Log10: return unary_loop<T, T>(x, out, [](T a) { return std::log10(a); });
        case UnaryOp::Log1p: return unary_loop<T, T>(x, out, [](T a) { return std::log(T(1) + a); });
        case UnaryOp::Tan: return unary_loop<T, T>(x, out, [](T a) { return std::tan(a); });
        case UnaryOp::Asin: return unary_loop<T, T>(x, out, [](T a) { return std::asin(a); });
        case UnaryOp::Acos: return unary_loop<T, T>(x, out, [](T a) { return std::acos(a); });
        case UnaryOp::Atan: return unary_loop<T, T>(x, out, [](T a) { return std::atan(a); });
        case UnaryOp::Sinh: return unary_loop<T, T>(x, out, [](T a) { return std::sinh(a); });
        case UnaryOp::Cosh: return unary_loop<T, T>(x, out, [](T a) { return std::cosh(a); });
        case UnaryOp::Sigmoid: return unary_loop<T, T>(x, out, [](T a) { return T(1) / (T(1) + std::exp(-a)); });
        // Real and imaginary parts each to the nearest integer, halves to even (as Paddle).
        case UnaryOp::Round:
          return unary_loop<T, T>(x, out, [](T a) { return T(std::nearbyint(a.real()), std::nearbyint(a.imag())); });
        // sign of a complex number: a / |a| (0 at 0), as Paddle.
        case UnaryOp::Sign:
          return unary_loop<T, T>(x, out, [](T a) { return a == T(0) ? T(0) : a / std::abs(a); });
        case UnaryOp::IsNan:
          return unary_loop<bool, T>(x, out, [](T a) { return std::isnan(a.real()) || std::isnan(a.imag()); });
        case UnaryOp::IsInf:
          return unary_loop<bool, T>(x, out, [](T a) { return std::isinf(a.real()) || std::isinf(a.imag()); });
        case UnaryOp::IsFinite:
          return unary_loop<bool, T>(x, out, [](T a) { return std::isfinite(a.real()) && std::isfinite(a.imag()); });
        default: unsupported_dtype(name, t, "real types");
      }
    };
    if (t == DType::Complex64) return run(complex64{});
    return run(complex128{});
  }
  if (is_integral(t)) {
    const bool done = dispatch_integral(t, name, [&](auto tag) {
      using T = decltype(tag);
      if (unary_any_real<T>(op, x, out)) return true;
      switch (op) {
        case UnaryOp::BitNot: unary_loop<T, T>(x, out, [](T a) { return T(~a); }); return true;
        case UnaryOp::Floor: case UnaryOp::Ceil: case UnaryOp::Round: case UnaryOp::Trunc:
          unary_loop<T, T>(x, out, [](T a) { return a; }); return true;
        case UnaryOp::IsNan: case UnaryOp::IsInf:
          unary_loop<bool, T>(x, out, [](T) { return false; }); return true;
        case UnaryOp::IsFinite: unary_loop<bool, T>(x, out, [](T) { return true; }); return true;
        default: return false;
      }
    });
    if (!done) unsupported_dtype(name, t, "float16, bfloat16, float32, float64");
    return;
  }
  dispatch_floating(t, name, [&](auto tag) {
    using T = decltype(tag);
    if (unary_any_real<T>(op, x, out)) return;
    if (const SpanFn<T> fn = vec_span<T>(op)) return span_loop<T>(x, out, fn);
    if constexpr (is_half_v<T>)
      if (half_span_loop<T>(op, x, out)) return;
    unary_float<T>(op, x, out);
  });
}

void leaky_relu(const Tensor& x, double slope, const Tensor& out) {
  dispatch_floating(x.dtype(), "leaky_relu", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C s = C(slope);
    map<T>(x, out, [s](C a) { return a > C(0) ? a : a * s; });
  });
}

void elu(const Tensor& x, double alpha, const Tensor& out) {
  dispatch_floating(x.dtype(), "elu", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C al = C(alpha);
    map<T>(x, out, [al](C a) { return a > C(0) ? a : al * std::expm1(a); });
  });
}

void hardsigmoid(const Tensor& x, double slope, double offset, const Tensor& out) {
  dispatch_floating(x.dtype(), "hardsigmoid", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C s = C(slope), o = C(offset);
    map<T>(x, out, [s, o](C a) { return std::min(std::max(s * a + o, C(0)), C(1)); });
  });
}

void softplus(const Tensor& x, double beta, double threshold, const Tensor& out) {
  dispatch_floating(x.dtype(), "softplus", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C b = C(beta), th = C(threshold);
    map<T>(x, out, [b, th](C a) { return a * b > th ? a : std::log1p(std::exp(a * b)) / b; });
  });
}

// A clip bound in C: integers take plugins/common/clip_bound.h's rule, as the device plug-ins.
template <typename C>
C clip_bound(const Scalar& s) {
  if constexpr (std::is_integral_v<C>)
    return oar_common::int_clip_bound<C>(!s.is_integral(), s.is_integral() ? s.to<int64_t>() : 0,
                                         s.is_integral() ? 0.0 : s.to<double>());
  else
    return s.to<C>();
}

void clip(const Tensor& x, const Scalar& min, const Scalar& max, const Tensor& out) {
  dispatch_real(x.dtype(), "clip", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C lo = clip_bound<C>(min), hi = clip_bound<C>(max);
    map<T>(x, out, [lo, hi](C a) {
      if constexpr (!std::is_integral_v<C>) if (a != a) return a;
      return a < lo ? lo : (a > hi ? hi : a);
    });
  });
}

void scale(const Tensor& x, const Scalar& scale, const Scalar& bias, bool bias_after_scale,
           const Tensor& out) {
  dispatch_real(x.dtype(), "scale", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    if constexpr (std::is_integral_v<C>) {
      const double s = scale.to<double>(), b = bias.to<double>();
      map<T>(x, out, [=](C a) {
        return numeric_cast<C>(bias_after_scale ? double(a) * s + b : (double(a) + b) * s);
      });
    } else {
      const C s = scale.to<C>(), b = bias.to<C>();
      if (bias_after_scale) map<T>(x, out, [=](C a) { return a * s + b; });
      else map<T>(x, out, [=](C a) { return (a + b) * s; });
    }
  });
}

void round_decimals(const Tensor& x, int64_t decimals, const Tensor& out) {
  if (decimals == 0 || is_integral(x.dtype())) {  // integers have no fraction to round
    if (decimals == 0) return unary(UnaryOp::Round, x, out);
    return copy(x, out);
  }
  // Scale by 10^|decimals|, round halves to even, scale back (as Paddle: 1234.5 at -1 -> 1230).
  auto scaled = [decimals](auto a) {
    using R = decltype(a);
    const R s = R(std::pow(10.0, static_cast<double>(decimals > 0 ? decimals : -decimals)));
    return decimals > 0 ? std::nearbyint(a * s) / s : std::nearbyint(a / s) * s;
  };
  if (is_complex(x.dtype())) {
    auto run = [&](auto tag) {
      using T = decltype(tag);
      unary_loop<T, T>(x, out, [&](T a) { return T(scaled(a.real()), scaled(a.imag())); });
    };
    if (x.dtype() == DType::Complex64) return run(complex64{});
    return run(complex128{});
  }
  dispatch_floating(x.dtype(), "round", [&](auto tag) {
    using T = decltype(tag);
    map<T>(x, out, [&](compute_t<T> a) { return scaled(a); });
  });
}

void pow_scalar(const Tensor& x, const Scalar& y, const Tensor& out) {
  if (is_complex(x.dtype())) {
    auto run = [&](auto tag) {
      using T = decltype(tag);
      using R = typename T::value_type;
      const R e = y.to<R>();
      if (e == R(2)) return unary_loop<T, T>(x, out, [](T a) { return a * a; });
      unary_loop<T, T>(x, out, [e](T a) { return std::pow(a, e); });
    };
    if (x.dtype() == DType::Complex64) return run(complex64{});
    return run(complex128{});
  }
  dispatch_real(x.dtype(), "pow", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    if constexpr (std::is_integral_v<C>) {
      const double e = y.to<double>();
      map<T>(x, out, [e](C a) { return C(std::llround(std::pow(double(a), e))); });
    } else {
      const C e = y.to<C>();
      if (e == C(2)) map<T>(x, out, [](C a) { return a * a; });
      else if (e == C(0.5)) map<T>(x, out, [](C a) { return std::sqrt(a); });
      else map<T>(x, out, [e](C a) { return std::pow(a, e); });
    }
  });
}

void isclose(const Tensor& x, const Tensor& y, double rtol, double atol, bool equal_nan,
             const Tensor& out) {
  dispatch_real(x.dtype(), "isclose", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    binary_loop<bool, T, T>(x, y, out, [=](T ta, T tb) {
      const double a = double(C(ta)), b = double(C(tb));
      if (std::isnan(a) || std::isnan(b)) return equal_nan && std::isnan(a) && std::isnan(b);
      if (a == b) return true;
      return std::fabs(a - b) <= atol + rtol * std::fabs(b);
    });
  });
}

void where(const Tensor& cond, const Tensor& x, const Tensor& y, const Tensor& out) {
  dispatch_all(out.dtype(), "where", [&](auto tag) {
    using T = decltype(tag);
    ternary_loop<T, bool, T, T>(cond, x, y, out, [](bool c, T a, T b) { return c ? a : b; });
  });
}

namespace {

template <typename F>
decltype(auto) dispatch_float8(DType t, F&& f) {
  if (t == DType::Float8E4M3FN) return f(float8_e4m3fn{});
  return f(float8_e5m2{});
}

// Copies and casts with a float8 side: float8 values are converted through float (their only
// arithmetic), complex values have no float8 form.
void copy_float8(const Tensor& src, const Tensor& dst) {
  if (is_float8(src.dtype())) {
    dispatch_float8(src.dtype(), [&](auto stag) {
      using S = decltype(stag);
      if (src.dtype() == dst.dtype()) {
        unary_loop<S, S>(src, dst, [](S v) { return v; });
      } else if (is_float8(dst.dtype())) {
        dispatch_float8(dst.dtype(), [&](auto dtag) {
          using D = decltype(dtag);
          unary_loop<D, S>(src, dst, [](S v) { return D(static_cast<float>(v)); });
        });
      } else {
        dispatch_all(dst.dtype(), "cast", [&](auto dtag) {
          using D = decltype(dtag);
          unary_loop<D, S>(src, dst, [](S v) { return convert<D>(static_cast<float>(v)); });
        });
      }
    });
    return;
  }
  OAR_ENFORCE(!is_complex(src.dtype()), TypeMismatch, "cast: a ", dtype_name(src.dtype()),
              " tensor cannot be cast to ", dtype_name(dst.dtype()));
  dispatch_float8(dst.dtype(), [&](auto dtag) {
    using D = decltype(dtag);
    dispatch_real_bool(src.dtype(), "cast", [&](auto stag) {
      using S = decltype(stag);
      unary_loop<D, S>(src, dst, [](S v) {
        if constexpr (is_half_v<S>) return D(static_cast<float>(v));
        else return D(v);
      });
    });
  });
}

}  // namespace

namespace {

// A same-type copy whose source is a transposed view in its last two dims (x.T, x.transpose(
// [..., -1, -2]) made contiguous): each [R, C] block goes through the tiled transpose, not the
// strided loop, which reads a new cache line for every element (4-8x slower on [64, 4096]ᵀ).
// Returns false when the layout is not that, or the elements are not 1, 2, 4 or 8 bytes.
bool copy_transposed(const Tensor& src, const Tensor& dst) {
  const int64_t nd = src.ndim();
  const size_t esize = dtype_size(src.dtype());
  if (nd < 2 || src.dtype() != dst.dtype() || !dst.is_contiguous() || src.shape() != dst.shape() ||
      (esize != 1 && esize != 2 && esize != 4 && esize != 8))
    return false;
  const Shape& sh = src.shape();
  const Strides& st = src.strides();
  const int64_t R = sh[nd - 2], C = sh[nd - 1];
  if (R < 8 || C < 8 || st[nd - 2] != 1 || st[nd - 1] < R) return false;
  const int64_t blocks = src.numel() / (R * C);
  const char* sbase = static_cast<const char*>(src.raw_data());
  char* dbase = static_cast<char*>(dst.raw_data());
  int64_t extent = 1;  // elements from the source's first to its last, plus one
  for (int64_t d = 0; d < nd; ++d) {
    if (st[d] < 0) return false;
    extent += (sh[d] - 1) * st[d];
  }
  const int64_t bytes = static_cast<int64_t>(esize);
  if (sbase < dbase + src.numel() * bytes && dbase < sbase + extent * bytes) return false;  // overlap
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t off = 0, rem = b;  // the block's source offset from its leading-dims index
    for (int64_t d = nd - 3; d >= 0; --d) {
      off += (rem % sh[d]) * st[d];
      rem /= sh[d];
    }
    // The source block, read row-major, is a C x R matrix with rows st[nd - 1] apart.
    transpose_2d(sbase + off * static_cast<int64_t>(esize), C, R, st[nd - 1],
                 dbase + b * R * C * static_cast<int64_t>(esize), C, esize);
  }
  return true;
}

}  // namespace

void copy(const Tensor& src, const Tensor& dst) {
  if (is_float8(src.dtype()) || is_float8(dst.dtype())) [[unlikely]] {
    copy_float8(src, dst);
    return;
  }
  if (!src.is_contiguous() && src.place().is_host() && copy_transposed(src, dst)) return;
  dispatch_all(dst.dtype(), "cast", [&](auto dtag) {
    using D = decltype(dtag);
    dispatch_all(src.dtype(), "cast", [&](auto stag) {
      using S = decltype(stag);
      if constexpr (std::is_same_v<S, D> && !std::is_same_v<S, bool>) {
        // Same type, both contiguous and same size: a plain memcpy.
        if (src.is_contiguous() && dst.is_contiguous() && src.shape() == dst.shape()) {
          std::memcpy(dst.raw_data(), src.raw_data(), src.numel() * sizeof(S));
          return;
        }
      }
      unary_loop<D, S>(src, dst, [](S v) { return convert<D>(v); });
    });
  });
}

void fill(const Tensor& out, const Scalar& value) {
  if (is_float8(out.dtype())) [[unlikely]] {
    dispatch_float8(out.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T v(value.to<double>());
      unary_loop<T, T>(out, out, [v](T) { return v; });
    });
    return;
  }
  dispatch_all(out.dtype(), "full", [&](auto tag) {
    using T = decltype(tag);
    T v;
    if constexpr (is_half_v<T>) v = T(value.to<float>());
    else v = value.to<T>();
    T* p = static_cast<T*>(out.raw_data());
    if (out.is_contiguous()) {
      parallel_for(0, out.numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) p[i] = v;
      });
    } else {
      unary_loop<T, T>(out, out, [v](T) { return v; });
    }
  });
}

}  // namespace oar::kernels
