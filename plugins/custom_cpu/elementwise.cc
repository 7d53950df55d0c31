// Elementwise kernels: binary and unary maps, scale, pow, full, cast, assign, copy_, where.
// Contract: see kernels.h. All are one generic loop, map_elements(), over the output's shape
// with the inputs broadcast to it (numpy rules: aligned right, size-1 and missing dimensions
// repeat). Integer results wrap on overflow; integer division by zero gives 0 (a device has no
// way to raise mid-kernel, and the ABI has no channel for a late error).
#include <array>
#include <cmath>
#include <type_traits>
#include <utility>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/map.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {
namespace {

// ---- binary ----

template <Binary op> inline constexpr bool is_predicate = op >= Binary::Equal;

template <Binary op, typename T>
constexpr bool binary_supports() {
  using enum Binary;
  if constexpr (is_half_v<T>) return binary_supports<op, float>();
  else if constexpr (std::is_same_v<T, bool>)
    return is_predicate<op> || op == Add || op == Multiply || op == Maximum || op == Minimum || op == FMax ||
           op == FMin;
  else if constexpr (op == Atan2) return is_float_v<T>;
  return true;
}

template <typename T>
T int_pow(T a, T b) {
  if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
  T r = 1;
  for (; b != 0; b >>= 1) {
    if (b & 1) r = wrap_mul(r, a);
    a = wrap_mul(a, a);
  }
  return r;
}

template <Binary op, typename T>
auto apply_binary(T a, T b) {
  using enum Binary;
  if constexpr (op == Equal) return a == b;
  else if constexpr (op == NotEqual) return a != b;
  else if constexpr (op == GreaterThan) return a > b;
  else if constexpr (op == GreaterEqual) return a >= b;
  else if constexpr (op == LessThan) return a < b;
  else if constexpr (op == LessEqual) return a <= b;
  else if constexpr (op == LogicalAnd) return a != T(0) && b != T(0);
  else if constexpr (op == LogicalOr) return a != T(0) || b != T(0);
  else if constexpr (op == LogicalXor) return (a != T(0)) != (b != T(0));
  else if constexpr (std::is_same_v<T, bool>) {
    // Arithmetic on bools stays bool: + and max are "or", * and min are "and".
    if constexpr (op == Add || op == Maximum || op == FMax) return bool(a || b);
    else return bool(a && b);
  } else if constexpr (is_int_v<T>) {
    if constexpr (op == Add) return wrap_add(a, b);
    else if constexpr (op == Subtract) return wrap_sub(a, b);
    else if constexpr (op == Multiply) return wrap_mul(a, b);
    else if constexpr (op == Maximum) return a > b ? a : b;
    else if constexpr (op == Minimum || op == FMin) return a < b ? a : b;
    else if constexpr (op == FMax) return a > b ? a : b;
    else if constexpr (op == Pow) return int_pow(a, b);
    else if constexpr (op == Divide) return b == 0 ? T(0) : b == -1 ? wrap_neg(a) : T(a / b);
    else if constexpr (op == FloorDivide) {
      if (b == 0) return T(0);
      if (b == -1) return wrap_neg(a);
      const T q = a / b;
      return (a % b != 0 && ((a < 0) != (b < 0))) ? T(q - 1) : q;
    } else {
      static_assert(op == Remainder);
      if (b == 0 || b == -1) return T(0);
      const T r = a % b;
      return (r != 0 && ((r < 0) != (b < 0))) ? T(r + b) : r;  // the divisor's sign
    }
  } else {
    if constexpr (op == Add) return T(a + b);
    else if constexpr (op == Subtract) return T(a - b);
    else if constexpr (op == Multiply) return T(a * b);
    else if constexpr (op == Divide) return T(a / b);
    else if constexpr (op == Pow) return T(std::pow(a, b));
    else if constexpr (op == FloorDivide) return T(std::floor(a / b));
    else if constexpr (op == Maximum) return (a != a || b != b) ? T(a + b) : (a > b ? a : b);  // NaN wins
    else if constexpr (op == Minimum) return (a != a || b != b) ? T(a + b) : (a < b ? a : b);
    else if constexpr (op == FMax) return T(std::fmax(a, b));
    else if constexpr (op == FMin) return T(std::fmin(a, b));
    else if constexpr (op == Atan2) return T(std::atan2(a, b));
    else {
      static_assert(op == Remainder);
      const T r = std::fmod(a, b);
      return (r != 0 && ((r < 0) != (b < 0))) ? T(r + b) : r;  // the divisor's sign
    }
  }
}

template <Binary op>
OarStatus binary_impl(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x"), y = input(ctx, 1, "y");
    const TensorDesc out = output(ctx);
    expect_dtype(y, x.dtype, "y");
    expect_shape(out, broadcast_shape(x.shape, y.shape), "out");
    visit_math_dtype(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!binary_supports<op, T>()) {
        fail("no %s kernel for %s", op_name(ctx), dtype_name(x.dtype));
      } else {
        using C = compute_t<T>;  // a half type computes in float and rounds once
        using RC = decltype(apply_binary<op>(C{}, C{}));
        using R = std::conditional_t<std::is_same_v<RC, bool>, bool, T>;
        map_elements<R, T, T>(ctx, out, {x, y}, [](T a, T b) {
          return convert<R>(apply_binary<op>(static_cast<C>(a), static_cast<C>(b)));
        });
      }
    });
  });
}

