#include "oar/kernels/cpu/special.h"

#include <math.h>

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/loops.h"

namespace oar::kernels {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Bernoulli numbers B_2 .. B_20.
constexpr double kBernoulli[] = {1.0 / 6,         -1.0 / 30,   1.0 / 42,        -1.0 / 30,
                                 5.0 / 66,        -691.0 / 2730, 7.0 / 6,       -3617.0 / 510,
                                 43867.0 / 798,   -174611.0 / 330};

double log_gamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}

// psi(x): reflection for x < 0, the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then
// the asymptotic series ln x - 1/(2x) - sum B_2k / (2k x^2k).
double digamma(double x) {
  if (std::isnan(x)) return x;
  if (x == kInf) return kInf;
  if (x == -kInf) return kNaN;
  if (x <= 0 && x == std::floor(x)) return x == 0 ? (std::signbit(x) ? kInf : -kInf) : kNaN;
  double result = 0;
  if (x < 0) {
    // psi(1 - x) - psi(x) = pi / tan(pi x); reduce pi x mod pi for accuracy.
    const double r = x - std::floor(x);
    result = -kPi / std::tan(kPi * r);
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double z = 1 / (x * x);
  double series = 0, zk = z;
  for (int k = 1; k <= 8; ++k) {
    series += kBernoulli[k - 1] / (2 * k) * zk;
    zk *= z;
  }
  return result + std::log(x) - 0.5 / x - series;
}

// psi^(n)(x) for orders whose n! overflows a double (n > 170), in constant time per element:
// psi^(n)(x) = (-1)^(n+1) n! sum_k (x + k)^-(n+1). For x < 0 the term of the nearest pole alone
// (distance <= 1/2) exceeds the double range, so the result is an infinity of that term's sign.
// For x > 0 the sum is taken relative to its first term in log space; the ratios
// (x / (x + k))^(n+1) fall fast for such n, and the integral bounds the remainder.
double polygamma_large_order(int64_t n, double x) {
  const double s = static_cast<double>(n) + 1;  // the Hurwitz zeta's exponent
  const double order_sign = n % 2 == 1 ? 1.0 : -1.0;
  if (x < 0) {
    const double nearest = x - std::round(x);  // x + k for the k nearest the pole
    return order_sign * ((n % 2 == 0 && nearest < 0) ? -kInf : kInf);
  }
  double factor = 0, term = 1;
  int k = 0;
  for (; k < 64; ++k) {
    term = std::exp(-s * std::log1p(k / x));  // (x / (x + k))^s
    factor += term;
    if (term < 1e-17 * factor) break;
  }
  if (k == 64) factor += term * (x + k) / (s - 1);  // the integral of the remaining terms
  return order_sign * std::exp(std::lgamma(s) - s * std::log(x) + std::log(factor));
}

// psi^(n)(x) for n >= 1: shift x up with psi^(n)(x) = psi^(n)(x + 1) + (-1)^(n+1) n! / x^(n+1),
// then the asymptotic series
//   (-1)^(n+1) [ (n-1)!/x^n + n!/(2 x^(n+1)) + sum_k B_2k (2k+n-1)! / ((2k)! x^(2k+n)) ].
double polygamma_n(int64_t n, double x) {
  if (n == 0) return digamma(x);
  if (std::isnan(x)) return x;
  if (x == kInf) return 0.0;
  if (x <= 0 && x == std::floor(x)) return n % 2 == 1 ? kInf : kNaN;
  if (n > 170) return polygamma_large_order(n, x);  // the loops below take O(n) and O(n^2) steps
  if (x < 0) {
    // Reflection, the n-th derivative of psi(1 - x) - psi(x) = pi cot(pi x):
    //   psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) cot^(n)(pi x),
    // with cot^(n)(z) = P_n(cot z), P_0(c) = c, P_{k+1}(c) = -(1 + c^2) P_k'(c).
    std::vector<double> p(static_cast<size_t>(n) + 2, 0.0), q(p.size(), 0.0);
    p[1] = 1;
    for (int64_t k = 0; k < n; ++k) {
      std::fill(q.begin(), q.end(), 0.0);
      for (size_t j = 1; j < p.size(); ++j) {  // d/dc of p_j c^j = j p_j c^(j-1), times -(1 + c^2)
        const double d = -static_cast<double>(j) * p[j];
        q[j - 1] += d;
        if (j + 1 < q.size()) q[j + 1] += d;
      }
      p.swap(q);
    }
    const double c = 1 / std::tan(kPi * (x - std::floor(x)));
    double poly = 0;
    for (size_t j = p.size(); j-- > 0;) poly = poly * c + p[j];
    const double refl = n % 2 == 0 ? 1.0 : -1.0;
    return refl * polygamma_n(n, 1 - x) - std::pow(kPi, static_cast<double>(n + 1)) * poly;
  }
  const double sign = n % 2 == 1 ? 1.0 : -1.0;
  const double nf = std::tgamma(static_cast<double>(n) + 1);  // n!
  double acc = 0;
  const double target = 20.0 + static_cast<double>(n);
  while (x < target) {
    acc += 1.0 / std::pow(x, static_cast<double>(n + 1));
    x += 1;
  }
  acc *= nf;
  double tail = nf / static_cast<double>(n) / std::pow(x, static_cast<double>(n)) +
                nf / (2 * std::pow(x, static_cast<double>(n + 1)));
  // coef_k = (2k+n-1)! / (2k)!, built incrementally: coef_1 = (n+1)!/2! = n! (n+1) / 2.
  double coef = nf * static_cast<double>(n + 1) / 2.0;
  const double inv_x2 = 1 / (x * x);
  double xp = 1 / std::pow(x, static_cast<double>(n + 2));
  for (int k = 1; k <= 10; ++k) {
    const double term = kBernoulli[k - 1] * coef * xp;
    tail += term;
    if (std::fabs(term) < 1e-17 * std::fabs(tail)) break;
    // coef_{k+1} = coef_k * (2k+n)(2k+n+1) / ((2k+1)(2k+2)).
    coef *= static_cast<double>(2 * k + n) * static_cast<double>(2 * k + n + 1) /
            (static_cast<double>(2 * k + 1) * static_cast<double>(2 * k + 2));
    xp *= inv_x2;
  }
  return sign * (acc + tail);
}

// Inverse error function: Giles' single-precision polynomial approximation as the starting
// point, then Newton steps on erf (erfc near +-1, where 1 - |y| is exact).
double erfinv(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return kNaN;
  if (y == 1) return kInf;
  if (y == -1) return -kInf;
  if (y == 0) return y;
  const double a = std::fabs(y);
  double w = -std::log((1 - a) * (1 + a)), p;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double x = p * a;
  const double two_over_sqrt_pi = 1.1283791670955126;
  for (int it = 0; it < 3; ++it) {
    const double d = two_over_sqrt_pi * std::exp(-x * x);
    if (d == 0) break;
    const double f = a < 0.5 ? std::erf(x) - a : (1 - a) - std::erfc(x);
    x -= f / d;
  }
  return y < 0 ? -x : x;
}

// e^{-x} I_nu(x) for large x: 1/sqrt(2 pi x) * sum_k (-1)^k prod_{j<=k} (mu - (2j-1)^2) / (k! (8x)^k).
double bessel_i_scaled_asymptotic(double nu, double x) {
  const double mu = 4 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k < 30; ++k) {
    const double odd = 2.0 * k - 1;
    term *= -(mu - odd * odd) / (k * 8.0 * x);
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
  }
  return sum / std::sqrt(2 * kPi * x);
}

