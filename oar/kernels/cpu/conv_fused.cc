#include "oar/kernels/cpu/conv_fused.h"

#include <algorithm>

#include "oar/kernels/cpu/blocked_layout.h"
#include "oar/kernels/cpu/conv.h"
#include "oar/kernels/cpu/conv_onednn.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/shape.h"

namespace oar::kernels {

namespace {

// The plain [N, C, H, W] shape of a plain or blocked activation with C channels.
Shape plain_shape(const Tensor& t, int64_t channels) {
  const Shape& s = t.shape();
  return s.size() == 5 ? Shape{s[0], channels, s[2], s[3]} : s;
}

Tensor as_plain(const Tensor& t, int64_t channels) {
  if (t.ndim() != 5) return t;
  Tensor p = Tensor::make(plain_shape(t, channels), DType::Float32);
  to_plain(t, p);
  return p;
}

// Without oneDNN: the plain kernel, then the residual and the activation, then the layout.
void fallback(const ConvShape& s, const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& residual,
              const IntArray& stride, const IntArray& padding, const IntArray& dilation, int64_t groups,
              bool relu, bool blocked_out, const Tensor& out) {
  const Tensor y = blocked_out ? Tensor::make({s.N, s.M, s.out[1], s.out[2]}, DType::Float32) : out;
  conv_forward(as_plain(x, s.C), w, bias, stride, padding, dilation, groups, false, y);
  if (residual.defined()) binary(BinaryOp::Add, y, as_plain(residual, s.M), y);
  if (relu) {  // NaN becomes 0, as the relu op and the primitive's clip post-op
    float* yp = static_cast<float*>(y.raw_data());
    for (int64_t i = 0, n = y.numel(); i < n; ++i) yp[i] = yp[i] > 0.0f ? yp[i] : 0.0f;
  }
  if (blocked_out) to_blocked(y, out);
}

}  // namespace

void conv2d_fused(const Tensor& x0, const Tensor& w0, const Tensor& b0, const Tensor& r0,
                  const IntArray& stride, const IntArray& padding, const IntArray& dilation, int64_t groups,
                  const std::string& activation, bool blocked_out, const Tensor& out) {
  if (out.numel() == 0) return;
  const Tensor x = as_contiguous(x0), w = as_contiguous(w0), b = as_contiguous(b0), r = as_contiguous(r0);
  const int64_t C = w.shape()[1] * groups, M = w.shape()[0];
  const Shape out_plain = blocked_out ? Shape{out.shape()[0], M, out.shape()[2], out.shape()[3]} : out.shape();
  const ConvShape s = conv_shape(plain_shape(x, C), w.shape(), out_plain, stride, padding, dilation, groups, false);
  const bool relu = activation == "relu";
  onednn::FusedConv f;
  f.blocked_in = x.ndim() == 5;
  f.blocked_out = blocked_out;
  f.relu = relu;
  f.residual = r.defined() ? static_cast<const float*>(r.raw_data()) : nullptr;
  if (x.numel() > 0 &&
      onednn::conv_forward_fused(s, f, static_cast<const float*>(x.raw_data()),
                                 static_cast<const float*>(w.raw_data()),
                                 b.defined() ? static_cast<const float*>(b.raw_data()) : nullptr,
                                 static_cast<float*>(out.raw_data()), w.storage()))
    return;
  fallback(s, x, w, b, r, stride, padding, dilation, groups, relu, blocked_out, out);
}

}  // namespace oar::kernels
