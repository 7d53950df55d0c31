#include "oar/kernels/cpu/softmax.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "oar/core/cpu_isa.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/shape.h"
#include "oar/kernels/cpu/vec_exp.h"

namespace oar::kernels {
namespace {

constexpr int64_t kGrain = 16384;  // elements per parallel chunk, at least

#define OAR_INLINE __attribute__((always_inline)) inline
// The wide vector types only ever live inside always-inline helpers of functions compiled for
// the matching ISA, so the ABI note about passing them is moot.
#pragma GCC diagnostic ignored "-Wpsabi"

// ---- float32: explicit vectors (GCC vector extensions), so exp vectorises without fast-math ----
// The bodies are compiled for 64-, 32- and 16-byte vectors (AVX-512, AVX2, baseline) and the
// widest the CPU supports is picked at run time.
template <int W>
struct Vec {
  typedef float F __attribute__((vector_size(W)));
  static constexpr int L = W / 4;
};

template <typename V>
OAR_INLINE V splat(float v) { return V{} + v; }
template <typename V>
OAR_INLINE V load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}
template <typename V>
OAR_INLINE void store(float* p, const V& v) { std::memcpy(p, &v, sizeof(V)); }
template <typename V, int L>
OAR_INLINE float hmax(const V& v, float m) {
  float buf[L];
  store(buf, v);
  for (int i = 0; i < L; ++i) m = buf[i] > m ? buf[i] : m;
  return m;
}
template <typename V, int L>
OAR_INLINE float hsum(const V& v, float s) {
  float buf[L];
  store(buf, v);
  for (int i = 0; i < L; ++i) s += buf[i];
  return s;
}


// Rows [r0, r1) of length n, contiguous (the axis is the innermost dim). Vectors over the
// multiple-of-L part, scalars for the tail.
template <int W>
OAR_INLINE void rows_f32(const float* x, float* y, int64_t r0, int64_t r1, int64_t n, bool log) {
  using V = typename Vec<W>::F;
  constexpr int L = Vec<W>::L;
  const int64_t full = n / L * L;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (int64_t r = r0; r < r1; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    float m = kNegInf;
    if (full) {
      V vm = load<V>(xr);
      for (int64_t i = L; i < full; i += L) {
        const V v = load<V>(xr + i);
        vm = v > vm ? v : vm;
      }
      m = hmax<V, L>(vm, m);
    }
    for (int64_t i = full; i < n; ++i) m = xr[i] > m ? xr[i] : m;
    const V mv = splat<V>(m);
    V vs = splat<V>(0.0f);
    float s = 0.0f;
    if (log) {
      for (int64_t i = 0; i < full; i += L) vs += exp_f32(load<V>(xr + i) - mv);
      for (int64_t i = full; i < n; ++i) s += exp_f32(xr[i] - m);
      const float ls = std::log(hsum<V, L>(vs, s));
      for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - m) - ls;
    } else {
      for (int64_t i = 0; i < full; i += L) {
        const V e = exp_f32(load<V>(xr + i) - mv);
        store(yr + i, e);
        vs += e;
      }
      for (int64_t i = full; i < n; ++i) {
        yr[i] = exp_f32(xr[i] - m);
        s += yr[i];
      }
      const float inv = 1.0f / hsum<V, L>(vs, s);
      for (int64_t i = 0; i < n; ++i) yr[i] *= inv;
    }
  }
}

// Per-thread scratch of at least n floats/doubles (kept between calls).
template <typename C>
C* scratch(int64_t n) {
  thread_local std::vector<C> buf;
  if (static_cast<int64_t>(buf.size()) < n) buf.resize(static_cast<size_t>(n));
  return buf.data();
}