// e^{-|x|} I_nu(|x|) (nu = 0 or 1), as |x| grows past where I_nu overflows.
double bessel_i_scaled(int nu, double ax) {
  if (ax > 700) return bessel_i_scaled_asymptotic(nu, ax);
  return std::exp(-ax) * std::cyl_bessel_i(static_cast<double>(nu), ax);
}

double bessel_i(int nu, double x) {
  if (std::isnan(x)) return x;
  const double ax = std::fabs(x);
  if (std::isinf(ax)) return nu == 1 && x < 0 ? -kInf : kInf;
  const double v = ax > 700 ? kInf : std::cyl_bessel_i(static_cast<double>(nu), ax);
  return nu == 1 && x < 0 ? -v : v;
}

double bessel_ie(int nu, double x) {
  if (std::isnan(x)) return x;
  const double ax = std::fabs(x);
  if (std::isinf(ax)) return nu == 1 && x < 0 ? -0.0 : 0.0;
  const double v = bessel_i_scaled(nu, ax);
  return nu == 1 && x < 0 ? -v : v;
}

// Regularised lower (upper = false) or upper incomplete gamma function of (a, x).
double incomplete_gamma(double a, double x, bool upper) {
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0) return kNaN;
  if (a == 0) {
    if (x == 0) return kNaN;
    return upper ? 0.0 : 1.0;
  }
  if (x == 0) return upper ? 1.0 : 0.0;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : (upper ? 1.0 : 0.0);
  if (std::isinf(x)) return upper ? 0.0 : 1.0;
  const double log_pref = -x + a * std::log(x) - log_gamma(a);
  constexpr double eps = 1e-16;
  if (x < a + 1) {  // series for P
    double term = 1 / a, sum = term;
    for (int n = 1; n < 100000; ++n) {
      term *= x / (a + n);
      sum += term;
      if (std::fabs(term) < std::fabs(sum) * eps) break;
    }
    const double p = sum * std::exp(log_pref);
    return upper ? 1 - p : p;
  }
  // Continued fraction for Q (modified Lentz).
  constexpr double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < eps) break;
  }
  const double q = std::exp(log_pref) * h;
  return upper ? q : 1 - q;
}

