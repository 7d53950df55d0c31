// Scalar special functions shared by the device plug-ins (plugins/cuda/special.cu and
// plugins/custom_cpu/misc.cc): the algorithms of oar's CPU kernels (oar/kernels/cpu/special.cc),
// written once as __host__ __device__ functions so that a GPU and the test device compute what
// the host computes.
//
// Contract: every function takes and returns double (the CPU kernels compute every float dtype
// in double and round once); edge cases (NaN, infinities, poles, arguments out of the domain)
// give the CPU kernels' values. No recursion and no heap, so device code has a static stack
// frame. The building blocks the CPU kernels take from libm (lgamma, erf/erfc, tgamma, the
// modified Bessel functions I0/I1) are CUDA's math library on the device and libm / libstdc++
// on the host, so the two agree to a few ulp rather than bit for bit.
// Plain C++ for a host compiler; nvcc sees __host__ __device__.
#pragma once

#include <math.h>

#include <cmath>
#include <cstdint>

#ifdef __CUDACC__
#define OAR_SPECIAL_HD __host__ __device__ __forceinline__
#else
#define OAR_SPECIAL_HD inline
#endif

namespace oar_special {

constexpr double kPi = 3.14159265358979323846;

OAR_SPECIAL_HD double nan_value() { return __builtin_nan(""); }
OAR_SPECIAL_HD double inf_value() { return __builtin_inf(); }
OAR_SPECIAL_HD bool is_nan(double x) { return x != x; }
OAR_SPECIAL_HD bool is_inf(double x) { return x == inf_value() || x == -inf_value(); }
OAR_SPECIAL_HD bool sign_bit(double x) { return x < 0 || (x == 0 && 1 / x < 0); }

// log|Gamma(x)|.
OAR_SPECIAL_HD double log_gamma(double x) {
#ifdef __CUDA_ARCH__
  return ::lgamma(x);
#else
  int sign = 0;
  return ::lgamma_r(x, &sign);  // thread safe: leaves signgam alone
#endif
}

// I0(x) and I1(x) for x >= 0.
OAR_SPECIAL_HD double bessel_i_raw(int nu, double x) {
#ifdef __CUDA_ARCH__
  return nu == 0 ? ::cyl_bessel_i0(x) : ::cyl_bessel_i1(x);
#else
  return std::cyl_bessel_i(static_cast<double>(nu), x);
#endif
}

// Bernoulli numbers B_2 .. B_20.
OAR_SPECIAL_HD double bernoulli(int k) {  // B_{2k}, k = 1..10
  switch (k) {
    case 1: return 1.0 / 6;
    case 2: return -1.0 / 30;
    case 3: return 1.0 / 42;
    case 4: return -1.0 / 30;
    case 5: return 5.0 / 66;
    case 6: return -691.0 / 2730;
    case 7: return 7.0 / 6;
    case 8: return -3617.0 / 510;
    case 9: return 43867.0 / 798;
    default: return -174611.0 / 330;
  }
}

// psi(x): reflection for x < 0, the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then
// the asymptotic series ln x - 1/(2x) - sum B_2k / (2k x^2k).
OAR_SPECIAL_HD double digamma(double x) {
  if (is_nan(x)) return x;
  if (x == inf_value()) return inf_value();
  if (x == -inf_value()) return nan_value();
  if (x <= 0 && x == ::floor(x)) return x == 0 ? (sign_bit(x) ? inf_value() : -inf_value()) : nan_value();
  double result = 0;
  if (x < 0) {
    const double r = x - ::floor(x);
    result = -kPi / ::tan(kPi * r);
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double z = 1 / (x * x);
  double series = 0, zk = z;
  for (int k = 1; k <= 8; ++k) {
    series += bernoulli(k) / (2 * k) * zk;
    zk *= z;
  }
  return result + ::log(x) - 0.5 / x - series;
}

// psi^(n)(x) for n > 170 (n! overflows): see the CPU kernel.
OAR_SPECIAL_HD double polygamma_large_order(int64_t n, double x) {
  const double s = static_cast<double>(n) + 1;
  const double order_sign = n % 2 == 1 ? 1.0 : -1.0;
  if (x < 0) {
    const double nearest = x - ::round(x);
    return order_sign * ((n % 2 == 0 && nearest < 0) ? -inf_value() : inf_value());
  }
  double factor = 0, term = 1;
  int k = 0;
  for (; k < 64; ++k) {
    term = ::exp(-s * ::log1p(k / x));
    factor += term;
    if (term < 1e-17 * factor) break;
  }
  if (k == 64) factor += term * (x + k) / (s - 1);
  return order_sign * ::exp(log_gamma(s) - s * ::log(x) + ::log(factor));
}

// psi^(n)(x), 1 <= n <= 170, x > 0 finite: the recurrence up to x >= 20 + n, then the
// asymptotic series.
OAR_SPECIAL_HD double polygamma_positive(int64_t n, double x) {
  const double sign = n % 2 == 1 ? 1.0 : -1.0;
  const double nf = ::tgamma(static_cast<double>(n) + 1);  // n!
  double acc = 0;
  const double target = 20.0 + static_cast<double>(n);
  while (x < target) {
    acc += 1.0 / ::pow(x, static_cast<double>(n + 1));
    x += 1;
  }
  acc *= nf;
  double tail = nf / static_cast<double>(n) / ::pow(x, static_cast<double>(n)) +
                nf / (2 * ::pow(x, static_cast<double>(n + 1)));
  double coef = nf * static_cast<double>(n + 1) / 2.0;
  const double inv_x2 = 1 / (x * x);
  double xp = 1 / ::pow(x, static_cast<double>(n + 2));
  for (int k = 1; k <= 10; ++k) {
    const double term = bernoulli(k) * coef * xp;
    tail += term;
    if (::fabs(term) < 1e-17 * ::fabs(tail)) break;
    coef *= static_cast<double>(2 * k + n) * static_cast<double>(2 * k + n + 1) /
            (static_cast<double>(2 * k + 1) * static_cast<double>(2 * k + 2));
    xp *= inv_x2;
  }
  return sign * (acc + tail);
}

// psi^(n)(x), n >= 0 (n = 0: digamma).
OAR_SPECIAL_HD double polygamma(int64_t n, double x) {
  if (n == 0) return digamma(x);
  if (is_nan(x)) return x;
  if (x == inf_value()) return 0.0;
  if (x <= 0 && x == ::floor(x)) return n % 2 == 1 ? inf_value() : nan_value();
  if (n > 170) return polygamma_large_order(n, x);
  if (x < 0) {
    // psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) cot^(n)(pi x), cot^(n)(z) = P_n(cot z) with
    // P_0(c) = c, P_{k+1}(c) = -(1 + c^2) P_k'(c); coefficients up to degree n + 1.
    constexpr int kMax = 172;
    double p[kMax], q[kMax];
    const int size = static_cast<int>(n) + 2;
    for (int j = 0; j < size; ++j) p[j] = 0;
    p[1] = 1;
    for (int64_t k = 0; k < n; ++k) {
      for (int j = 0; j < size; ++j) q[j] = 0;
      for (int j = 1; j < size; ++j) {
        const double d = -static_cast<double>(j) * p[j];
        q[j - 1] += d;
        if (j + 1 < size) q[j + 1] += d;
      }
      for (int j = 0; j < size; ++j) p[j] = q[j];
    }
    const double c = 1 / ::tan(kPi * (x - ::floor(x)));
    double poly = 0;
    for (int j = size; j-- > 0;) poly = poly * c + p[j];
    const double refl = n % 2 == 0 ? 1.0 : -1.0;
    return refl * polygamma_positive(n, 1 - x) - ::pow(kPi, static_cast<double>(n + 1)) * poly;
  }
  return polygamma_positive(n, x);
}

// Inverse error function: Giles' polynomial, then Newton steps on erf (erfc near +-1).
OAR_SPECIAL_HD double erfinv(double y) {
  if (is_nan(y) || y < -1 || y > 1) return nan_value();
  if (y == 1) return inf_value();
  if (y == -1) return -inf_value();
  if (y == 0) return y;
  const double a = ::fabs(y);
  double w = -::log((1 - a) * (1 + a)), p;
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
    w = ::sqrt(w) - 3;
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
    const double d = two_over_sqrt_pi * ::exp(-x * x);
    if (d == 0) break;
    const double f = a < 0.5 ? ::erf(x) - a : (1 - a) - ::erfc(x);
    x -= f / d;
  }
  return y < 0 ? -x : x;
}

// e^{-x} I_nu(x) for large x (asymptotic series).
OAR_SPECIAL_HD double bessel_i_scaled_asymptotic(double nu, double x) {
  const double mu = 4 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k < 30; ++k) {
    const double odd = 2.0 * k - 1;
    term *= -(mu - odd * odd) / (k * 8.0 * x);
    sum += term;
    if (::fabs(term) < 1e-17 * ::fabs(sum)) break;
  }
  return sum / ::sqrt(2 * kPi * x);
}

