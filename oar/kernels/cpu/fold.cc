#include "oar/kernels/cpu/fold.h"

#include <algorithm>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/im2col.h"

namespace oar::kernels {
namespace {

// The image shape (x: [N, C, H, W]) as a 2-D convolution geometry.
ConvShape shape_of(const Shape& image, const IntArray& kernel, const IntArray& stride,
                   const IntArray& padding, const IntArray& dilation) {
  ConvShape s;
  s.nd = 2;
  s.N = image[0];
  s.C = image[1];
  s.M = s.C;
  for (int d = 0; d < 2; ++d) {
    s.in[1 + d] = image[2 + d];
    s.k[1 + d] = kernel[d];
    s.stride[1 + d] = stride[d];
    s.dil[1 + d] = dilation[d];
    s.pad[1 + d] = padding[d];
    s.pad_after[1 + d] = padding[2 + d];
    s.out[1 + d] = (s.in[1 + d] + padding[d] + padding[2 + d] - (dilation[d] * (kernel[d] - 1) + 1)) /
                       stride[d] + 1;
  }
  return s;
}

}  // namespace

void unfold(const Tensor& x0, const IntArray& kernel, const IntArray& stride,
            const IntArray& padding, const IntArray& dilation, const Tensor& out) {
  if (out.numel() == 0) return;
  const Tensor x = x0.contiguous();
  const ConvShape s = shape_of(x.shape(), kernel, stride, padding, dilation);
  dispatch_floating(x.dtype(), "unfold", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* xp = static_cast<const T*>(x.raw_data());
      T* yp = static_cast<T*>(out.raw_data());
      const int64_t in_img = s.C * s.in_size(), out_img = s.C * s.k_size() * s.out_size();
      // im2col parallelises over the rows of the patch matrix.
      for (int64_t n = 0; n < s.N; ++n) im2col<T>(s, xp + n * in_img, s.C, yp + n * out_img);
    } else {
      unsupported_dtype("unfold", x.dtype(), "float32, float64");
    }
  });
}

void fold(const Tensor& x0, const IntArray& kernel, const IntArray& stride,
          const IntArray& padding, const IntArray& dilation, const Tensor& out) {
  if (out.numel() == 0) return;
  const Tensor x = x0.contiguous();
  const ConvShape s = shape_of(out.shape(), kernel, stride, padding, dilation);
  dispatch_floating(x.dtype(), "fold", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* xp = static_cast<const T*>(x.raw_data());
      T* yp = static_cast<T*>(out.raw_data());
      const int64_t out_img = s.C * s.in_size(), in_img = s.C * s.k_size() * s.out_size();
      parallel_for(0, s.N * s.C, 1, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const int64_t n = r / s.C, c = r % s.C;
          T* dst = yp + n * out_img + c * s.in_size();
          std::fill(dst, dst + s.in_size(), T(0));
          col2im<T>(s, xp + n * in_img + c * s.k_size() * s.out_size(), 1, dst);
        }
      });
    } else {
      unsupported_dtype("fold", x.dtype(), "float32, float64");
    }
  });
}

}  // namespace oar::kernels
