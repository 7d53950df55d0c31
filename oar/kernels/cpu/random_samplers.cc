#include "oar/kernels/cpu/random_samplers.h"

#include <cmath>

#include "oar/core/error.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/convert.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/element_stream.h"

namespace oar::kernels {

namespace {

template <typename F>
void for_each_stream(int64_t n, uint64_t seed, uint64_t offset, const F& f) {
  parallel_for(0, n, 2048, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      ElementStream s(offset + static_cast<uint64_t>(i), seed);
      f(i, s);
    }
  });
}

double gamma_draw(double alpha, ElementStream& s) {
  // Marsaglia & Tsang (2000); for alpha < 1, Gamma(alpha) = Gamma(alpha + 1) * U^(1 / alpha).
  const double boost = alpha < 1.0 ? std::pow(1.0 - s.uniform(), 1.0 / alpha) : 1.0;
  const double d = (alpha < 1.0 ? alpha + 1.0 : alpha) - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = s.normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = 1.0 - s.uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x || std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v)))
      return d * v * boost;
  }
}

double poisson_draw(double lambda, ElementStream& s) {
  if (lambda == 0.0) return 0.0;
  if (lambda < 10.0) {  // count uniforms until their product drops below exp(-lambda)
    const double limit = std::exp(-lambda);
    double prod = s.uniform();
    int64_t k = 0;
    while (prod > limit) {
      prod *= s.uniform();
      ++k;
    }
    return static_cast<double>(k);
  }
  // PTRS: Hoermann, "The transformed rejection method for generating Poisson random variables" (1993).
  const double slam = std::sqrt(lambda), loglam = std::log(lambda);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    const double u = s.uniform() - 0.5, v = s.uniform(), us = 0.5 - std::fabs(u);
    const double k = std::floor((2.0 * a / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <= -lambda + k * loglam - std::lgamma(k + 1.0))
      return k;
  }
}

int64_t binomial_draw(int64_t n, double p, ElementStream& s) {
  if (n == 0 || p == 0.0) return 0;
  if (p == 1.0) return n;
  const bool mirrored = p > 0.5;
  const double q = mirrored ? 1.0 - p : p;
  int64_t k = 0;
  if (static_cast<double>(n) * q < 10.0) {
    // Waiting times: geometric gaps between successes until they pass n trials.
    const double log_fail = std::log1p(-q);
    int64_t trials = 0;
    for (;;) {
      trials += static_cast<int64_t>(std::ceil(std::log(1.0 - s.uniform()) / log_fail));
      if (trials > n) break;
      ++k;
    }
  } else {
    // BTRS: Hoermann, "The generation of binomial random variates" (1993).
    const double nd = static_cast<double>(n), spq = std::sqrt(nd * q * (1.0 - q));
    const double b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * q, c = nd * q + 0.5;
    const double alpha = (2.83 + 5.1 / b) * spq, vr = 0.92 - 4.2 / b, lpq = std::log(q / (1.0 - q));
    const double m = std::floor((nd + 1.0) * q), h = std::lgamma(m + 1.0) + std::lgamma(nd - m + 1.0);
    for (;;) {
      const double u = s.uniform() - 0.5, us = 0.5 - std::fabs(u);
      double v = s.uniform();
      const double kd = std::floor((2.0 * a / us + b) * u + c);
      if (kd < 0.0 || kd > nd) continue;
      if (us >= 0.07 && v <= vr) {
        k = static_cast<int64_t>(kd);
        break;
      }
      v = std::log(v * alpha / (a / (us * us) + b));
      if (v <= h - std::lgamma(kd + 1.0) - std::lgamma(nd - kd + 1.0) + (kd - m) * lpq) {
        k = static_cast<int64_t>(kd);
        break;
      }
    }
  }
  return mirrored ? n - k : k;
}

}  // namespace

void standard_gamma(const Tensor& x, uint64_t seed, uint64_t offset, const Tensor& out) {
  dispatch_floating(out.dtype(), "standard_gamma", [&](auto tag) {
    using T = decltype(tag);
    const Tensor xc = x.contiguous();
    const T* xp = xc.data<T>();
    T* p = out.data<T>();
    for_each_stream(out.numel(), seed, offset, [&](int64_t i, ElementStream& s) {
      const double alpha = static_cast<double>(static_cast<compute_t<T>>(xp[i]));
      OAR_ENFORCE_ARG(alpha > 0.0 && std::isfinite(alpha), "standard_gamma: argument 'x' (the shape alpha) must be ",
                      "positive and finite, got ", alpha);
      p[i] = convert<T>(gamma_draw(alpha, s));
    });
  });
}

void poisson(const Tensor& x, uint64_t seed, uint64_t offset, const Tensor& out) {
  dispatch_floating(out.dtype(), "poisson", [&](auto tag) {
    using T = decltype(tag);
    const Tensor xc = x.contiguous();
    const T* xp = xc.data<T>();
    T* p = out.data<T>();
    for_each_stream(out.numel(), seed, offset, [&](int64_t i, ElementStream& s) {
      const double lambda = static_cast<double>(static_cast<compute_t<T>>(xp[i]));
      OAR_ENFORCE_ARG(lambda >= 0.0 && std::isfinite(lambda), "poisson: argument 'x' (the rate) must be ",
                      "non-negative and finite, got ", lambda);
      p[i] = convert<T>(poisson_draw(lambda, s));
    });
  });
}

void binomial(const Tensor& count, const Tensor& prob, uint64_t seed, uint64_t offset, const Tensor& out) {
  const Tensor n64 = count.contiguous(), p64 = prob.contiguous();
  const int64_t* np = n64.data<int64_t>();
  const double* pp = p64.data<double>();
  int64_t* o = out.data<int64_t>();
  for_each_stream(out.numel(), seed, offset, [&](int64_t i, ElementStream& s) {
    OAR_ENFORCE_ARG(np[i] >= 0, "binomial: argument 'count' must be non-negative, got ", np[i]);
    OAR_ENFORCE_ARG(pp[i] >= 0.0 && pp[i] <= 1.0, "binomial: argument 'prob' must be in [0, 1], got ", pp[i]);
    o[i] = binomial_draw(np[i], pp[i], s);
  });
}

}  // namespace oar::kernels
