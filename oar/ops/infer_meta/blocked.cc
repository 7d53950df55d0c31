#include "oar/ops/infer_meta/blocked.h"

#include "oar/ops/infer_meta/conv.h"
#include "oar/ops/infer_meta/pool.h"

namespace oar::infer_meta {

namespace {

std::string list_str(const IntArray& v) { return shape_str(Shape(v.begin(), v.end())); }

void check_float32(const char* op, const char* name, const Tensor& t) {
  OAR_ENFORCE(t.dtype() == DType::Float32, TypeMismatch, op, ": argument '", name, "' must be float32, got ",
              dtype_name(t.dtype()));
}

int64_t blocks(int64_t c) { return c < 0 ? -1 : (c + kChannelBlock - 1) / kChannelBlock; }

void check_blocked(const char* op, const char* name, const Tensor& t) {
  check_float32(op, name, t);
  OAR_ENFORCE_ARG(t.ndim() == 5 && t.shape()[4] == kChannelBlock, op, ": argument '", name,
                  "' must be channel-blocked [N, C/", kChannelBlock, ", H, W, ", kChannelBlock, "], got ",
                  shape_str(t.shape()));
}

}  // namespace

Shape blocked_shape(const Shape& plain) {
  Shape s = plain;
  s[1] = blocks(plain[1]);
  s.push_back(kChannelBlock);
  return s;
}

Meta conv2d_fused(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias,
                  const Tensor& residual, const IntArray& stride, const IntArray& padding,
                  const IntArray& dilation, int64_t groups, const std::string& activation,
                  bool blocked_out) {
  check_float32(op, "x", x);
  check_float32(op, "weight", weight);
  OAR_ENFORCE_ARG(weight.ndim() == 4, op, ": weight must be [M, C/groups, kh, kw], got ", shape_str(weight.shape()));
  OAR_ENFORCE_ARG(groups > 0 && weight.shape()[0] % groups == 0, op, ": groups (", groups,
                  ") must be positive and divide the ", weight.shape()[0], " filters");
  const int64_t c = weight.shape()[1] * groups, m = weight.shape()[0];
  if (x.ndim() == 5) {
    check_blocked(op, "x", x);
    OAR_ENFORCE_ARG(x.shape()[1] < 0 || x.shape()[1] == blocks(c), op, ": blocked x ", shape_str(x.shape()),
                    " does not hold the ", c, " input channels weight ", shape_str(weight.shape()), " expects");
  } else {
    OAR_ENFORCE_ARG(x.ndim() == 4 && (x.shape()[1] < 0 || x.shape()[1] == c), op, ": x ", shape_str(x.shape()),
                    " must be [N, ", c, ", H, W] for weight ", shape_str(weight.shape()));
  }
  OAR_ENFORCE_ARG(stride.size() == 2 && dilation.size() == 2 && padding.size() == 4, op,
                  ": expected 2 strides, 2 dilations and 4 paddings (resolved form), got ", list_str(stride), ", ",
                  list_str(dilation), ", ", list_str(padding));
  OAR_ENFORCE_ARG(activation == "none" || activation == "relu", op,
                  ": argument 'activation' must be none or relu, got '", activation, "'");
  if (bias.defined()) {
    check_float32(op, "bias", bias);
    OAR_ENFORCE_ARG(bias.ndim() == 1 && bias.shape()[0] == m, op, ": bias must have shape [", m, "], got ",
                    shape_str(bias.shape()));
  }
  Shape out{x.shape()[0], m, 0, 0};
  for (int d = 0; d < 2; ++d) {
    const int64_t in = x.shape()[2 + d];
    out[2 + d] = in < 0 ? -1
                        : conv_out_size(in, weight.shape()[2 + d], stride[d], dilation[d], padding[2 * d],
                                        padding[2 * d + 1]);
    OAR_ENFORCE_ARG(out[2 + d] != 0 && out[2 + d] >= -1, op, ": the output's spatial dim ", d, " would be ",
                    out[2 + d], " for x ", shape_str(x.shape()), " and weight ", shape_str(weight.shape()));
  }
  if (blocked_out) out = blocked_shape(out);
  if (residual.defined()) {
    check_float32(op, "residual", residual);
    bool same = residual.ndim() == static_cast<int64_t>(out.size());
    for (size_t i = 0; same && i < out.size(); ++i)
      same = residual.shape()[i] < 0 || out[i] < 0 || residual.shape()[i] == out[i];
    OAR_ENFORCE_ARG(same, op, ": residual ", shape_str(residual.shape()), " must have the result's shape ",
                    shape_str(out));
  }
  return {out, DType::Float32};
}

Meta conv2d_max_pool_fused(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias,
                           const IntArray& padding, const std::string& activation, const IntArray& pool_kernel,
                           const IntArray& pool_stride, const IntArray& pool_padding, bool ceil_mode) {
  OAR_ENFORCE_ARG(x.ndim() == 4, op, ": x must be [N, C, H, W], got ", shape_str(x.shape()));
  const Meta conv = conv2d_fused(op, x, weight, bias, Tensor(), {1, 1}, padding, {1, 1}, 1, activation, false);
  OAR_ENFORCE_ARG(pool_kernel.size() == 2 && pool_stride.size() == 2 && pool_padding.size() == 4, op,
                  ": expected 2 pool kernel sizes, 2 strides and 4 paddings (resolved form), got ",
                  list_str(pool_kernel), ", ", list_str(pool_stride), ", ", list_str(pool_padding));
  Shape out = conv.shape;
  if (out[2] >= 0 && out[3] >= 0) {
    const Shape sp = pool_out_spatial(op, out, pool_kernel, pool_stride, pool_padding, ceil_mode, false, false);
    out[2] = sp[0];
    out[3] = sp[1];
  }
  OAR_ENFORCE_ARG(conv.shape[3] <= kConvPoolMaxRow, op,
                  ": convolution rows wider than ", kConvPoolMaxRow, " are not supported, got ",
                  shape_str(conv.shape));
  return {out, DType::Float32};
}

Meta to_blocked_layout(const char* op, const Tensor& x) {
  check_float32(op, "x", x);
  OAR_ENFORCE_ARG(x.ndim() == 4, op, ": x must be [N, C, H, W], got ", shape_str(x.shape()));
  return {blocked_shape(x.shape()), DType::Float32};
}

Meta to_plain_layout(const char* op, const Tensor& x, int64_t channels) {
  check_blocked(op, "x", x);
  OAR_ENFORCE_ARG(channels > 0 && (x.shape()[1] < 0 || blocks(channels) == x.shape()[1]), op, ": ", channels,
                  " channels do not fit blocked x ", shape_str(x.shape()));
  return {{x.shape()[0], channels, x.shape()[2], x.shape()[3]}, DType::Float32};
}

Meta max_pool2d_blocked(const char* op, const Tensor& x, const IntArray& kernel_size, const IntArray& stride,
                        const IntArray& padding, bool ceil_mode) {
  check_blocked(op, "x", x);
  OAR_ENFORCE_ARG(kernel_size.size() == 2 && stride.size() == 2 && padding.size() == 4, op,
                  ": expected 2 kernel sizes, 2 strides and 4 paddings (resolved form), got ", list_str(kernel_size),
                  ", ", list_str(stride), ", ", list_str(padding));
  const Shape plain{x.shape()[0], x.shape()[1], x.shape()[2], x.shape()[3]};
  const Shape sp = plain[2] < 0 || plain[3] < 0
                       ? Shape{-1, -1}
                       : pool_out_spatial(op, plain, kernel_size, stride, padding, ceil_mode, false, false);
  return {{x.shape()[0], x.shape()[1], sp[0], sp[1], kChannelBlock}, DType::Float32};
}

Meta global_avg_pool2d_blocked(const char* op, const Tensor& x) {
  check_blocked(op, "x", x);
  return {{x.shape()[0], x.shape()[1], 1, 1, kChannelBlock}, DType::Float32};
}

}  // namespace oar::infer_meta