// ---- unary ----

template <Unary op, typename T>
constexpr bool unary_supports() {
  using enum Unary;
  if constexpr (is_half_v<T>) return unary_supports<op, float>();
  else if constexpr (op == LogicalNot || op == IsNan || op == IsInf || op == IsFinite) return true;
  else if constexpr (op == Relu || op == Abs || op == Neg || op == Square || op == Sign || op == Floor || op == Ceil ||
                     op == Trunc)
    return !std::is_same_v<T, bool>;
  else return is_float_v<T>;
}

template <Unary op, typename T>
auto apply_unary(T a) {
  using enum Unary;
  if constexpr (op == LogicalNot) return a == T(0);
  else if constexpr (op == IsNan || op == IsInf || op == IsFinite) {
    if constexpr (!is_float_v<T>) return op == IsFinite;  // integers and bools are finite numbers
    else if constexpr (op == IsNan) return bool(std::isnan(a));
    else if constexpr (op == IsInf) return bool(std::isinf(a));
    else return bool(std::isfinite(a));
  } else if constexpr (op == Relu) return a > T(0) ? a : T(0);
  else if constexpr (op == Sign) return T((a > T(0)) - (a < T(0)));
  else if constexpr (is_int_v<T>) {
    if constexpr (op == Abs) return a < 0 ? wrap_neg(a) : a;
    else if constexpr (op == Neg) return wrap_neg(a);
    else if constexpr (op == Square) return wrap_mul(a, a);
    else return a;  // floor, ceil and trunc of an integer
  } else {
    if constexpr (op == Abs) return T(std::fabs(a));
    else if constexpr (op == Neg) return T(-a);
    else if constexpr (op == Square) return T(a * a);
    else if constexpr (op == Floor) return T(std::floor(a));
    else if constexpr (op == Ceil) return T(std::ceil(a));
    else if constexpr (op == Exp) return T(std::exp(a));
    else if constexpr (op == Log) return T(std::log(a));
    else if constexpr (op == Sqrt) return T(std::sqrt(a));
    else if constexpr (op == Rsqrt) return T(T(1) / std::sqrt(a));
    else if constexpr (op == Tanh) return T(std::tanh(a));
    else if constexpr (op == Sigmoid) return T(T(1) / (T(1) + std::exp(-a)));
    else if constexpr (op == Sin) return T(std::sin(a));
    else if constexpr (op == Cos) return T(std::cos(a));
    else if constexpr (op == Expm1) return T(std::expm1(a));
    else if constexpr (op == Log1p) return T(std::log1p(a));
    else if constexpr (op == Log2) return T(std::log2(a));
    else if constexpr (op == Log10) return T(std::log10(a));
    else if constexpr (op == Tan) return T(std::tan(a));
    else if constexpr (op == Asin) return T(std::asin(a));
    else if constexpr (op == Acos) return T(std::acos(a));
    else if constexpr (op == Atan) return T(std::atan(a));
    else if constexpr (op == Sinh) return T(std::sinh(a));
    else if constexpr (op == Cosh) return T(std::cosh(a));
    else if constexpr (op == Asinh) return T(std::asinh(a));
    else if constexpr (op == Acosh) return T(std::acosh(a));
    else if constexpr (op == Atanh) return T(std::atanh(a));
    else if constexpr (op == Erf) return T(std::erf(a));
    else if constexpr (op == Trunc) return T(std::trunc(a));
    else if constexpr (op == Silu) return T(a / (T(1) + std::exp(-a)));
    else if constexpr (op == Relu6) return std::min(std::max(a, T(0)), T(6));
    else if constexpr (op == Hardswish) return T(a * std::min(std::max(a + T(3), T(0)), T(6)) / T(6));
    else {
      static_assert(op == Reciprocal);
      return T(T(1) / a);
    }
  }
}