// The middle dim of [outer, n, inner] for tasks [t0, t1); a task is one outer index and a block
// of `cols` contiguous inner columns, reduced column-wise down the n rows with running maxima and
// sums in ms/ss (vectors over the multiple-of-L columns, scalars for the rest). Each row of a
// block is read contiguously, so wide blocks stream well.
template <int W>
OAR_INLINE void strided_f32(const float* x, float* y, int64_t t0, int64_t t1, int64_t n,
                            int64_t inner, int64_t cols, bool log) {
  using V = typename Vec<W>::F;
  constexpr int L = Vec<W>::L;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const int64_t blocks = (inner + cols - 1) / cols;
  float* ms = scratch<float>(2 * cols);
  float* ss = ms + cols;
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t o = t / blocks, j0 = (t % blocks) * cols;
    const int64_t w = std::min(cols, inner - j0), vw = w / L * L;
    const float* xb = x + o * n * inner + j0;
    float* yb = y + o * n * inner + j0;
    for (int64_t j = 0; j < w; ++j) {
      ms[j] = kNegInf;
      ss[j] = 0.0f;
    }
    for (int64_t k = 0; k < n; ++k) {
      const float* xr = xb + k * inner;
      for (int64_t j = 0; j < vw; j += L) {
        const V a = load<V>(xr + j), m = load<V>(ms + j);
        store(ms + j, a > m ? a : m);
      }
      for (int64_t j = vw; j < w; ++j) ms[j] = xr[j] > ms[j] ? xr[j] : ms[j];
    }
    if (log) {
      for (int64_t k = 0; k < n; ++k) {
        const float* xr = xb + k * inner;
        for (int64_t j = 0; j < vw; j += L)
          store(ss + j, load<V>(ss + j) + exp_f32(load<V>(xr + j) - load<V>(ms + j)));
        for (int64_t j = vw; j < w; ++j) ss[j] += exp_f32(xr[j] - ms[j]);
      }
      for (int64_t j = 0; j < w; ++j) ss[j] = std::log(ss[j]);
      for (int64_t k = 0; k < n; ++k) {
        const float* xr = xb + k * inner;
        float* yr = yb + k * inner;
        for (int64_t j = 0; j < vw; j += L)
          store(yr + j, (load<V>(xr + j) - load<V>(ms + j)) - load<V>(ss + j));
        for (int64_t j = vw; j < w; ++j) yr[j] = (xr[j] - ms[j]) - ss[j];
      }
    } else {
      for (int64_t k = 0; k < n; ++k) {
        const float* xr = xb + k * inner;
        float* yr = yb + k * inner;
        for (int64_t j = 0; j < vw; j += L) {
          const V e = exp_f32(load<V>(xr + j) - load<V>(ms + j));
          store(yr + j, e);
          store(ss + j, load<V>(ss + j) + e);
        }
        for (int64_t j = vw; j < w; ++j) {
          yr[j] = exp_f32(xr[j] - ms[j]);
          ss[j] += yr[j];
        }
      }
      for (int64_t j = 0; j < w; ++j) ss[j] = 1.0f / ss[j];
      for (int64_t k = 0; k < n; ++k) {
        float* yr = yb + k * inner;
        for (int64_t j = 0; j < vw; j += L) store(yr + j, load<V>(yr + j) * load<V>(ss + j));
        for (int64_t j = vw; j < w; ++j) yr[j] *= ss[j];
      }
    }
  }
}

OAR_TARGET_AVX512 void rows_f32_avx512(const float* x, float* y, int64_t r0, int64_t r1, int64_t n,
                                       bool log) {
  rows_f32<64>(x, y, r0, r1, n, log);
}
OAR_TARGET_AVX2 void rows_f32_avx2(const float* x, float* y, int64_t r0, int64_t r1, int64_t n,
                                   bool log) {
  rows_f32<32>(x, y, r0, r1, n, log);
}
void rows_f32_base(const float* x, float* y, int64_t r0, int64_t r1, int64_t n, bool log) {
  rows_f32<16>(x, y, r0, r1, n, log);
}
OAR_TARGET_AVX512 void strided_f32_avx512(const float* x, float* y, int64_t t0, int64_t t1,
                                          int64_t n, int64_t inner, int64_t cols, bool log) {
  strided_f32<64>(x, y, t0, t1, n, inner, cols, log);
}
OAR_TARGET_AVX2 void strided_f32_avx2(const float* x, float* y, int64_t t0, int64_t t1, int64_t n,
                                      int64_t inner, int64_t cols, bool log) {
  strided_f32<32>(x, y, t0, t1, n, inner, cols, log);
}
void strided_f32_base(const float* x, float* y, int64_t t0, int64_t t1, int64_t n, int64_t inner,
                      int64_t cols, bool log) {
  strided_f32<16>(x, y, t0, t1, n, inner, cols, log);
}

