#include "oar/kernels/cpu/im2col.h"

#include <algorithm>
#include <cstring>

#include "oar/core/parallel.h"

namespace oar::kernels {
namespace {

// The output positions o in [0, n_out) whose input position o * stride + off lies in [0, n_in):
// a contiguous range [o0, o1).
inline void valid_range(int64_t off, int64_t stride, int64_t n_in, int64_t n_out, int64_t& o0,
                        int64_t& o1) {
  o0 = off >= 0 ? 0 : (-off + stride - 1) / stride;
  o1 = n_in - off <= 0 ? 0 : std::min(n_out, (n_in - off + stride - 1) / stride);
  o0 = std::min(o0, o1);
}

// Rows of the patch matrix below this many elements are not worth a thread.
constexpr int64_t kGrain = 1 << 15;

}  // namespace

template <typename T>
void im2col(const ConvShape& s, const T* x, int64_t channels, T* col) {
  const int64_t D = s.in[0], H = s.in[1], W = s.in[2];
  const int64_t Do = s.out[0], Ho = s.out[1], Wo = s.out[2], P = s.out_size();
  const int64_t kvol = s.k_size(), sw = s.stride[2];
  // One row of the patch matrix per (c, i, j, l); rows are independent.
  parallel_for(0, channels * kvol, std::max<int64_t>(1, kGrain / std::max<int64_t>(P, 1)),
               [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t c = r / kvol, ijl = r % kvol;
      const int64_t i = ijl / (s.k[1] * s.k[2]), j = ijl / s.k[2] % s.k[1], l = ijl % s.k[2];
      T* row = col + r * P;
      const int64_t off_w = l * s.dil[2] - s.pad[2];
      int64_t w0, w1;
      valid_range(off_w, sw, W, Wo, w0, w1);
      for (int64_t od = 0; od < Do; ++od) {
        const int64_t id = od * s.stride[0] - s.pad[0] + i * s.dil[0];
        for (int64_t oh = 0; oh < Ho; ++oh, row += Wo) {
          const int64_t ih = oh * s.stride[1] - s.pad[1] + j * s.dil[1];
          if (id < 0 || id >= D || ih < 0 || ih >= H || w0 == w1) {
            std::fill(row, row + Wo, T(0));
            continue;
          }
          const T* xr = x + ((c * D + id) * H + ih) * W + off_w;
          std::fill(row, row + w0, T(0));
          if (sw == 1) {
            std::memcpy(row + w0, xr + w0, static_cast<size_t>(w1 - w0) * sizeof(T));
          } else {
            for (int64_t ow = w0; ow < w1; ++ow) row[ow] = xr[ow * sw];
          }
          std::fill(row + w1, row + Wo, T(0));
        }
      }
    }
  });
}

template <typename T>
void col2im(const ConvShape& s, const T* col, int64_t channels, T* dx) {
  const int64_t D = s.in[0], H = s.in[1], W = s.in[2];
  const int64_t Do = s.out[0], Ho = s.out[1], Wo = s.out[2], P = s.out_size();
  const int64_t kvol = s.k_size(), sw = s.stride[2];
  // Channels own disjoint planes of dx: threads split them.
  parallel_for(0, channels, std::max<int64_t>(1, kGrain / std::max<int64_t>(P * kvol, 1)),
               [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      for (int64_t ijl = 0; ijl < kvol; ++ijl) {
        const int64_t i = ijl / (s.k[1] * s.k[2]), j = ijl / s.k[2] % s.k[1], l = ijl % s.k[2];
        const T* row = col + (c * kvol + ijl) * P;
        const int64_t off_w = l * s.dil[2] - s.pad[2];
        int64_t w0, w1;
        valid_range(off_w, sw, W, Wo, w0, w1);
        for (int64_t od = 0; od < Do; ++od) {
          const int64_t id = od * s.stride[0] - s.pad[0] + i * s.dil[0];
          for (int64_t oh = 0; oh < Ho; ++oh, row += Wo) {
            const int64_t ih = oh * s.stride[1] - s.pad[1] + j * s.dil[1];
            if (id < 0 || id >= D || ih < 0 || ih >= H) continue;
            T* xr = dx + ((c * D + id) * H + ih) * W + off_w;
            if (sw == 1) {
              for (int64_t ow = w0; ow < w1; ++ow) xr[ow] += row[ow];
            } else {
              for (int64_t ow = w0; ow < w1; ++ow) xr[ow * sw] += row[ow];
            }
          }
        }
      }
    }
  });
}

