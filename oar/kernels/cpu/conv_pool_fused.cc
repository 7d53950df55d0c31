#include "oar/kernels/cpu/conv_pool_fused.h"

#include <algorithm>
#include <cfloat>
#include <cstring>
#include <limits>
#include <immintrin.h>

#include "oar/core/cpu_isa.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/pool.h"
#include "oar/kernels/cpu/shape.h"

namespace oar::kernels {

namespace {

// Filters and 16-column vectors computed together: 8 independent accumulators, enough to keep
// the FMA units busy (one filter and one vector would wait on each multiply-add's latency).
constexpr int64_t kLanes = 16, kFilters = 4, kVectors = 2, kColumns = kLanes * kVectors;
// Multiply-adds per parallel chunk: enough work to pay for waking the thread team.
constexpr int64_t kGrainMacs = 1 << 16;

struct Geometry {
  int64_t C, H, W, M, kh, kw, pt, pl;            // input, filters, padding before
  int64_t OH, OW, row_len;                       // convolution output; OW rounded up to kColumns
  int64_t PH, PW, pkh, pkw, psh, psw, ppt, ppl;  // pool output, kernel, stride, padding before
  int64_t HP, WP;                                // the zero-padded input plane (WP: row_len + kw - 1)
};

// x's image n, zero-padded by the convolution's padding, into pad[C][HP][WP].
void pad_image(const Geometry& g, const float* x, float* pad) {
  std::memset(pad, 0, sizeof(float) * g.C * g.HP * g.WP);
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t h = 0; h < g.H; ++h)
      std::memcpy(pad + (c * g.HP + h + g.pt) * g.WP + g.pl, x + (c * g.H + h) * g.W, sizeof(float) * g.W);
}

// best[f][0, row_len) = for filters m[f], the column-wise maximum of convolution rows [r0, r1)
// (r0 < r1), bias and activation applied: the vertical half of the pool's windows. A NaN in any
// row wins (pool.h's pool_better). 512-bit vectors where the CPU has AVX-512, else plain lanes.
OAR_TARGET_AVX512 void window_rows_max_avx512(const Geometry& g, const float* pad, const float* w,
                                              const float* bias, const int64_t* m, bool relu, int64_t r0,
                                              int64_t r1, float (*best)[kConvPoolMaxRow]) {
  const int64_t taps = g.C * g.kh * g.kw;
  for (int64_t x0 = 0; x0 < g.OW; x0 += kColumns) {
    __m512 mx[kFilters][kVectors];
    __mmask16 nan[kFilters][kVectors] = {};
    for (int64_t r = r0; r < r1; ++r) {
      __m512 acc[kFilters][kVectors];
      for (int64_t f = 0; f < kFilters; ++f)
        for (int64_t v = 0; v < kVectors; ++v) acc[f][v] = _mm512_setzero_ps();
      for (int64_t c = 0; c < g.C; ++c)
        for (int64_t i = 0; i < g.kh; ++i) {
          const float* src = pad + (c * g.HP + r + i) * g.WP + x0;
          const int64_t tap = (c * g.kh + i) * g.kw;
          for (int64_t j = 0; j < g.kw; ++j) {
            __m512 in[kVectors];
            for (int64_t v = 0; v < kVectors; ++v) in[v] = _mm512_loadu_ps(src + j + v * kLanes);
            for (int64_t f = 0; f < kFilters; ++f) {
              const __m512 wv = _mm512_set1_ps(w[m[f] * taps + tap + j]);
              for (int64_t v = 0; v < kVectors; ++v) acc[f][v] = _mm512_fmadd_ps(wv, in[v], acc[f][v]);
            }
          }
        }
      for (int64_t f = 0; f < kFilters; ++f)
        for (int64_t v = 0; v < kVectors; ++v) {
          __m512 y = _mm512_add_ps(acc[f][v], _mm512_set1_ps(bias[f]));
          // max(y, 0) returns its second operand when y is NaN: 0, as the relu op.
          if (relu) y = _mm512_max_ps(y, _mm512_setzero_ps());
          nan[f][v] |= _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q);
          mx[f][v] = r == r0 ? y : _mm512_max_ps(y, mx[f][v]);  // mx when y is NaN; the mask restores it
        }
    }
    const __m512 qnan = _mm512_set1_ps(std::numeric_limits<float>::quiet_NaN());
    for (int64_t f = 0; f < kFilters; ++f)
      for (int64_t v = 0; v < kVectors; ++v)
        _mm512_storeu_ps(best[f] + x0 + v * kLanes, _mm512_mask_mov_ps(mx[f][v], nan[f][v], qnan));
  }
}