// ---- float64: plain loops (exp from libm) ----
void rows_f64(const double* x, double* y, int64_t r0, int64_t r1, int64_t n, bool log) {
  for (int64_t r = r0; r < r1; ++r) {
    const double* xr = x + r * n;
    double* yr = y + r * n;
    double m = -std::numeric_limits<double>::infinity();
#pragma omp simd reduction(max : m)
    for (int64_t i = 0; i < n; ++i) m = xr[i] > m ? xr[i] : m;
    double s = 0;
    if (log) {
      for (int64_t i = 0; i < n; ++i) s += std::exp(xr[i] - m);
      const double ls = std::log(s);
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - m) - ls;
    } else {
      for (int64_t i = 0; i < n; ++i) {
        yr[i] = std::exp(xr[i] - m);
        s += yr[i];
      }
      const double inv = 1.0 / s;
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) yr[i] *= inv;
    }
  }
}

void strided_f64(const double* x, double* y, int64_t t0, int64_t t1, int64_t n, int64_t inner,
                 int64_t cols, bool log) {
  const int64_t blocks = (inner + cols - 1) / cols;
  double* m = scratch<double>(2 * cols);
  double* s = m + cols;
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t o = t / blocks, j0 = (t % blocks) * cols;
    const int64_t w = std::min(cols, inner - j0);
    const double* xb = x + o * n * inner + j0;
    double* yb = y + o * n * inner + j0;
    for (int64_t j = 0; j < w; ++j) {
      m[j] = -std::numeric_limits<double>::infinity();
      s[j] = 0;
    }
    for (int64_t k = 0; k < n; ++k) {
      const double* xr = xb + k * inner;
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) m[j] = xr[j] > m[j] ? xr[j] : m[j];
    }
    for (int64_t k = 0; k < n; ++k) {
      const double* xr = xb + k * inner;
      double* yr = yb + k * inner;
      for (int64_t j = 0; j < w; ++j) {
        const double e = std::exp(xr[j] - m[j]);
        if (!log) yr[j] = e;
        s[j] += e;
      }
    }
    if (log) {
      for (int64_t j = 0; j < w; ++j) s[j] = std::log(s[j]);
      for (int64_t k = 0; k < n; ++k) {
        const double* xr = xb + k * inner;
        double* yr = yb + k * inner;
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) yr[j] = (xr[j] - m[j]) - s[j];
      }
    } else {
      for (int64_t j = 0; j < w; ++j) s[j] = 1.0 / s[j];
      for (int64_t k = 0; k < n; ++k) {
        double* yr = yb + k * inner;
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) yr[j] *= s[j];
      }
    }
  }
}

