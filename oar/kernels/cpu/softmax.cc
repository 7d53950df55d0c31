#include "oar/kernels/cpu/softmax.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/elementwise.h"

namespace oar::kernels {
namespace {

constexpr int64_t kGrain = 16384;  // elements per parallel chunk, at least
constexpr int64_t kColumns = 64;   // columns per task in the strided pattern

// exp written as plain arithmetic so loops over it vectorise (range reduction by ln 2 and a
// degree-6 polynomial, ~1 ulp). Underflows to 0 below -87.3; NaN stays NaN.
inline float exp_vec(float x) {
  // Branch-free (selects only), so loops vectorise without -fno-trapping-math.
  constexpr float kLo = -87.33654f, kHi = 88.3762626647949f;
  const float xc = std::min(std::max(x, kLo), kHi);  // NaN passes through
  const float fx = xc * 1.44269504088896341f;
  const float kn = fx + 12582912.0f;  // 1.5 * 2^23: rounds fx to the nearest integer
  const float n = kn - 12582912.0f;
  const int32_t ni = std::bit_cast<int32_t>(kn) - 0x4B400000;
  const float r = xc - n * 0.693359375f - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = (p * r * r + r + 1.0f) * std::bit_cast<float>((ni + 127) << 23);
  return e * static_cast<float>(!(x < kLo));  // 0 below the range; NaN * 0 stays NaN
}
inline double exp_vec(double x) { return std::exp(x); }

template <typename C>
inline C max_of(C a, C b) { return a > b ? a : b; }

// Softmax over rows [r0, r1) of length n, contiguous (the axis is the innermost dim).
template <typename T>
__attribute__((always_inline)) inline void rows_body(const T* x, T* y, int64_t r0, int64_t r1,
                                                     int64_t n, bool log) {
  using C = compute_t<T>;
  for (int64_t r = r0; r < r1; ++r) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    C m = -std::numeric_limits<C>::infinity();
#pragma omp simd reduction(max : m)
    for (int64_t i = 0; i < n; ++i) m = max_of(m, C(xr[i]));
    C s = 0;
    if (log) {
#pragma omp simd reduction(+ : s)
      for (int64_t i = 0; i < n; ++i) s += exp_vec(C(xr[i]) - m);
      const C ls = std::log(s);
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) yr[i] = T((C(xr[i]) - m) - ls);
    } else if constexpr (std::is_same_v<T, C>) {
#pragma omp simd reduction(+ : s)
      for (int64_t i = 0; i < n; ++i) {
        const C e = exp_vec(xr[i] - m);
        yr[i] = e;
        s += e;
      }
      const C inv = C(1) / s;
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) yr[i] *= inv;
    } else {
      // Half types: recompute exp rather than round it to T in between.
#pragma omp simd reduction(+ : s)
      for (int64_t i = 0; i < n; ++i) s += exp_vec(C(xr[i]) - m);
      const C inv = C(1) / s;
      for (int64_t i = 0; i < n; ++i) yr[i] = T(exp_vec(C(xr[i]) - m) * inv);
    }
  }
}

// Softmax over the middle dim of [outer, n, inner] for tasks [t0, t1); a task is one outer
// index and a block of up to kColumns contiguous inner columns.
template <typename T>
__attribute__((always_inline)) inline void strided_body(const T* x, T* y, int64_t t0, int64_t t1,
                                                        int64_t n, int64_t inner, bool log) {
  using C = compute_t<T>;
  const int64_t blocks = (inner + kColumns - 1) / kColumns;
  C m[kColumns], s[kColumns];
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t o = t / blocks, j0 = (t % blocks) * kColumns;
    const int64_t w = std::min(kColumns, inner - j0);
    const T* xb = x + o * n * inner + j0;
    T* yb = y + o * n * inner + j0;
    for (int64_t j = 0; j < w; ++j) {
      m[j] = -std::numeric_limits<C>::infinity();
      s[j] = 0;
    }
    for (int64_t k = 0; k < n; ++k) {
      const T* xr = xb + k * inner;
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) m[j] = max_of(m[j], C(xr[j]));
    }
    if (log) {
      for (int64_t k = 0; k < n; ++k) {
        const T* xr = xb + k * inner;
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) s[j] += exp_vec(C(xr[j]) - m[j]);
      }
      for (int64_t j = 0; j < w; ++j) s[j] = std::log(s[j]);
      for (int64_t k = 0; k < n; ++k) {
        const T* xr = xb + k * inner;
        T* yr = yb + k * inner;
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) yr[j] = T((C(xr[j]) - m[j]) - s[j]);
      }
    } else if constexpr (std::is_same_v<T, C>) {
      for (int64_t k = 0; k < n; ++k) {
        const T* xr = xb + k * inner;
        T* yr = yb + k * inner;
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) {
          const C e = exp_vec(xr[j] - m[j]);
          yr[j] = e;
          s[j] += e;
        }
      }
      for (int64_t j = 0; j < w; ++j) s[j] = C(1) / s[j];
      for (int64_t k = 0; k < n; ++k) {
        T* yr = yb + k * inner;
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) yr[j] *= s[j];
      }
    } else {
      for (int64_t k = 0; k < n; ++k) {
        const T* xr = xb + k * inner;
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) s[j] += exp_vec(C(xr[j]) - m[j]);
      }
      for (int64_t j = 0; j < w; ++j) s[j] = C(1) / s[j];
      for (int64_t k = 0; k < n; ++k) {
        const T* xr = xb + k * inner;
        T* yr = yb + k * inner;
        for (int64_t j = 0; j < w; ++j) yr[j] = T(exp_vec(C(xr[j]) - m[j]) * s[j]);
      }
    }
  }
}