template <Unary op>
OarStatus unary_impl(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    expect_shape(out, x.shape, "out");
    visit_math_dtype(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!unary_supports<op, T>()) {
        fail("no %s kernel for %s", op_name(ctx), dtype_name(x.dtype));
      } else {
        using C = compute_t<T>;  // a half type computes in float and rounds once
        using RC = decltype(apply_unary<op>(C{}));
        using R = std::conditional_t<std::is_same_v<RC, bool>, bool, T>;
        map_elements<R, T>(ctx, out, {x}, [](T a) { return convert<R>(apply_unary<op>(static_cast<C>(a))); });
      }
    });
  });
}

template <typename Fn, size_t... I>
constexpr auto kernel_table(std::index_sequence<I...>, Fn) {
  return std::array<OarKernelFn, sizeof...(I)>{Fn::template get<I>()...};
}

struct BinaryTable { template <size_t I> static constexpr OarKernelFn get() { return &binary_impl<static_cast<Binary>(I)>; } };
struct UnaryTable { template <size_t I> static constexpr OarKernelFn get() { return &unary_impl<static_cast<Unary>(I)>; } };

// x of a numeric type, out alike: f(a) computed as the type's own arithmetic (float for the
// half types, rounded once).
template <typename Body>
void numeric_map(const OarKernelContext* ctx, const TensorDesc& x, const TensorDesc& out, Body body) {
  expect_shape(out, x.shape, "out");
  visit_math_dtype(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      fail("no %s kernel for bool", op_name(ctx));
    } else if constexpr (is_half_v<T>) {
      const auto f = body(float{});
      map_elements<T, T>(ctx, out, {x}, [f](T a) { return T(f(static_cast<float>(a))); });
    } else {
      map_elements<T, T>(ctx, out, {x}, body(T{}));
    }
  });
}

}  // namespace

OarKernelFn binary_kernel(Binary op) {
  static constexpr auto table = kernel_table(std::make_index_sequence<size_t(Binary::kCount)>{}, BinaryTable{});
  return table[static_cast<size_t>(op)];
}

OarKernelFn unary_kernel(Unary op) {
  static constexpr auto table = kernel_table(std::make_index_sequence<size_t(Unary::kCount)>{}, UnaryTable{});
  return table[static_cast<size_t>(op)];
}

OarStatus scale_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    const Scalar scale = scalar_attr(ctx, "scale", Scalar{true, 1.0, 0});
    const Scalar bias = scalar_attr(ctx, "bias", Scalar{true, 0.0, 0});
    const bool after = bool_attr(ctx, "bias_after_scale", true);
    numeric_map(ctx, x, out, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (is_int_v<T>) {
        // Integers go through double, so that scale=0.5 halves them.
        const double s = scale.to_double(), b = bias.to_double();
        return [s, b, after](T a) { return convert<T>(after ? double(a) * s + b : (double(a) + b) * s); };
      } else {
        const T s = scale.to<T>(), b = bias.to<T>();
        return [s, b, after](T a) { return after ? T(a * s + b) : T((a + b) * s); };
      }
    });
  });
}

OarStatus pow_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    const Scalar y = scalar_attr(ctx, "y", Scalar{true, 1.0, 0});
    numeric_map(ctx, x, out, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (is_int_v<T>) {
        const double e = y.to_double();
        return [e](T a) { return convert<T>(std::round(std::pow(double(a), e))); };
      } else {
        const T e = y.to<T>();
        return [e](T a) { return T(std::pow(a, e)); };
      }
    });
  });
}

OarStatus full_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc out = output(ctx);
    const Scalar value = scalar_attr(ctx, "fill_value", Scalar{});
    visit_storage_dtype(out.dtype, [&](auto tag) {
      using T = decltype(tag);
      const T v = value.to<T>();
      map_elements<T>(ctx, out, {}, [v] { return v; });
    });
  });
}

// out = x converted to out's dtype, x broadcast to out's shape: cast, assign and copy_.
void convert_into(const OarKernelContext* ctx, const TensorDesc& x, const TensorDesc& out) {
  visit_storage_dtype(x.dtype, [&](auto from_tag) {
    using From = decltype(from_tag);
    visit_storage_dtype(out.dtype, [&](auto to_tag) {
      using To = decltype(to_tag);
      map_elements<To, From>(ctx, out, {x}, [](From a) { return convert<To>(a); });
    });
  });
}