// ---- the gradient: softmax dx = y * (g - sum(g * y)), log_softmax dx = g - exp(y) * sum(g) ----
// Rows [r0, r1) of length n along the innermost dim: one pass for the sum, one for dx.
template <int W>
OAR_INLINE void grad_rows_f32(const float* y, const float* g, float* dx, int64_t r0, int64_t r1, int64_t n,
                              bool log) {
  using V = typename Vec<W>::F;
  constexpr int L = Vec<W>::L;
  const int64_t full = n / L * L;
  for (int64_t r = r0; r < r1; ++r) {
    const float* yr = y + r * n;
    const float* gr = g + r * n;
    float* dr = dx + r * n;
    V vs = splat<V>(0.0f);
    float s = 0.0f;
    if (log) {
      for (int64_t i = 0; i < full; i += L) vs += load<V>(gr + i);
      for (int64_t i = full; i < n; ++i) s += gr[i];
    } else {
      for (int64_t i = 0; i < full; i += L) vs += load<V>(gr + i) * load<V>(yr + i);
      for (int64_t i = full; i < n; ++i) s += gr[i] * yr[i];
    }
    s = hsum<V, L>(vs, s);
    const V sv = splat<V>(s);
    if (log) {
      for (int64_t i = 0; i < full; i += L) store(dr + i, load<V>(gr + i) - exp_f32(load<V>(yr + i)) * sv);
      for (int64_t i = full; i < n; ++i) dr[i] = gr[i] - exp_f32(yr[i]) * s;
    } else {
      for (int64_t i = 0; i < full; i += L) store(dr + i, load<V>(yr + i) * (load<V>(gr + i) - sv));
      for (int64_t i = full; i < n; ++i) dr[i] = yr[i] * (gr[i] - s);
    }
  }
}

OAR_TARGET_AVX512 void grad_rows_f32_avx512(const float* y, const float* g, float* dx, int64_t r0, int64_t r1,
                                            int64_t n, bool log) {
  grad_rows_f32<64>(y, g, dx, r0, r1, n, log);
}
OAR_TARGET_AVX2 void grad_rows_f32_avx2(const float* y, const float* g, float* dx, int64_t r0, int64_t r1,
                                        int64_t n, bool log) {
  grad_rows_f32<32>(y, g, dx, r0, r1, n, log);
}
void grad_rows_f32_base(const float* y, const float* g, float* dx, int64_t r0, int64_t r1, int64_t n, bool log) {
  grad_rows_f32<16>(y, g, dx, r0, r1, n, log);
}

// Any other layout ([outer, n, inner] with inner > 1) and float64: plain loops per column.
template <typename C>
void grad_strided(const C* y, const C* g, C* dx, int64_t outer, int64_t n, int64_t inner, bool log) {
  parallel_for(0, outer * inner, std::max<int64_t>(1, kGrain / std::max<int64_t>(n, 1)), [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t base = (t / inner) * n * inner + t % inner;
      C s = 0;
      for (int64_t k = 0; k < n; ++k) s += log ? g[base + k * inner] : g[base + k * inner] * y[base + k * inner];
      for (int64_t k = 0; k < n; ++k) {
        const int64_t i = base + k * inner;
        dx[i] = log ? g[i] - std::exp(y[i]) * s : y[i] * (g[i] - s);
      }
    }
  });
}

template <typename T, typename Rows, typename Strided>
void run(const T* x, T* y, int64_t outer, int64_t n, int64_t inner, bool log, Rows rows,
         Strided strided) {
  if (inner == 1) {
    parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(n, 1)),
                 [&](int64_t r0, int64_t r1) { rows(x, y, r0, r1, n, log); });
    return;
  }
  // Columns per task: the whole inner extent when there are enough outer slices to go round
  // the threads, else inner split evenly (in whole cache lines) between them.
  const int64_t line = 64 / static_cast<int64_t>(sizeof(T));
  const int64_t threads = (outer * n * inner >= 2 * kGrain) ? get_num_threads() : 1;
  const int64_t split = std::max<int64_t>(1, (threads + outer - 1) / outer);
  const int64_t per_split = ((inner + split - 1) / split + line - 1) / line * line;
  const int64_t cols = std::min(inner, std::max(line, per_split));
  const int64_t blocks = (inner + cols - 1) / cols;
  const int64_t per_task = std::max<int64_t>(n * std::min(inner, cols), 1);
  parallel_for(0, outer * blocks, std::max<int64_t>(1, kGrain / per_task),
               [&](int64_t t0, int64_t t1) { strided(x, y, t0, t1, n, inner, cols, log); });
}