template <typename T>
void im2col_cl(const ConvShape& s, const T* x, int64_t c0, int64_t channels, T* col) {
  const int64_t D = s.in[0], H = s.in[1], W = s.in[2];
  const int64_t Ho = s.out[1], Wo = s.out[2], P = s.out_size();
  const int64_t kvol = s.k_size(), K = kvol * channels;
  parallel_for(0, P, std::max<int64_t>(1, kGrain / std::max<int64_t>(K, 1)),
               [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t od = p / (Ho * Wo), oh = p / Wo % Ho, ow = p % Wo;
      T* row = col + p * K;
      for (int64_t i = 0; i < s.k[0]; ++i) {
        const int64_t id = od * s.stride[0] - s.pad[0] + i * s.dil[0];
        for (int64_t j = 0; j < s.k[1]; ++j) {
          const int64_t ih = oh * s.stride[1] - s.pad[1] + j * s.dil[1];
          for (int64_t l = 0; l < s.k[2]; ++l, row += channels) {
            const int64_t iw = ow * s.stride[2] - s.pad[2] + l * s.dil[2];
            if (id < 0 || id >= D || ih < 0 || ih >= H || iw < 0 || iw >= W) {
              std::fill(row, row + channels, T(0));
            } else {
              std::memcpy(row, x + ((id * H + ih) * W + iw) * s.C + c0,
                          static_cast<size_t>(channels) * sizeof(T));
            }
          }
        }
      }
    }
  });
}

template <typename T>
void col2im_cl(const ConvShape& s, const T* col, int64_t c0, int64_t channels, T* dx) {
  const int64_t D = s.in[0], H = s.in[1], W = s.in[2];
  const int64_t Ho = s.out[1], Wo = s.out[2], P = s.out_size();
  // Windows overlap, so one thread walks all positions (the caller parallelises over images).
  for (int64_t p = 0; p < P; ++p) {
    const int64_t od = p / (Ho * Wo), oh = p / Wo % Ho, ow = p % Wo;
    const T* row = col + p * s.k_size() * channels;
    for (int64_t i = 0; i < s.k[0]; ++i) {
      const int64_t id = od * s.stride[0] - s.pad[0] + i * s.dil[0];
      for (int64_t j = 0; j < s.k[1]; ++j) {
        const int64_t ih = oh * s.stride[1] - s.pad[1] + j * s.dil[1];
        for (int64_t l = 0; l < s.k[2]; ++l, row += channels) {
          const int64_t iw = ow * s.stride[2] - s.pad[2] + l * s.dil[2];
          if (id < 0 || id >= D || ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
          T* dst = dx + ((id * H + ih) * W + iw) * s.C + c0;
          for (int64_t c = 0; c < channels; ++c) dst[c] += row[c];
        }
      }
    }
  }
}

#define OAR_INSTANTIATE(T)                                                          \
  template void im2col<T>(const ConvShape&, const T*, int64_t, T*);                 \
  template void col2im<T>(const ConvShape&, const T*, int64_t, T*);                 \
  template void im2col_cl<T>(const ConvShape&, const T*, int64_t, int64_t, T*);     \
  template void col2im_cl<T>(const ConvShape&, const T*, int64_t, int64_t, T*);
OAR_INSTANTIATE(float)
OAR_INSTANTIATE(double)
#undef OAR_INSTANTIATE

}  // namespace oar::kernels
