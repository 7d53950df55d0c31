// Special functions and integer / float bit helpers: lgamma, digamma, polygamma (n), erfinv,
// i0, i0e, i1, i1e, gammainc, gammaincc; bitwise_and/or/xor/not, bitwise_left_shift /
// bitwise_right_shift (is_arithmetic), gcd, lcm, copysign, heaviside, nextafter, frexp, isclose.
// Contract: see kernels.h. Each is one map_elements loop (frexp two) over strided, broadcast
// inputs; the scalar math is plugins/common/special_math.h (shared with the CUDA plug-in) or
// the expressions of oar's CPU kernels (oar/kernels/cpu/special.cc, elementwise.cc), dtypes as
// there: the special functions take the float dtypes (computed in double, rounded once), the
// integer ops int8, uint8, int16, int32, int64 (and bool for the bitwise ones). gammainc and
// gammaincc read their arguments (draining the stream) to reject negative ones, as the CPU
// kernel does.
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>

#include "plugins/common/special_math.h"
#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/map.h"

namespace oar_custom_cpu {
namespace {

template <typename F>
decltype(auto) visit_int_dtype(int32_t dtype, const char* op, F&& f) {
  switch (dtype) {
    case OAR_INT8: return f(int8_t{});
    case OAR_UINT8: return f(uint8_t{});
    case OAR_INT16: return f(int16_t{});
    case OAR_INT32: return f(int32_t{});
    case OAR_INT64: return f(int64_t{});
    default: unsupported("no %s kernel for %s (int8, uint8, int16, int32, int64 have one)", op, dtype_name(dtype));
  }
}

// Integers and floats, no bool.
template <typename F>
decltype(auto) visit_real_dtype(int32_t dtype, const char* op, F&& f) {
  switch (dtype) {
    case OAR_FLOAT32: case OAR_FLOAT64: case OAR_FLOAT16: case OAR_BFLOAT16:
      return visit_float_dtype(dtype, op, std::forward<F>(f));
    default: return visit_int_dtype(dtype, op, std::forward<F>(f));
  }
}

template <typename T> bool is_neg(T a) {
  if constexpr (std::is_unsigned_v<T>) return false;
  else return a < T(0);
}

template <typename T> std::make_unsigned_t<T> uabs(T a) {
  using U = std::make_unsigned_t<T>;
  return is_neg(a) ? U(U(0) - U(a)) : U(a);
}

template <typename T> T int_gcd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  U ua = uabs(a), ub = uabs(b);
  while (ub != 0) {
    const U t = U(ua % ub);
    ua = ub;
    ub = t;
  }
  return static_cast<T>(ua);
}

// out = f(x): out has x's shape and dtype.
template <typename Visit, typename Make>
void unary_map(const OarKernelContext* ctx, Visit visit, Make make) {
  const TensorDesc x = input(ctx, 0, "x");
  const TensorDesc out = output(ctx);
  expect_shape(out, x.shape, "out");
  visit(x.dtype, op_name(ctx), [&](auto tag) {
    using T = decltype(tag);
    map_elements<T, T>(ctx, out, {x}, make(tag));
  });
}

// out = f(x, y) (out of x's dtype, or bool when kBool), x and y of one dtype broadcast to out.
template <bool kBool, typename Visit, typename Make>
void binary_map(const OarKernelContext* ctx, Visit visit, Make make) {
  const TensorDesc x = input(ctx, 0, "x"), y = input(ctx, 1, "y");
  const TensorDesc out = output(ctx);
  expect_dtype(y, x.dtype, "y");
  expect_shape(out, broadcast_shape(x.shape, y.shape), "out");
  visit(x.dtype, op_name(ctx), [&](auto tag) {
    using T = decltype(tag);
    using R = std::conditional_t<kBool, bool, T>;
    map_elements<R, T, T>(ctx, out, {x, y}, make(tag));
  });
}

const auto kFloat = [](int32_t dtype, const char* op, auto&& f) { return visit_float_dtype(dtype, op, f); };
const auto kInt = [](int32_t dtype, const char* op, auto&& f) { return visit_int_dtype(dtype, op, f); };
const auto kReal = [](int32_t dtype, const char* op, auto&& f) { return visit_real_dtype(dtype, op, f); };
const auto kIntBool = [](int32_t dtype, const char* op, auto&& f) {
  if (dtype == OAR_BOOL) return f(bool{});
  return visit_int_dtype(dtype, op, f);
};

template <oar_special::Unary kOp>
OarStatus special_unary(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    unary_map(ctx, kFloat, [](auto tag) {
      using T = decltype(tag);
      return [](T a) { return convert<T>(oar_special::unary(kOp, double(compute_t<T>(a)))); };
    });
  });
}

