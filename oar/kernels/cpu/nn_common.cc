#include "oar/kernels/cpu/nn_common.h"

#include <algorithm>
#include <cstring>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/convert.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/half_compute.h"
#include "plugins/common/philox.h"

namespace oar::kernels {
namespace {

// Ids as int64 (contiguous).
std::vector<int64_t> ids_of(const Tensor& ids, const char* op) {
  const Tensor c = ids.contiguous();
  std::vector<int64_t> v(static_cast<size_t>(c.numel()));
  dispatch_integral(c.dtype(), op, [&](auto tag) {
    using I = decltype(tag);
    const I* p = c.data<I>();
    for (int64_t i = 0; i < c.numel(); ++i) v[i] = static_cast<int64_t>(p[i]);
  });
  return v;
}

}  // namespace

void embedding(const Tensor& ids, const Tensor& weight, int64_t padding_idx, const Tensor& out) {
  const std::vector<int64_t> id = ids_of(ids, "embedding");
  const int64_t rows = weight.shape()[0], D = weight.shape()[1];
  for (size_t i = 0; i < id.size(); ++i)
    OAR_ENFORCE_ARG(id[i] >= 0 && id[i] < rows, "embedding: argument 'x' holds id ", id[i],
                    " at flat position ", i, ": expected ids in [0, ", rows, ")");
  dispatch_floating(weight.dtype(), "embedding", [&](auto tag) {  // a row copy: any float type
    using T = decltype(tag);
    const Tensor wc = weight.contiguous();
    const T* w = wc.data<T>();
    T* o = out.data<T>();
    const int64_t n = static_cast<int64_t>(id.size());
    parallel_for(0, n, std::max<int64_t>(1, 16384 / std::max<int64_t>(D, 1)),
                 [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        if (id[i] == padding_idx) std::fill(o + i * D, o + (i + 1) * D, T(0));
        else std::memcpy(o + i * D, w + id[i] * D, sizeof(T) * static_cast<size_t>(D));
      }
    });
  });
}

void embedding_grad(const Tensor& ids, const Tensor& grad, int64_t padding_idx,
                    const Tensor& dweight) {
  if (is_half_dtype(dweight.dtype())) {  // repeated ids add up: sum in float32
    Tensor d32 = float32_like(dweight);
    embedding_grad(ids, to_float32(grad), padding_idx, d32);
    return copy(d32, dweight);
  }
  const std::vector<int64_t> id = ids_of(ids, "embedding_grad");
  const int64_t rows = dweight.shape()[0], D = dweight.shape()[1];
  dispatch_f32_f64(dweight.dtype(), "embedding_grad", [&](auto tag) {
    using T = decltype(tag);
    const Tensor gc = grad.contiguous();
    const T* g = gc.data<T>();
    T* dw = dweight.data<T>();
    const int64_t n = static_cast<int64_t>(id.size());
    // Each task owns a band of table rows: it zeroes them and adds the grads of the ids that
    // fall in it, so no two threads write one row and the sums are in id order.
    const int64_t tasks = std::max<int64_t>(1, std::min<int64_t>(get_num_threads() * 4, rows));
    parallel_for(0, tasks, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t lo = rows * t / tasks, hi = rows * (t + 1) / tasks;
        std::memset(static_cast<void*>(dw + lo * D), 0, sizeof(T) * static_cast<size_t>((hi - lo) * D));
        for (int64_t i = 0; i < n; ++i) {
          const int64_t r = id[i];
          if (r < lo || r >= hi || r == padding_idx) continue;
          T* dr = dw + r * D;
          const T* gr = g + i * D;
#pragma omp simd
          for (int64_t j = 0; j < D; ++j) dr[j] += gr[j];
        }
      }
    });
  });
}

void one_hot(const Tensor& x, const Tensor& out) {
  const std::vector<int64_t> id = ids_of(x, "one_hot");
  const int64_t C = out.shape().back();
  for (size_t i = 0; i < id.size(); ++i)
    OAR_ENFORCE_ARG(id[i] >= 0 && id[i] < C, "one_hot: argument 'x' holds ", id[i],
                    " at flat position ", i, ": expected values in [0, num_classes=", C, ")");
  dispatch_real(out.dtype(), "one_hot", [&](auto tag) {
    using T = decltype(tag);
    T* o = out.data<T>();
    std::fill(o, o + out.numel(), convert<T>(0));
    for (size_t i = 0; i < id.size(); ++i) o[i * C + id[i]] = convert<T>(1);
  });
}

void dropout_mask(double p, double keep_value, uint64_t seed, uint64_t offset,
                  const Tensor& mask) {
  const int64_t n = mask.numel();
  dispatch_floating(mask.dtype(), "dropout", [&](auto tag) {
    using T = decltype(tag);
    T* m = mask.data<T>();
    const T keep = convert<T>(keep_value);
    const T zero = convert<T>(0.0);
    // One Philox block gives 4 draws: element i uses lane i % 4 of counter offset + i / 4.
    parallel_for(0, (n + 3) / 4, 2048, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const oar_rng::Block r = oar_rng::philox4x32(offset + static_cast<uint64_t>(b), 0, seed);
        for (int64_t j = 0; j < 4 && b * 4 + j < n; ++j)
          m[b * 4 + j] = oar_rng::dropout_drops(r.w[j], p) ? zero : keep;
      }
    });
  });
}

