#include "oar/kernels/cpu/swiglu.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/vec_math.h"

namespace oar::kernels {
namespace {

constexpr int64_t kBlock = 512;  // elements per block: the work buffers stay in L1

// out = exp(-in) over a block.
template <typename C>
void exp_neg(const C* in, C* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = -in[i];
  SpanFn<C> fn = nullptr;
  if constexpr (std::is_same_v<C, float>) fn = vec_span_f32(UnaryOp::Exp);
  else fn = vec_span_f64(UnaryOp::Exp);
  if (fn) fn(out, out, n);
  else
    for (int64_t i = 0; i < n; ++i) out[i] = std::exp(out[i]);
}

// Where the a and b spans of row r start (in elements): x's halves, or x and y.
struct Layout {
  int64_t h = 0, rows = 0;       // span length, number of spans
  int64_t row_stride = 0;        // between rows of x (and of dx)
  int64_t b_offset = 0;          // of b within x's row (halves) or 0 (separate y)
  bool halves = false;
};

Layout layout(const Tensor& x, const Tensor& y) {
  Layout l;
  l.halves = !y.defined();
  if (l.halves) {
    l.h = x.ndim() == 0 ? 0 : x.shape().back() / 2;
    l.rows = l.h == 0 ? 0 : x.numel() / (2 * l.h);
    l.row_stride = 2 * l.h;
    l.b_offset = l.h;
  } else {
    l.h = x.numel();
    l.rows = l.h == 0 ? 0 : 1;
    l.row_stride = l.h;
  }
  return l;
}

// f(row, column start, length) over blocks of every row, in parallel.
template <typename F>
void for_blocks(const Layout& l, const F& f) {
  const int64_t per_row = (l.h + kBlock - 1) / kBlock;
  parallel_for(0, l.rows * per_row, 8, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t r = t / per_row, c = (t % per_row) * kBlock;
      f(r, c, std::min(kBlock, l.h - c));
    }
  });
}

}  // namespace

void swiglu(const Tensor& x, const Tensor& y, const Tensor& out) {
  const Layout l = layout(x, y);
  const Tensor xc = x.contiguous(), yc = y.defined() ? y.contiguous() : Tensor();
  dispatch_floating(x.dtype(), "swiglu", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* xp = xc.data<T>();
    const T* bp = l.halves ? xp + l.b_offset : yc.data<T>();
    T* op = out.data<T>();
    for_blocks(l, [&](int64_t r, int64_t c, int64_t n) {
      C a[kBlock], e[kBlock];
      const T* ar = xp + r * l.row_stride + c;
      const T* br = bp + r * l.row_stride + c;
      for (int64_t i = 0; i < n; ++i) a[i] = static_cast<C>(ar[i]);
      exp_neg(a, e, n);
      T* o = op + r * l.h + c;
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(a[i] / (C(1) + e[i]) * static_cast<C>(br[i]));
    });
  });
}

void swiglu_grad(const Tensor& x, const Tensor& y, const Tensor& grad, const Tensor& dx, const Tensor& dy) {
  const Layout l = layout(x, y);
  const Tensor xc = x.contiguous(), yc = y.defined() ? y.contiguous() : Tensor(), gc = grad.contiguous();
  dispatch_floating(x.dtype(), "swiglu_grad", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* xp = xc.data<T>();
    const T* bp = l.halves ? xp + l.b_offset : yc.data<T>();
    const T* gp = gc.data<T>();
    T* dap = dx.defined() ? dx.data<T>() : nullptr;
    // d b: the second half of dx's rows, or dy.
    T* dbp = l.halves ? (dap ? dap + l.b_offset : nullptr) : (dy.defined() ? dy.data<T>() : nullptr);
    for_blocks(l, [&](int64_t r, int64_t c, int64_t n) {
      C a[kBlock], e[kBlock];
      const T* ar = xp + r * l.row_stride + c;
      const T* br = bp + r * l.row_stride + c;
      const T* g = gp + r * l.h + c;
      for (int64_t i = 0; i < n; ++i) a[i] = static_cast<C>(ar[i]);
      exp_neg(a, e, n);
      if (dap) {
        T* d = dap + r * l.row_stride + c;
        for (int64_t i = 0; i < n; ++i) {
          const C s = C(1) / (C(1) + e[i]);  // sigmoid(a)
          d[i] = static_cast<T>(static_cast<C>(g[i]) * static_cast<C>(br[i]) * s * (C(1) + a[i] * (C(1) - s)));
        }
      }
      if (dbp) {
        T* d = dbp + r * l.row_stride + c;
        for (int64_t i = 0; i < n; ++i) d[i] = static_cast<T>(static_cast<C>(g[i]) * a[i] / (C(1) + e[i]));
      }
    });
  });
}

}  // namespace oar::kernels