// I_nu(x), nu = 0 or 1.
OAR_SPECIAL_HD double bessel_i(int nu, double x) {
  if (is_nan(x)) return x;
  const double ax = ::fabs(x);
  if (is_inf(ax)) return nu == 1 && x < 0 ? -inf_value() : inf_value();
  const double v = ax > 700 ? inf_value() : bessel_i_raw(nu, ax);
  return nu == 1 && x < 0 ? -v : v;
}

// e^{-|x|} I_nu(x), nu = 0 or 1.
OAR_SPECIAL_HD double bessel_ie(int nu, double x) {
  if (is_nan(x)) return x;
  const double ax = ::fabs(x);
  if (is_inf(ax)) return nu == 1 && x < 0 ? -0.0 : 0.0;
  const double v = ax > 700 ? bessel_i_scaled_asymptotic(nu, ax) : ::exp(-ax) * bessel_i_raw(nu, ax);
  return nu == 1 && x < 0 ? -v : v;
}

// Regularised lower (upper = false) or upper incomplete gamma function of (a, x): the series
// for P when x < a + 1, else the continued fraction for Q (modified Lentz). Negative arguments
// give NaN (the CPU kernel rejects them before computing).
OAR_SPECIAL_HD double incomplete_gamma(double a, double x, bool upper) {
  if (is_nan(a) || is_nan(x) || a < 0 || x < 0) return nan_value();
  if (a == 0) {
    if (x == 0) return nan_value();
    return upper ? 0.0 : 1.0;
  }
  if (x == 0) return upper ? 1.0 : 0.0;
  if (is_inf(a)) return is_inf(x) ? nan_value() : (upper ? 1.0 : 0.0);
  if (is_inf(x)) return upper ? 0.0 : 1.0;
  const double log_pref = -x + a * ::log(x) - log_gamma(a);
  constexpr double eps = 1e-16;
  if (x < a + 1) {
    double term = 1 / a, sum = term;
    for (int n = 1; n < 100000; ++n) {
      term *= x / (a + n);
      sum += term;
      if (::fabs(term) < ::fabs(sum) * eps) break;
    }
    const double p = sum * ::exp(log_pref);
    return upper ? 1 - p : p;
  }
  constexpr double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (::fabs(del - 1) < eps) break;
  }
  const double q = ::exp(log_pref) * h;
  return upper ? q : 1 - q;
}

// The unary special functions by op, as the CPU kernel's special_scalar.
enum class Unary { Lgamma, Digamma, Erfinv, I0, I0e, I1, I1e };

OAR_SPECIAL_HD double unary(Unary op, double x) {
  switch (op) {
    case Unary::Lgamma: return log_gamma(x);
    case Unary::Digamma: return digamma(x);
    case Unary::Erfinv: return erfinv(x);
    case Unary::I0: return bessel_i(0, x);
    case Unary::I0e: return bessel_ie(0, x);
    case Unary::I1: return bessel_i(1, x);
    case Unary::I1e: return bessel_ie(1, x);
  }
  return nan_value();
}

}  // namespace oar_special
