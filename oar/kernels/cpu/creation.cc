#include "oar/kernels/cpu/creation.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "oar/core/error.h"
#include "oar/core/random.h"
#include "oar/kernels/cpu/convert.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/loops.h"
#include "oar/kernels/cpu/shape.h"
#include "plugins/common/philox.h"

namespace oar::kernels {

void arange(const Scalar& start, const Scalar& step, const Tensor& out) {
  dispatch_real(out.dtype(), "arange", [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    if constexpr (std::is_integral_v<T>) {
      const int64_t s = start.to<int64_t>(), d = step.to<int64_t>();
      for (int64_t i = 0; i < out.numel(); ++i) p[i] = static_cast<T>(s + i * d);
    } else {
      const double s = start.to<double>(), d = step.to<double>();
      for (int64_t i = 0; i < out.numel(); ++i) p[i] = convert<T>(s + static_cast<double>(i) * d);
    }
  });
}

namespace {
// The one value of a 1-element tensor, integral when its dtype is.
Scalar single_value(const Tensor& t, const char* op, const char* name) {
  OAR_ENFORCE_ARG(t.numel() == 1, op, ": argument '", name, "' must hold one value, got shape ",
                  shape_str(t.shape()));
  if (is_integral(t.dtype(), true)) return Scalar(as_contiguous(t, DType::Int64).data<int64_t>()[0]);
  return Scalar(as_contiguous(t, DType::Float64).data<double>()[0]);
}
}  // namespace

Tensor arange_tensor(const Tensor& start, const Tensor& end, const Tensor& step,
                     std::optional<DType> dtype) {
  const Scalar s = single_value(start, "arange", "start"), e = single_value(end, "arange", "end"),
               d = single_value(step, "arange", "step");
  // The length and dtype rules of infer_meta::arange (oar.arange with Python numbers).
  const double sv = s.to<double>(), ev = e.to<double>(), dv = d.to<double>();
  OAR_ENFORCE_ARG(dv != 0, "arange: argument 'step' must not be 0");
  OAR_ENFORCE_ARG(std::isfinite(sv) && std::isfinite(ev), "arange: arguments 'start' and 'end' must be finite, got ",
                  sv, " and ", ev);
  const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((ev - sv) / dv)));
  const bool all_int = s.is_integral() && e.is_integral() && d.is_integral();
  Tensor out = Tensor::make({n}, dtype.value_or(all_int ? DType::Int64 : default_float_dtype()));
  arange(s, d, out);
  return out;
}

namespace {

// x as it is, but the compiler may not fuse the multiply that made it into a following add:
// linspace rounds the product and the sum separately, as Paddle's kernel does.
template <typename T>
inline T rounded(T x) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  asm volatile("" : "+x"(x));
#endif
  return x;
}

}  // namespace

void linspace(const Scalar& start, const Scalar& stop, const Tensor& out) {
  dispatch_real(out.dtype(), "linspace", [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    const int64_t n = out.numel();
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      // In T, as Paddle's float32/float64 kernel: step = (stop - start) / (n - 1), then the
      // first half from start and the second from stop (so the last value is exactly stop).
      const T a = start.to<T>(), b = stop.to<T>();
      const T step = n > 1 ? (b - a) / static_cast<T>(n - 1) : T(0);
      for (int64_t i = 0; i < n; ++i)
        p[i] = n == 1 ? a  // one value: start
               : i < n / 2 ? a + rounded(step * static_cast<T>(i)) : b - rounded(step * static_cast<T>(n - 1 - i));
    } else {
      const double a = start.to<double>(), b = stop.to<double>();
      const double step = n > 1 ? (b - a) / static_cast<double>(n - 1) : 0.0;
      for (int64_t i = 0; i < n; ++i) {
        const double v = n == 1 ? a : i < n / 2 ? a + rounded(step * static_cast<double>(i))
                                                : b - rounded(step * static_cast<double>(n - 1 - i));
        p[i] = convert<T>(v);
      }
    }
  });
}