void window_rows_max_lanes(const Geometry& g, const float* pad, const float* w, const float* bias,
                           const int64_t* m, bool relu, int64_t r0, int64_t r1,
                           float (*best)[kConvPoolMaxRow]) {
  const int64_t taps = g.C * g.kh * g.kw;
  for (int64_t x0 = 0; x0 < g.OW; x0 += kColumns) {
    for (int64_t f = 0; f < kFilters; ++f)
      for (int64_t l = 0; l < kColumns; ++l)
        for (int64_t r = r0; r < r1; ++r) {
          float acc = 0.0f;
          for (int64_t c = 0; c < g.C; ++c)
            for (int64_t i = 0; i < g.kh; ++i)
              for (int64_t j = 0; j < g.kw; ++j)
                acc +=
                    w[m[f] * taps + (c * g.kh + i) * g.kw + j] * pad[(c * g.HP + r + i) * g.WP + x0 + l + j];
          float y = acc + bias[f];
          if (relu) y = y > 0.0f ? y : 0.0f;
          best[f][x0 + l] = r == r0 || pool_better(y, best[f][x0 + l]) ? y : best[f][x0 + l];
        }
  }
}

void window_rows_max(const Geometry& g, const float* pad, const float* w, const float* bias, const int64_t* m,
                     bool relu, int64_t r0, int64_t r1, float (*best)[kConvPoolMaxRow]) {
  static const bool wide = cpu_isa() == CpuIsa::Avx512;
  (wide ? window_rows_max_avx512 : window_rows_max_lanes)(g, pad, w, bias, m, relu, r0, r1, best);
}

// 2-wide windows at stride 2, none clipped (LeNet's, VGG's), with AVX-512: pairs of columns,
// 16 outputs a step.
OAR_TARGET_AVX512 void column_pairs_max_avx512(const Geometry& g, const float* best, float* orow) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const __m512 qnan = _mm512_set1_ps(std::numeric_limits<float>::quiet_NaN());
  for (int64_t pw = 0; pw < g.PW; pw += kLanes) {
    const __m512 a = _mm512_loadu_ps(best + 2 * pw), b = _mm512_loadu_ps(best + 2 * pw + kLanes);
    const __m512 left = _mm512_permutex2var_ps(a, even, b), right = _mm512_permutex2var_ps(a, odd, b);
    const __mmask16 nan =
        _mm512_cmp_ps_mask(left, left, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(right, right, _CMP_UNORD_Q);
    const __m512 y = _mm512_mask_mov_ps(_mm512_max_ps(right, left), nan, qnan);
    const int64_t n = std::min(kLanes, g.PW - pw);
    _mm512_mask_storeu_ps(orow + pw, static_cast<__mmask16>((1u << n) - 1), y);
  }
}

// The horizontal half of the windows of one output row: orow[pw] = the maximum of best over the
// window's columns; an empty window is -FLT_MAX, as pool_max.
void window_columns_max(const Geometry& g, const float* best, bool rows_empty, float* orow) {
  static const bool wide = cpu_isa() == CpuIsa::Avx512;
  if (wide && !rows_empty && g.pkw == 2 && g.psw == 2 && g.ppl == 0 && 2 * g.PW <= g.OW) {
    column_pairs_max_avx512(g, best, orow);
    return;
  }
  for (int64_t pw = 0; pw < g.PW; ++pw) {
    const int64_t c0 = std::max<int64_t>(pw * g.psw - g.ppl, 0),
                  c1 = std::min(pw * g.psw - g.ppl + g.pkw, g.OW);
    if (rows_empty || c0 >= c1) {
      orow[pw] = -FLT_MAX;
      continue;
    }
    float v = best[c0];
    for (int64_t c = c0 + 1; c < c1; ++c) v = pool_better(best[c], v) ? best[c] : v;
    orow[pw] = v;
  }
}

}  // namespace