// Each body compiled for AVX-512, AVX2 and the baseline; picked once at run time.
template <typename T>
__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,fma"))) void rows_avx512(
    const T* x, T* y, int64_t r0, int64_t r1, int64_t n, bool log) {
  rows_body<T>(x, y, r0, r1, n, log);
}
template <typename T>
__attribute__((target("avx2,fma"))) void rows_avx2(const T* x, T* y, int64_t r0, int64_t r1,
                                                   int64_t n, bool log) {
  rows_body<T>(x, y, r0, r1, n, log);
}
template <typename T>
void rows_default(const T* x, T* y, int64_t r0, int64_t r1, int64_t n, bool log) {
  rows_body<T>(x, y, r0, r1, n, log);
}
template <typename T>
__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,fma"))) void strided_avx512(
    const T* x, T* y, int64_t t0, int64_t t1, int64_t n, int64_t inner, bool log) {
  strided_body<T>(x, y, t0, t1, n, inner, log);
}
template <typename T>
__attribute__((target("avx2,fma"))) void strided_avx2(const T* x, T* y, int64_t t0, int64_t t1,
                                                      int64_t n, int64_t inner, bool log) {
  strided_body<T>(x, y, t0, t1, n, inner, log);
}
template <typename T>
void strided_default(const T* x, T* y, int64_t t0, int64_t t1, int64_t n, int64_t inner,
                     bool log) {
  strided_body<T>(x, y, t0, t1, n, inner, log);
}

int isa_level() {  // 2: AVX-512, 1: AVX2+FMA, 0: baseline
  static const int level = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
      return 2;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
    return 0;
  }();
  return level;
}

template <typename T>
void run(const T* x, T* y, int64_t outer, int64_t n, int64_t inner, bool log) {
  const int level = isa_level();
  if (inner == 1) {
    auto f = level == 2 ? rows_avx512<T> : level == 1 ? rows_avx2<T> : rows_default<T>;
    parallel_for(0, outer, std::max<int64_t>(1, kGrain / n),
                 [&](int64_t r0, int64_t r1) { f(x, y, r0, r1, n, log); });
    return;
  }
  auto f = level == 2 ? strided_avx512<T> : level == 1 ? strided_avx2<T> : strided_default<T>;
  const int64_t blocks = (inner + kColumns - 1) / kColumns;
  const int64_t per_task = n * std::min(inner, kColumns);
  parallel_for(0, outer * blocks, std::max<int64_t>(1, kGrain / per_task),
               [&](int64_t t0, int64_t t1) { f(x, y, t0, t1, n, inner, log); });
}

}  // namespace

void softmax(const Tensor& x, int64_t axis, bool log, const Tensor& out) {
  const int64_t rank = x.ndim();
  const int64_t ax = normalize_axis(axis, std::max<int64_t>(rank, 1), log ? "log_softmax" : "softmax");
  if (x.numel() == 0) return;
  int64_t outer = 1, n = 1, inner = 1;
  if (rank > 0) {
    const Shape& s = x.shape();
    for (int64_t d = 0; d < ax; ++d) outer *= s[d];
    n = s[ax];
    for (int64_t d = ax + 1; d < rank; ++d) inner *= s[d];
  }
  // The kernels read and write contiguous memory; other layouts go through copies.
  const Tensor* xc = &x;
  const Tensor* oc = &out;
  Tensor xcopy, ocopy;
  if (!x.is_contiguous() || x.dtype() != out.dtype()) {
    xcopy = Tensor::make(x.shape(), out.dtype());
    copy(x, xcopy);
    xc = &xcopy;
  }
  if (!out.is_contiguous()) {
    ocopy = Tensor::make(out.shape(), out.dtype());
    oc = &ocopy;
  }
  dispatch_floating(out.dtype(), log ? "log_softmax" : "softmax", [&](auto tag) {
    using T = decltype(tag);
    run<T>(static_cast<const T*>(xc->raw_data()), static_cast<T*>(oc->raw_data()), outer, n,
           inner, log);
  });
  if (oc != &out) copy(*oc, out);
}

}  // namespace oar::kernels