// As the CPU kernel, negative arguments are rejected (NaN passes): the stream is drained and
// the values read first; oar raises the CPU kernel's ValueError (OAR_STATUS_INVALID_VALUE).
template <typename T>
void check_non_negative(const OarKernelContext* ctx, const TensorDesc& t, const char* arg) {
  const T* p = t.as<const T>();
  int64_t flat = 0;
  bool bad = false;
  double value = 0;
  StridedWalker<1>(t.shape, {t.strides}).run([&](const std::array<int64_t, 1>& off) {
    const double v = double(compute_t<T>(p[off[0]]));
    if (!bad && v < 0) {
      bad = true;
      value = v;
    }
    if (!bad) ++flat;
  });
  if (bad)
    invalid_value("%s: argument '%s' must be >= 0 everywhere, got %g at flat index %lld", op_name(ctx), arg,
                value, static_cast<long long>(flat));
}

template <bool kUpper>
OarStatus incomplete_gamma(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x"), y = input(ctx, 1, "y");
    std::shared_ptr<Stream> s = resolve_stream(ctx->device_id, ctx->stream);
    if (s == nullptr) fail("%p is not a stream of custom_cpu:%d", static_cast<void*>(ctx->stream), ctx->device_id);
    s->synchronize();
    visit_float_dtype(x.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      if (y.dtype != x.dtype) return;  // binary_map reports it
      check_non_negative<T>(ctx, x, "x");
      check_non_negative<T>(ctx, y, "y");
    });
    binary_map<false>(ctx, kFloat, [](auto tag) {
      using T = decltype(tag);
      return [](T a, T b) {
        return convert<T>(oar_special::incomplete_gamma(double(compute_t<T>(a)), double(compute_t<T>(b)), kUpper));
      };
    });
  });
}

// Bitwise and/or/xor (op 0/1/2); on bool the logical ones.
template <int kOp>
OarStatus bitwise(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    binary_map<false>(ctx, kIntBool, [](auto tag) {
      using T = decltype(tag);
      return [](T a, T b) -> T {
        if constexpr (std::is_same_v<T, bool>) return kOp == 0 ? (a && b) : kOp == 1 ? (a || b) : (a != b);
        else return static_cast<T>(kOp == 0 ? (a & b) : kOp == 1 ? (a | b) : (a ^ b));
      };
    });
  });
}

// kind 0: left, 1: arithmetic right, 2: logical right.
OarStatus shift(const OarKernelContext* ctx, int kind) {
  return run_kernel(ctx, [&] {
    binary_map<false>(ctx, kInt, [kind](auto tag) {
      using T = decltype(tag);
      return [kind](T a, T b) -> T {
        using U = std::make_unsigned_t<T>;
        constexpr int64_t bits = sizeof(T) * 8;
        const bool out_of_range = is_neg(b) || int64_t(b) >= bits;
        if (kind == 1) {
          if (out_of_range) return is_neg(a) ? T(-1) : T(0);
          return static_cast<T>(a >> int64_t(b));
        }
        if (out_of_range) return T(0);
        if (kind == 0) return static_cast<T>(U(a) << int64_t(b));
        return static_cast<T>(U(a) >> int64_t(b));
      };
    });
  });
}

}  // namespace

OarKernelFn special_unary_kernel(const char* op) {
  const std::string_view name = op;
  using oar_special::Unary;
  if (name == "lgamma") return special_unary<Unary::Lgamma>;
  if (name == "digamma") return special_unary<Unary::Digamma>;
  if (name == "erfinv") return special_unary<Unary::Erfinv>;
  if (name == "i0") return special_unary<Unary::I0>;
  if (name == "i0e") return special_unary<Unary::I0e>;
  if (name == "i1") return special_unary<Unary::I1>;
  if (name == "i1e") return special_unary<Unary::I1e>;
  return nullptr;
}

OarStatus polygamma_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const int64_t n = int_attr(ctx, "n", 0);
    if (n < 0) fail("polygamma: order n must be >= 0, got %lld", static_cast<long long>(n));
    unary_map(ctx, kFloat, [n](auto tag) {
      using T = decltype(tag);
      return [n](T a) { return convert<T>(oar_special::polygamma(n, double(compute_t<T>(a)))); };
    });
  });
}

OarStatus gammainc_kernel(const OarKernelContext* ctx) { return incomplete_gamma<false>(ctx); }
OarStatus gammaincc_kernel(const OarKernelContext* ctx) { return incomplete_gamma<true>(ctx); }

