#include "oar/kernels/cpu/blocked_layout.h"

#include <algorithm>
#include <cfloat>
#include <cstring>
#include <limits>
#include <immintrin.h>

#include "oar/core/cpu_isa.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/shape.h"

namespace oar::kernels {

namespace {

constexpr int64_t B = kChannelBlock;
// Rows (one block of one image row, or one plane) per parallel chunk: enough work to pay for
// waking the thread team (a few microseconds).
constexpr int64_t kGrainFloats = 1 << 15;

int64_t blocks(int64_t c) { return (c + B - 1) / B; }

// out[0..16) = the lane-wise maximum of x's pixels [h0, h1) x [w0, w1) (-FLT_MAX when the window
// is empty); a NaN anywhere in a lane's window makes that lane NaN, as pool_max. One 512-bit
// vector per pixel where the CPU has AVX-512, else plain lanes.
OAR_TARGET_AVX512 void window_max_avx512(const float* plane, int64_t W, int64_t h0, int64_t h1, int64_t w0,
                                         int64_t w1, float* out) {
  __m512 m = _mm512_set1_ps(-FLT_MAX);
  __mmask16 nan = 0;
  for (int64_t h = h0; h < h1; ++h)
    for (int64_t w = w0; w < w1; ++w) {
      const __m512 v = _mm512_loadu_ps(plane + (h * W + w) * B);
      nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
      m = _mm512_max_ps(v, m);  // m when v is NaN; the mask restores it below
    }
  _mm512_storeu_ps(out, _mm512_mask_mov_ps(m, nan, _mm512_set1_ps(std::numeric_limits<float>::quiet_NaN())));
}

void window_max_lanes(const float* plane, int64_t W, int64_t h0, int64_t h1, int64_t w0, int64_t w1,
                      float* out) {
  float m[B];
  std::fill(m, m + B, -FLT_MAX);
  for (int64_t h = h0; h < h1; ++h)
    for (int64_t w = w0; w < w1; ++w) {
      const float* v = plane + (h * W + w) * B;
      for (int64_t l = 0; l < B; ++l) m[l] = (v[l] > m[l] || v[l] != v[l]) ? v[l] : m[l];  // NaN wins
    }
  std::memcpy(out, m, sizeof(m));
}

inline void window_max(const float* plane, int64_t W, int64_t h0, int64_t h1, int64_t w0, int64_t w1,
                       float* out) {
  static const bool wide = cpu_isa() == CpuIsa::Avx512;
  (wide ? window_max_avx512 : window_max_lanes)(plane, W, h0, h1, w0, w1, out);
}

}  // namespace


namespace {

// body(plain, blocked, lanes) for each (image, channel block) of a plain [N, C, H, W] shape, in
// parallel: `plain` points at the block's first channel plane (HW floats apart), `blocked` at its
// HW x B tile, and `lanes` channels of the block are real (the last block may be partial).
template <typename Body>
void for_each_channel_block(const Shape& plain_shape, float* plain_data, float* blocked_data, Body body) {
  const int64_t N = plain_shape[0], C = plain_shape[1], HW = plain_shape[2] * plain_shape[3], CB = blocks(C);
  parallel_for(0, N * CB, std::max<int64_t>(1, kGrainFloats / std::max<int64_t>(HW * B, 1)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t n = i / CB, cb = i % CB;
      body(plain_data + (n * C + cb * B) * HW, blocked_data + i * HW * B, std::min(B, C - cb * B), HW);
    }
  });
}

}  // namespace

void to_blocked(const Tensor& x0, const Tensor& out) {
  const Tensor x = as_contiguous(x0);
  for_each_channel_block(x.shape(), static_cast<float*>(x.raw_data()), static_cast<float*>(out.raw_data()),
                         [](const float* in, float* o, int64_t lanes, int64_t HW) {
                           for (int64_t p = 0; p < HW; ++p) {
                             for (int64_t l = 0; l < lanes; ++l) o[p * B + l] = in[l * HW + p];
                             for (int64_t l = lanes; l < B; ++l) o[p * B + l] = 0.0f;  // padding lanes
                           }
                         });
}

void to_plain(const Tensor& x, const Tensor& out) {
  for_each_channel_block(out.shape(), static_cast<float*>(out.raw_data()), static_cast<float*>(x.raw_data()),
                         [](float* o, const float* in, int64_t lanes, int64_t HW) {
                           for (int64_t l = 0; l < lanes; ++l)
                             for (int64_t p = 0; p < HW; ++p) o[l * HW + p] = in[p * B + l];
                         });
}

void max_pool2d_blocked(const Tensor& x, const IntArray& kernel, const IntArray& stride,
                        const IntArray& padding, const Tensor& out) {
  const Shape& xs = x.shape();
  const Shape& os = out.shape();
  const int64_t NB = xs[0] * xs[1], H = xs[2], W = xs[3], OH = os[2], OW = os[3];
  const int64_t kh = kernel[0], kw = kernel[1], sh = stride[0], sw = stride[1];
  const int64_t pt = padding[0], pl = padding[2];
  const float* src = static_cast<const float*>(x.raw_data());
  float* dst = static_cast<float*>(out.raw_data());
  const int64_t rows = NB * OH;
  parallel_for(0, rows, std::max<int64_t>(1, kGrainFloats / std::max<int64_t>(OW * B * kh * kw, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t nb = r / OH, oh = r % OH;
      const int64_t h0 = std::max<int64_t>(oh * sh - pt, 0), h1 = std::min(oh * sh - pt + kh, H);
      const float* plane = src + nb * H * W * B;
      float* o = dst + (nb * OH + oh) * OW * B;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const int64_t w0 = std::max<int64_t>(ow * sw - pl, 0), w1 = std::min(ow * sw - pl + kw, W);
        window_max(plane, W, h0, h1, w0, w1, o + ow * B);
      }
    }
  });
}

void global_avg_pool2d_blocked(const Tensor& x, const Tensor& out) {
  const Shape& xs = x.shape();
  const int64_t NB = xs[0] * xs[1], HW = xs[2] * xs[3];
  const float* src = static_cast<const float*>(x.raw_data());
  float* dst = static_cast<float*>(out.raw_data());
  parallel_for(0, NB, std::max<int64_t>(1, kGrainFloats / std::max<int64_t>(HW * B, 1)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      float acc[B] = {};
      const float* p = src + i * HW * B;
      for (int64_t q = 0; q < HW; ++q)
        for (int64_t l = 0; l < B; ++l) acc[l] += p[q * B + l];
      for (int64_t l = 0; l < B; ++l) dst[i * B + l] = acc[l] / static_cast<float>(HW);
    }
  });
}

}  // namespace oar::kernels