OarStatus cast_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    expect_shape(out, x.shape, "out");
    convert_into(ctx, x, out);
  });
}

OarStatus assign_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    expect_shape(out, x.shape, "out");
    expect_dtype(out, x.dtype, "out");
    convert_into(ctx, x, out);
  });
}

OarStatus copy_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc src = input(ctx, 0, "src");
    const TensorDesc dst = output(ctx);  // any view: map_elements writes through its strides
    convert_into(ctx, src, dst);
  });
}

OarStatus where_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc c = input(ctx, 0, "condition"), x = input(ctx, 1, "x"), y = input(ctx, 2, "y");
    const TensorDesc out = output(ctx);
    expect_dtype(y, x.dtype, "y");
    expect_shape(out, broadcast_shape(broadcast_shape(c.shape, x.shape), y.shape), "out");
    visit_dtype(c.dtype, [&](auto c_tag) {
      using C = decltype(c_tag);
      visit_storage_dtype(x.dtype, [&](auto tag) {
        using T = decltype(tag);
        map_elements<T, C, T, T>(ctx, out, {c, x, y}, [](C k, T a, T b) { return k != C(0) ? a : b; });
      });
    });
  });
}

}  // namespace oar_custom_cpu

namespace oar_custom_cpu {

// concat: inputs x_0..x_{n-1} (x_count of them), attr axis; each input is copied into the view
// of the output it covers along the axis.
OarStatus concat_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc out = output(ctx);
    expect_contiguous(out, "out");
    const int nd = out.ndim();
    int64_t axis = int_attr(ctx, "axis", 0);
    if (axis < -nd || axis >= nd) fail("axis %lld is out of range for %d dimensions", static_cast<long long>(axis), nd);
    if (axis < 0) axis += nd;
    const std::vector<int64_t> out_strides = contiguous_strides(out.shape);
    int64_t at = 0;
    for (int i = 0; i < ctx->num_inputs; ++i) {
      const TensorDesc x = input(ctx, i, "x");
      if (x.ndim() != nd) fail("input %d has %d dimensions, out has %d", i, x.ndim(), nd);
      TensorDesc part = out;
      part.shape = x.shape;
      part.strides = out_strides;
      part.numel = x.numel;
      part.data = out.data + at * out_strides[axis] * static_cast<int64_t>(element_size(out.dtype));
      if (x.numel > 0) convert_into(ctx, x, part);
      at += x.shape[axis];
    }
    if (at != out.shape[axis]) fail("inputs cover %lld of the %lld entries along axis %lld",
                                    static_cast<long long>(at), static_cast<long long>(out.shape[axis]),
                                    static_cast<long long>(axis));
  });
}

}  // namespace oar_custom_cpu

namespace oar_custom_cpu {

// masked_fill: x, mask (bool); value. out = where(mask, value, x), broadcast.
OarStatus masked_fill_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x"), mask = input(ctx, 1, "mask");
    const TensorDesc out = output(ctx);
    expect_dtype(mask, OAR_BOOL, "mask");
    expect_dtype(out, x.dtype, "out");
    expect_shape(out, broadcast_shape(x.shape, mask.shape), "out");
    const Scalar value = scalar_attr(ctx, "value", Scalar{});
    visit_storage_dtype(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      const T v = value.to<T>();
      map_elements<T, T, bool>(ctx, out, {x, mask}, [v](T a, bool m) { return m ? v : a; });
    });
  });
}

// round: x; decimals. Halves to even (as Paddle: 2.5 -> 2); with decimals, x scaled by
// 10^|decimals| first and back after (1234.5 at -1 -> 1230). Integers stay as they are.
OarStatus round_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    expect_shape(out, x.shape, "out");
    const int64_t decimals = int_attr(ctx, "decimals", 0);
    numeric_map(ctx, x, out, [&](auto tag) {
      using T = decltype(tag);
      return [decimals](T a) -> T {
        if constexpr (!is_float_v<T>) {
          return a;
        } else {
          if (decimals == 0) return std::nearbyint(a);
          const T s = T(std::pow(10.0, static_cast<double>(decimals > 0 ? decimals : -decimals)));
          return decimals > 0 ? T(std::nearbyint(a * s) / s) : T(std::nearbyint(a / s) * s);
        }
      };
    });
  });
}

}  // namespace oar_custom_cpu