// A tensor's dims around the softmax axis as [outer, n, inner] (a 0-D tensor has the one axis
// -1/0 of size 1).
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
AxisSplit split_at_axis(const Tensor& t, int64_t axis, const char* name) {
  const int64_t rank = t.ndim();
  const int64_t ax = normalize_axis(axis, std::max<int64_t>(rank, 1), name);
  AxisSplit a;
  if (rank > 0) {
    const Shape& s = t.shape();
    for (int64_t d = 0; d < ax; ++d) a.outer *= s[d];
    a.n = s[ax];
    for (int64_t d = ax + 1; d < rank; ++d) a.inner *= s[d];
  }
  return a;
}

// The kernels compute in float32/float64 on contiguous memory: other layouts, and float16/
// bfloat16 (computed in float32), go through copies. The compute dtype of a result of dtype dt.
DType compute_dtype(DType dt, const char* name) {
  const bool half = dt == DType::Float16 || dt == DType::BFloat16;
  if (!half && dt != DType::Float32 && dt != DType::Float64)
    unsupported_dtype(name, dt, "float16, bfloat16, float32, float64");
  return half ? DType::Float32 : dt;
}

}  // namespace

void softmax(const Tensor& x, int64_t axis, bool log, const Tensor& out) {
  const char* name = log ? "log_softmax" : "softmax";
  const auto [outer, n, inner] = split_at_axis(x, axis, name);
  if (x.numel() == 0) return;
  const DType ct = compute_dtype(out.dtype(), name);
  const bool half = ct != out.dtype();
  const Tensor* xc = &x;
  const Tensor* oc = &out;
  Tensor xcopy, ocopy;
  if (!x.is_contiguous() || x.dtype() != ct) {
    xcopy = Tensor::make(x.shape(), ct);
    copy(x, xcopy);
    xc = &xcopy;
  }
  if (!out.is_contiguous() || half) {
    ocopy = Tensor::make(out.shape(), ct);
    oc = &ocopy;
  }
  if (ct == DType::Float32) {
    const CpuIsa isa = cpu_isa();
    const bool avx512 = isa == CpuIsa::Avx512, avx2 = isa == CpuIsa::Avx2;
    run<float>(static_cast<const float*>(xc->raw_data()), static_cast<float*>(oc->raw_data()),
               outer, n, inner, log, avx512 ? rows_f32_avx512 : avx2 ? rows_f32_avx2 : rows_f32_base,
               avx512 ? strided_f32_avx512 : avx2 ? strided_f32_avx2 : strided_f32_base);
  } else {
    run<double>(static_cast<const double*>(xc->raw_data()), static_cast<double*>(oc->raw_data()),
                outer, n, inner, log, rows_f64, strided_f64);
  }
  if (oc != &out) copy(*oc, out);
}

void softmax_grad(const Tensor& out, const Tensor& grad, int64_t axis, bool log, const Tensor& dx) {
  const char* name = log ? "log_softmax_grad" : "softmax_grad";
  const auto [outer, n, inner] = split_at_axis(out, axis, name);
  if (out.numel() == 0) return;
  const DType ct = compute_dtype(dx.dtype(), name);
  auto compute_copy = [&](const Tensor& t) { return t.is_contiguous() && t.dtype() == ct ? t : as_contiguous(t, ct); };
  const Tensor y = compute_copy(out), g = compute_copy(grad);
  const bool direct = dx.is_contiguous() && dx.dtype() == ct;
  const Tensor d = direct ? dx : Tensor::make(dx.shape(), ct);
  if (ct == DType::Float32 && inner == 1) {
    const CpuIsa isa = cpu_isa();
    const auto rows = isa == CpuIsa::Avx512 ? grad_rows_f32_avx512 : isa == CpuIsa::Avx2 ? grad_rows_f32_avx2
                                                                                        : grad_rows_f32_base;
    const float* yp = y.data<float>();
    const float* gp = g.data<float>();
    float* dp = d.data<float>();
    const int64_t len = n;  // a structured binding cannot be captured before C++20 in clang < 16
    parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(len, 1)),
                 [&](int64_t r0, int64_t r1) { rows(yp, gp, dp, r0, r1, len, log); });
  } else if (ct == DType::Float32) {
    grad_strided<float>(y.data<float>(), g.data<float>(), d.data<float>(), outer, n, inner, log);
  } else {
    grad_strided<double>(y.data<double>(), g.data<double>(), d.data<double>(), outer, n, inner, log);
  }
  if (!direct) copy(d, dx);
}