double special_scalar(SpecialUnary op, double x) {
  switch (op) {
    case SpecialUnary::Lgamma: return log_gamma(x);
    case SpecialUnary::Digamma: return digamma(x);
    case SpecialUnary::Erfinv: return erfinv(x);
    case SpecialUnary::I0: return bessel_i(0, x);
    case SpecialUnary::I0e: return bessel_ie(0, x);
    case SpecialUnary::I1: return bessel_i(1, x);
    case SpecialUnary::I1e: return bessel_ie(1, x);
    case SpecialUnary::Acosh: return std::acosh(x);
    case SpecialUnary::Asinh: return std::asinh(x);
    case SpecialUnary::Atanh: return std::atanh(x);
  }
  return kNaN;
}

const char* special_unary_name(SpecialUnary op) {
  static const char* names[] = {"lgamma", "digamma", "erfinv", "i0",    "i0e",
                                "i1",     "i1e",     "acosh",  "asinh", "atanh"};
  return names[static_cast<int>(op)];
}

const char* special_binary_name(SpecialBinary op) {
  static const char* names[] = {"gammainc", "gammaincc", "nextafter", "copysign", "heaviside"};
  return names[static_cast<int>(op)];
}

template <typename T>
T int_gcd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  U ua = a < 0 ? U(0) - U(a) : U(a), ub = b < 0 ? U(0) - U(b) : U(b);
  while (ub != 0) {
    const U t = ua % ub;
    ua = ub;
    ub = t;
  }
  return static_cast<T>(ua);
}

void split_axis(const Shape& sh, int64_t axis, int64_t& outer, int64_t& R, int64_t& inner) {
  outer = R = inner = 1;
  const int64_t rank = static_cast<int64_t>(sh.size());
  if (rank == 0) return;
  const int64_t a = axis < 0 ? axis + rank : axis;
  for (int64_t d = 0; d < rank; ++d) (d < a ? outer : d == a ? R : inner) *= sh[d];
}

Tensor dense_copy(const Tensor& x);

// As Paddle: the incomplete gamma functions reject negative arguments (NaN passes through).
template <typename T>
void check_non_negative(const Tensor& t, const char* op, const char* arg) {
  const Tensor c = dense_copy(t);
  const T* p = static_cast<const T*>(c.raw_data());
  for (int64_t i = 0; i < c.numel(); ++i)
    OAR_ENFORCE_ARG(!(double(p[i]) < 0), op, ": argument '", arg, "' must be >= 0 everywhere, got ",
                    double(p[i]), " at flat index ", i);
}

Tensor dense_copy(const Tensor& x) {
  if (x.is_contiguous()) return x;
  Tensor t = Tensor::make(x.shape(), x.dtype());
  copy(x, t);
  return t;
}

}  // namespace

void special_unary(SpecialUnary op, const Tensor& x, const Tensor& out) {
  dispatch_floating(x.dtype(), special_unary_name(op), [&](auto tag) {
    using T = decltype(tag);
    unary_loop<T, T>(x, out, [op](T v) { return T(special_scalar(op, double(v))); });
  });
}

void polygamma(const Tensor& x, int64_t n, const Tensor& out) {
  dispatch_floating(x.dtype(), "polygamma", [&](auto tag) {
    using T = decltype(tag);
    unary_loop<T, T>(x, out, [n](T v) { return T(polygamma_n(n, double(v))); });
  });
}