void linspace_tensor(const Tensor& start, const Tensor& stop, const Tensor& out) {
  linspace(single_value(start, "linspace", "start"), single_value(stop, "linspace", "stop"), out);
}

void eye(const Tensor& out) {
  dispatch_all(out.dtype(), "eye", [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    const int64_t rows = out.shape()[0], cols = out.shape()[1];
    for (int64_t i = 0; i < rows * cols; ++i) p[i] = convert<T>(0);
    for (int64_t i = 0; i < std::min(rows, cols); ++i) p[i * cols + i] = convert<T>(1);
  });
}

namespace {
// Calls f(i, Philox block) for every element, in parallel; element i uses counter offset+i.
// The per-element transforms are plugins/common/philox.h's, shared with the device plug-ins so
// that a draw on a device has the same bits as here.
template <typename F>
void for_each_random(int64_t n, uint64_t seed, uint64_t offset, const F& f) {
  parallel_for(0, n, 8192, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i, oar_rng::philox4x32(offset + static_cast<uint64_t>(i), 0, seed));
  });
}
}  // namespace

void uniform(double low, double high, uint64_t seed, uint64_t offset, const Tensor& out) {
  dispatch_floating(out.dtype(), "uniform", [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    for_each_random(out.numel(), seed, offset, [&](int64_t i, const oar_rng::Block& r) {
      p[i] = convert<T>(oar_rng::uniform_value(low, high, r));
    });
  });
}

void normal(double mean, double std, uint64_t seed, uint64_t offset, const Tensor& out) {
  dispatch_floating(out.dtype(), "normal", [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    for_each_random(out.numel(), seed, offset, [&](int64_t i, const oar_rng::Block& r) {
      p[i] = convert<T>(oar_rng::normal_value(mean, std, r));  // Box-Muller
    });
  });
}

void randint(int64_t low, int64_t high, uint64_t seed, uint64_t offset, const Tensor& out) {
  dispatch_integral(out.dtype(), "randint", [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    // Unsigned arithmetic: the range of [INT64_MIN, INT64_MAX) does not fit int64.
    const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    for_each_random(out.numel(), seed, offset, [&](int64_t i, const oar_rng::Block& r) {
      p[i] = static_cast<T>(oar_rng::randint_value(low, range, r));
    });
  });
}

void bernoulli(const Tensor& prob, uint64_t seed, uint64_t offset, const Tensor& out) {
  dispatch_floating(out.dtype(), "bernoulli", [&](auto tag) {
    using T = decltype(tag);
    const Tensor pc = prob.contiguous();
    const T* pp = pc.data<T>();
    T* p = out.data<T>();
    for_each_random(out.numel(), seed, offset, [&](int64_t i, const oar_rng::Block& r) {
      const double pi = static_cast<double>(static_cast<compute_t<T>>(pp[i]));
      p[i] = convert<T>(oar_rng::bernoulli_value(pi, r) ? 1.0 : 0.0);
    });
  });
}

void randperm(uint64_t seed, uint64_t offset, const Tensor& out) {
  // Fisher-Yates with one counter per swap: sequential, deterministic.
  const int64_t n = out.numel();
  // Through the allocator (not std::vector): too large a request is ResourceExhausted, not abort.
  const Tensor perm_storage = Tensor::make({n}, DType::Int64);
  int64_t* perm = perm_storage.data<int64_t>();
  std::iota(perm, perm + n, 0);
  for (int64_t i = n - 1; i > 0; --i) {
    auto r = philox4x32(offset + static_cast<uint64_t>(i), 0, seed);
    const uint64_t v = (static_cast<uint64_t>(r[0]) << 32) | r[1];
    std::swap(perm[i], perm[v % static_cast<uint64_t>(i + 1)]);
  }
  dispatch_real(out.dtype(), "randperm", [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = convert<T>(perm[i]);
  });
}

}  // namespace oar::kernels