void conv2d_max_pool_fused(const Tensor& x0, const Tensor& w0, const Tensor& b0, const IntArray& padding,
                           const std::string& activation, const IntArray& pool_kernel,
                           const IntArray& pool_stride, const IntArray& pool_padding, const Tensor& out) {
  if (out.numel() == 0) return;
  const Tensor x = as_contiguous(x0), w = as_contiguous(w0), b = as_contiguous(b0);
  const Shape &xs = x.shape(), &ws = w.shape(), &os = out.shape();
  Geometry g{};
  g.C = xs[1], g.H = xs[2], g.W = xs[3], g.M = ws[0], g.kh = ws[2], g.kw = ws[3];
  g.pt = padding[0], g.pl = padding[2];
  g.OH = g.H + padding[0] + padding[1] - g.kh + 1;
  g.OW = g.W + padding[2] + padding[3] - g.kw + 1;
  g.row_len = (g.OW + kColumns - 1) / kColumns * kColumns;
  OAR_ENFORCE(g.row_len <= kConvPoolMaxRow, InvalidArgument, "conv2d_max_pool_fused: convolution rows of ",
              g.OW, " exceed ", kConvPoolMaxRow);
  g.PH = os[2], g.PW = os[3];
  g.pkh = pool_kernel[0], g.pkw = pool_kernel[1], g.psh = pool_stride[0], g.psw = pool_stride[1];
  g.ppt = pool_padding[0], g.ppl = pool_padding[2];
  g.HP = g.H + padding[0] + padding[1];
  g.WP = g.row_len + g.kw - 1;  // every vector of every tap reads inside the row
  const float* xp = static_cast<const float*>(x.raw_data());
  const float* wp = static_cast<const float*>(w.raw_data());
  const float* bp = b.defined() ? static_cast<const float*>(b.raw_data()) : nullptr;
  float* op = static_cast<float*>(out.raw_data());
  const bool relu = activation == "relu";
  // Tasks: (image, group of kFilters filters, output row), image-major so a chunk pads few images.
  const int64_t groups = (g.M + kFilters - 1) / kFilters, tasks = xs[0] * groups * g.PH;
  const int64_t macs = std::max<int64_t>(1, g.pkh * g.row_len * kFilters * g.C * g.kh * g.kw);
  parallel_for(0, tasks, std::max<int64_t>(1, kGrainMacs / macs), [&](int64_t begin, int64_t end) {
    // This chunk's padded copy of the image its tasks read (from the allocator: it counts in the peak).
    const Tensor pad_t = Tensor::make({g.C, g.HP, g.WP}, DType::Float32);
    float* pad = static_cast<float*>(pad_t.raw_data());
    int64_t padded_n = -1;
    alignas(64) float best[kFilters][kConvPoolMaxRow];
    for (int64_t t = begin; t < end; ++t) {
      const int64_t n = t / (groups * g.PH), group = t / g.PH % groups, ph = t % g.PH;
      if (n != padded_n) {
        pad_image(g, xp + n * g.C * g.H * g.W, pad);
        padded_n = n;
      }
      int64_t m[kFilters];
      float bias[kFilters];
      for (int64_t f = 0; f < kFilters; ++f) {
        m[f] = std::min(group * kFilters + f, g.M - 1);  // past the last filter: computed, not written
        bias[f] = bp ? bp[m[f]] : 0.0f;
      }
      const int64_t r0 = std::max<int64_t>(ph * g.psh - g.ppt, 0),
                    r1 = std::min(ph * g.psh - g.ppt + g.pkh, g.OH);
      if (r0 < r1) window_rows_max(g, pad, wp, bias, m, relu, r0, r1, best);
      for (int64_t f = 0; f < kFilters && group * kFilters + f < g.M; ++f)
        window_columns_max(g, best[f], r0 >= r1, op + ((n * g.M + m[f]) * g.PH + ph) * g.PW);
    }
  });
}

}  // namespace oar::kernels