OarStatus bitwise_and_kernel(const OarKernelContext* ctx) { return bitwise<0>(ctx); }
OarStatus bitwise_or_kernel(const OarKernelContext* ctx) { return bitwise<1>(ctx); }
OarStatus bitwise_xor_kernel(const OarKernelContext* ctx) { return bitwise<2>(ctx); }

OarStatus bitwise_not_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    unary_map(ctx, kIntBool, [](auto tag) {
      using T = decltype(tag);
      return [](T a) -> T {
        if constexpr (std::is_same_v<T, bool>) return !a;
        else return static_cast<T>(~a);
      };
    });
  });
}

OarStatus bitwise_left_shift_kernel(const OarKernelContext* ctx) { return shift(ctx, 0); }
OarStatus bitwise_right_shift_kernel(const OarKernelContext* ctx) {
  bool arithmetic = true;
  const OarStatus st = run_kernel(ctx, [&] { arithmetic = bool_attr(ctx, "is_arithmetic", true); });
  return st != OAR_STATUS_OK ? st : shift(ctx, arithmetic ? 1 : 2);
}

OarStatus gcd_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    binary_map<false>(ctx, kInt, [](auto tag) {
      using T = decltype(tag);
      return [](T a, T b) { return int_gcd(a, b); };
    });
  });
}

OarStatus lcm_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    binary_map<false>(ctx, kInt, [](auto tag) {
      using T = decltype(tag);
      return [](T a, T b) -> T {
        using U = std::make_unsigned_t<T>;
        const T g = int_gcd(a, b);
        if (g == T(0)) return T(0);
        return static_cast<T>(U(U(uabs(a) / U(g)) * uabs(b)));
      };
    });
  });
}

OarStatus copysign_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    binary_map<false>(ctx, kReal, [](auto tag) {
      using T = decltype(tag);
      return [](T a, T b) -> T {
        if constexpr (std::is_integral_v<T>) {
          using U = std::make_unsigned_t<T>;
          const U mag = uabs(a);
          return static_cast<T>(is_neg(b) ? U(U(0) - mag) : mag);
        } else {
          return convert<T>(std::copysign(double(compute_t<T>(a)), double(compute_t<T>(b))));
        }
      };
    });
  });
}

OarStatus heaviside_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    binary_map<false>(ctx, kReal, [](auto tag) {
      using T = decltype(tag);
      return [](T a, T b) -> T {
        const double v = double(compute_t<T>(a));
        if (std::isnan(v)) return a;
        return v < 0 ? convert<T>(0) : v > 0 ? convert<T>(1) : b;
      };
    });
  });
}

OarStatus nextafter_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const auto f32_f64 = [](int32_t dtype, const char* op, auto&& f) {
      if (dtype == OAR_FLOAT32) return f(float{});
      if (dtype == OAR_FLOAT64) return f(double{});
      unsupported("no %s kernel for %s (float32, float64 have one)", op, dtype_name(dtype));
    };
    binary_map<false>(ctx, f32_f64, [](auto tag) {
      using T = decltype(tag);
      return [](T a, T b) { return std::nextafter(a, b); };
    });
  });
}

OarStatus isclose_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const double rtol = float_attr(ctx, "rtol", 1e-5), atol = float_attr(ctx, "atol", 1e-8);
    const bool equal_nan = bool_attr(ctx, "equal_nan", false);
    binary_map<true>(ctx, kReal, [=](auto tag) {
      using T = decltype(tag);
      return [=](T ta, T tb) {
        const double a = double(compute_t<T>(ta)), b = double(compute_t<T>(tb));
        if (std::isnan(a) || std::isnan(b)) return equal_nan && std::isnan(a) && std::isnan(b);
        if (a == b) return true;
        return std::fabs(a - b) <= atol + rtol * std::fabs(b);
      };
    });
  });
}

OarStatus frexp_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc mantissa = output(ctx, 0), exponent = output(ctx, 1);
    expect_shape(mantissa, x.shape, "mantissa");
    expect_shape(exponent, x.shape, "exponent");
    visit_float_dtype(x.dtype, "frexp", [&](auto tag) {
      using T = decltype(tag);
      map_elements<T, T>(ctx, mantissa, {x}, [](T v) {
        int e = 0;
        return convert<T>(std::frexp(double(compute_t<T>(v)), &e));
      });
      map_elements<T, T>(ctx, exponent, {x}, [](T v) {
        int e = 0;
        std::frexp(double(compute_t<T>(v)), &e);
        return convert<T>(double(e));
      });
    });
  });
}

}  // namespace oar_custom_cpu