void special_binary(SpecialBinary op, const Tensor& x, const Tensor& y, const Tensor& out) {
  if (op == SpecialBinary::Heaviside) {
    return dispatch_real(x.dtype(), "heaviside", [&](auto tag) {
      using T = decltype(tag);
      binary_loop<T, T, T>(x, y, out, [](T a, T b) -> T {
        const double v = double(a);
        if (std::isnan(v)) return a;
        return v < 0 ? T(0) : v > 0 ? T(1) : b;
      });
    });
  }
  dispatch_floating(x.dtype(), special_binary_name(op), [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
      case SpecialBinary::GammaInc:
      case SpecialBinary::GammaIncc: {
        const bool upper = op == SpecialBinary::GammaIncc;
        check_non_negative<T>(x, special_binary_name(op), "x");
        check_non_negative<T>(y, special_binary_name(op), "y");
        return binary_loop<T, T, T>(x, y, out, [upper](T a, T b) {
          return T(incomplete_gamma(double(a), double(b), upper));
        });
      }
      case SpecialBinary::NextAfter:
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          return binary_loop<T, T, T>(x, y, out, [](T a, T b) { return std::nextafter(a, b); });
        } else {
          unsupported_dtype("nextafter", x.dtype(), "float32, float64");
        }
      case SpecialBinary::CopySign:
        return binary_loop<T, T, T>(x, y, out, [](T a, T b) {
          return T(std::copysign(double(a), double(b)));
        });
      case SpecialBinary::Heaviside:
        break;  // below: integers too
    }
  });
}

void copysign(const Tensor& x, const Tensor& y, const Tensor& out) {
  dispatch_real(x.dtype(), "copysign", [&](auto tag) {
    using T = decltype(tag);
    binary_loop<T, T, T>(x, y, out, [](T a, T b) -> T {
      if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        const U mag = a < 0 ? U(0) - U(a) : U(a);
        return static_cast<T>(b < 0 ? U(0) - mag : mag);
      } else {
        return T(std::copysign(double(a), double(b)));
      }
    });
  });
}

void int_binary(IntBinary op, const Tensor& x, const Tensor& y, const Tensor& out) {
  static const char* names[] = {"gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift",
                                "bitwise_right_shift"};
  dispatch_integral(x.dtype(), names[static_cast<int>(op)], [&](auto tag) {
    using T = decltype(tag);
    using U = std::make_unsigned_t<T>;
    constexpr int64_t bits = sizeof(T) * 8;
    switch (op) {
      case IntBinary::Gcd:
        return binary_loop<T, T, T>(x, y, out, [](T a, T b) { return int_gcd(a, b); });
      case IntBinary::Lcm:
        return binary_loop<T, T, T>(x, y, out, [](T a, T b) -> T {
          const T g = int_gcd(a, b);
          if (g == 0) return T(0);
          using UU = std::make_unsigned_t<T>;
          const UU ua = a < 0 ? UU(0) - UU(a) : UU(a), ub = b < 0 ? UU(0) - UU(b) : UU(b);
          return static_cast<T>(UU(ua / UU(g)) * ub);
        });
      case IntBinary::ShiftLeft:
        return binary_loop<T, T, T>(x, y, out, [](T a, T b) -> T {
          if (b < 0 || int64_t(b) >= bits) return T(0);
          return static_cast<T>(U(a) << int64_t(b));
        });
      case IntBinary::ShiftRightArith:
        return binary_loop<T, T, T>(x, y, out, [](T a, T b) -> T {
          if (b < 0 || int64_t(b) >= bits) return a < 0 ? T(-1) : T(0);
          return static_cast<T>(a >> int64_t(b));
        });
      case IntBinary::ShiftRightLogical:
        return binary_loop<T, T, T>(x, y, out, [](T a, T b) -> T {
          if (b < 0 || int64_t(b) >= bits) return T(0);
          return static_cast<T>(U(a) >> int64_t(b));
        });
    }
  });
}

void frexp(const Tensor& x, const Tensor& mantissa, const Tensor& exponent) {
  dispatch_floating(x.dtype(), "frexp", [&](auto tag) {
    using T = decltype(tag);
    unary_loop<T, T>(x, mantissa, [](T v) {
      int e = 0;
      return T(std::frexp(double(v), &e));
    });
    unary_loop<T, T>(x, exponent, [](T v) {
      int e = 0;
      std::frexp(double(v), &e);
      return T(double(e));
    });
  });
}