void softmax_mask(const Tensor& x, const Tensor& mask, bool upper_triangle, const Tensor& out) {
  const char* name = upper_triangle ? "softmax_mask_fuse_upper_triangle" : "softmax_mask_fuse";
  if (x.numel() == 0) return;
  const DType ct = compute_dtype(out.dtype(), name);
  const int64_t n = x.shape().back(), rows = x.numel() / n;
  const int64_t sq = x.ndim() >= 2 ? x.shape()[x.ndim() - 2] : 1;
  const Tensor xc = as_contiguous(x, ct);
  // The mask as a view of x's shape (broadcast dims of stride 0): row r's mask starts at
  // mask_offset(r) and steps by its last stride.
  Tensor mv;
  std::vector<int64_t> mshape, mstride;
  if (mask.defined()) {
    mv = as_contiguous(mask, ct);
    const int64_t pad = x.ndim() - mv.ndim();
    mshape.assign(x.ndim(), 1);
    mstride.assign(x.ndim(), 0);
    int64_t st = 1;
    for (int64_t d = mv.ndim() - 1; d >= 0; --d) {
      mshape[pad + d] = mv.shape()[d];
      mstride[pad + d] = mv.shape()[d] == 1 ? 0 : st;
      st *= mv.shape()[d];
    }
  }
  auto mask_offset = [&](int64_t r) {  // r indexes x's rows (all dims but the last)
    int64_t off = 0;
    for (int64_t d = x.ndim() - 2; d >= 0; --d) {
      const int64_t i = r % x.shape()[d];
      r /= x.shape()[d];
      off += i * mstride[d];
    }
    return off;
  };
  const bool direct = out.is_contiguous() && out.dtype() == ct;
  const Tensor o = direct ? out : Tensor::make(out.shape(), ct);
  auto body = [&](auto tag, auto row_fn) {
    using C = decltype(tag);
    const C* xp = xc.data<C>();
    const C* mp = mask.defined() ? mv.data<C>() : nullptr;
    const int64_t mlast = mask.defined() ? mstride.back() : 0;
    C* op = o.data<C>();
    const C neg_inf = -std::numeric_limits<C>::infinity();
    parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(n, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const C* xr = xp + r * n;
        C* yr = op + r * n;
        if (mp) {
          const C* m = mp + mask_offset(r);
          for (int64_t j = 0; j < n; ++j) yr[j] = xr[j] + m[j * mlast];
        } else {
          std::copy(xr, xr + n, yr);
        }
        if (upper_triangle) {  // row i of its [S, S] matrix keeps columns 0..i
          const int64_t i = r % sq;
          for (int64_t j = i + 1; j < n; ++j) yr[j] = neg_inf;
        }
        row_fn(yr, yr, 0, 1, n, false);
      }
    });
  };
  if (ct == DType::Float32) {
    const CpuIsa isa = cpu_isa();
    body(float{}, isa == CpuIsa::Avx512 ? rows_f32_avx512 : isa == CpuIsa::Avx2 ? rows_f32_avx2 : rows_f32_base);
  } else {
    body(double{}, rows_f64);
  }
  if (!direct) copy(o, out);
}

}  // namespace oar::kernels