// ---------------------------------------------------------------- pad
PadMode pad_mode(const std::string& mode, const char* op) {
  if (mode == "constant") return PadMode::Constant;
  if (mode == "reflect") return PadMode::Reflect;
  if (mode == "replicate") return PadMode::Replicate;
  if (mode == "circular") return PadMode::Circular;
  OAR_THROW(InvalidArgument, op, ": argument 'mode' must be one of 'constant', 'reflect', 'replicate', "
                "'circular', got '", mode, "'");
}

namespace {
// For each dim, the source index of every output position (-1: the constant value).
std::vector<std::vector<int64_t>> source_maps(const Shape& in, const std::vector<int64_t>& pads,
                                              PadMode mode) {
  std::vector<std::vector<int64_t>> maps(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t n = in[d], before = pads[2 * d], after = pads[2 * d + 1];
    auto& m = maps[d];
    m.resize(static_cast<size_t>(n + before + after));
    for (int64_t o = 0; o < n + before + after; ++o) {
      int64_t i = o - before;
      if (i < 0 || i >= n) {
        switch (mode) {
          case PadMode::Constant: i = -1; break;
          case PadMode::Replicate: i = std::clamp<int64_t>(i, 0, n - 1); break;
          case PadMode::Reflect: {
            const int64_t period = 2 * (n - 1);
            i = period == 0 ? 0 : ((i % period) + period) % period;
            if (i >= n) i = period - i;
            break;
          }
          case PadMode::Circular: i = ((i % n) + n) % n; break;
        }
      }
      m[o] = i;
    }
  }
  return maps;
}

// The input offset of output row r's leading dims (all dims but the last), or -1 when the row
// lies in the padding of a constant pad.
int64_t row_source(int64_t r, const std::vector<std::vector<int64_t>>& maps, const Shape& os,
                   const Strides& is) {
  int64_t rem = r, base = 0;
  bool constant_row = false;
  for (int64_t d = static_cast<int64_t>(os.size()) - 2; d >= 0; --d) {
    const int64_t o = rem % os[d];
    rem /= os[d];
    const int64_t s = maps[d][o];
    if (s < 0) constant_row = true;
    else base += s * is[d];
  }
  return constant_row ? -1 : base;
}
}  // namespace

void pad(const Tensor& x, const std::vector<int64_t>& pads, PadMode mode, double value,
         const Tensor& out) {
  const Shape& in = x.shape();
  const Shape& os = out.shape();
  const int64_t R = x.ndim();
  if (out.numel() == 0) return;
  const auto maps = source_maps(in, pads, mode);
  const Strides is = contiguous_strides(in);
  const int64_t inner = R ? os[R - 1] : 1;
  const int64_t rows = out.numel() / inner;
  dispatch_f32_f64(x.dtype(), "pad", [&](auto tag) {
    using T = decltype(tag);
    const Tensor xc = x.contiguous();
    const T* xp = xc.data<T>();
    T* op = out.data<T>();
    const T fill = static_cast<T>(value);
    parallel_for(0, rows, std::max<int64_t>(1, 16384 / inner), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t base = row_source(r, maps, os, is);
        T* orow = op + r * inner;
        if (base < 0) {
          std::fill(orow, orow + inner, fill);
          continue;
        }
        if (R == 0) {
          orow[0] = xp[0];
          continue;
        }
        const auto& m = maps[R - 1];
        for (int64_t j = 0; j < inner; ++j) orow[j] = m[j] < 0 ? fill : xp[base + m[j]];
      }
    });
  });
}

void pad_grad(const Tensor& grad, const std::vector<int64_t>& pads, PadMode mode,
              const Tensor& dx) {
  const Shape& in = dx.shape();
  const Shape& os = grad.shape();
  const int64_t R = dx.ndim();
  const auto maps = source_maps(in, pads, mode);
  const Strides is = contiguous_strides(in);
  const int64_t inner = R ? os[R - 1] : 1;
  const int64_t rows = inner ? grad.numel() / inner : 0;
  dispatch_f32_f64(dx.dtype(), "pad_grad", [&](auto tag) {
    using T = decltype(tag);
    const Tensor gc = grad.contiguous();
    const T* gp = gc.data<T>();
    T* dp = dx.data<T>();
    std::fill(dp, dp + dx.numel(), T(0));
    if (R == 0) {
      if (grad.numel()) dp[0] = gp[0];
      return;
    }
    // Sequential scatter-add: reflected and circular positions can feed the same input.
    const auto& m = maps[R - 1];
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t base = row_source(r, maps, os, is);
      if (base < 0) continue;
      const T* grow = gp + r * inner;
      for (int64_t j = 0; j < inner; ++j)
        if (m[j] >= 0) dp[base + m[j]] += grow[j];
    }
  });
}

}  // namespace oar::kernels