void cum_extreme(const Tensor& x, int64_t axis, bool is_max, const Tensor& values,
                 const Tensor& indices) {
  if (values.numel() == 0) return;
  int64_t outer, R, inner;
  split_axis(x.shape(), axis, outer, R, inner);
  const Tensor src = dense_copy(x);
  Tensor vdst = values.is_contiguous() ? values : Tensor::make(values.shape(), values.dtype());
  Tensor idst = indices.is_contiguous() ? indices : Tensor::make(indices.shape(), indices.dtype());
  const bool idx64 = indices.dtype() == DType::Int64;
  dispatch_real(x.dtype(), is_max ? "cummax" : "cummin", [&](auto tag) {
    using T = decltype(tag);
    const T* p = static_cast<const T*>(src.raw_data());
    T* v = static_cast<T*>(vdst.raw_data());
    int64_t* i64 = idx64 ? static_cast<int64_t*>(idst.raw_data()) : nullptr;
    int32_t* i32 = idx64 ? nullptr : static_cast<int32_t*>(idst.raw_data());
    parallel_for(0, outer * inner, std::max<int64_t>(1, 4096 / std::max<int64_t>(R, 1)),
                 [&](int64_t b, int64_t e) {
      for (int64_t q = b; q < e; ++q) {
        const int64_t o = q / inner, in = q % inner;
        const int64_t base = o * R * inner + in;
        T best = p[base];
        int64_t bi = 0;
        for (int64_t r = 0; r < R; ++r) {
          const int64_t off = base + r * inner;
          const T cur = p[off];
          bool take = r == 0;
          if constexpr (std::is_floating_point_v<T>) {
            if (std::isnan(cur)) take = true;
            else if (!std::isnan(best)) take = take || (is_max ? cur >= best : cur <= best);
          } else if constexpr (std::is_integral_v<T>) {
            take = take || (is_max ? cur >= best : cur <= best);
          } else {  // float16 / bfloat16
            const float c = float(cur), bb = float(best);
            if (std::isnan(c)) take = true;
            else if (!std::isnan(bb)) take = take || (is_max ? c >= bb : c <= bb);
          }
          if (take) {
            best = cur;
            bi = r;
          }
          v[off] = best;
          if (idx64) i64[off] = bi;
          else i32[off] = static_cast<int32_t>(bi);
        }
      }
    });
  });
  if (!vdst.is_same(values)) copy(vdst, values);
  if (!idst.is_same(indices)) copy(idst, indices);
}

void logcumsumexp(const Tensor& x, int64_t axis, bool reverse, const Tensor& out) {
  if (out.numel() == 0) return;
  int64_t outer, R, inner;
  split_axis(x.shape(), axis, outer, R, inner);
  const Tensor src = dense_copy(x);
  Tensor dst = out.is_contiguous() ? out : Tensor::make(out.shape(), out.dtype());
  dispatch_floating(x.dtype(), "logcumsumexp", [&](auto tag) {
    using T = decltype(tag);
    const T* p = static_cast<const T*>(src.raw_data());
    T* o = static_cast<T*>(dst.raw_data());
    parallel_for(0, outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(R * inner, 1)),
                 [&](int64_t b, int64_t e) {
      std::vector<double> acc(inner);
      for (int64_t q = b; q < e; ++q) {
        std::fill(acc.begin(), acc.end(), -kInf);
        for (int64_t k = 0; k < R; ++k) {
          const int64_t r = reverse ? R - 1 - k : k;
          const int64_t off = (q * R + r) * inner;
          for (int64_t i = 0; i < inner; ++i) {
            const double v = double(p[off + i]);
            double& a = acc[i];
            if (std::isnan(v) || std::isnan(a)) {
              a = kNaN;
            } else if (v == a) {  // equal (also both +-inf): a + log 2 (-inf stays -inf)
              a = a + 0.6931471805599453;
            } else {
              const double hi = v > a ? v : a, lo = v > a ? a : v;
              a = hi + std::log1p(std::exp(lo - hi));
            }
            o[off + i] = T(a);
          }
        }
      }
    });
  });
  if (!dst.is_same(out)) copy(dst, out);
}

}  // namespace oar::kernels
