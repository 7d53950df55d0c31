#include "oar/ops/infer_meta/pool.h"

#include <algorithm>
#include <cctype>

namespace oar::infer_meta {

namespace {

std::string list_str(const IntArray& v) { return shape_str(Shape(v.begin(), v.end())); }

const char* layout_first(int64_t nd) { return nd == 1 ? "NCL" : nd == 2 ? "NCHW" : "NCDHW"; }
const char* layout_last(int64_t nd) { return nd == 1 ? "NLC" : nd == 2 ? "NHWC" : "NDHWC"; }

bool parse_data_format(const char* op, int64_t nd, const std::string& data_format) {
  OAR_ENFORCE_ARG(data_format == layout_first(nd) || data_format == layout_last(nd), op,
                  ": Attr(data_format) should be '", layout_first(nd), "' or '", layout_last(nd),
                  "'. Received Attr(data_format): ", data_format, ".");
  return data_format == layout_last(nd);
}

void check_x(const char* op, int64_t nd, const Tensor& x) {
  OAR_ENFORCE_ARG(x.ndim() == nd + 2, op, ": Excepted Input X is ", nd + 2,
                  "-D tensor, but received ", x.ndim(), "-D tensor of shape ",
                  shape_str(x.shape()));
  check_floating(op, "x", x);
}

IntArray per_dim(const char* op, const char* what, const IntArray& v, int64_t nd,
                 int64_t min_value) {
  OAR_ENFORCE_ARG(v.size() == 1 || static_cast<int64_t>(v.size()) == nd, op, ": the ", what,
                  " should have 1 or ", nd, " values (one per spatial dim), but received ",
                  list_str(v));
  IntArray r(std::vector<int64_t>(nd, v[0]));
  if (v.size() != 1) r = v;
  for (int64_t d : r)
    OAR_ENFORCE_ARG(d >= min_value, op, ": Excepted the input ", what, " to be ",
                    min_value == 0 ? "non-negative" : "greater than 0", " but received ",
                    list_str(v));
  return r;
}

Shape spatial(const Shape& s, bool channel_last) {
  return channel_last ? Shape(s.begin() + 1, s.end() - 1) : Shape(s.begin() + 2, s.end());
}

Shape with_spatial(const Shape& x, const Shape& sp, bool channel_last) {
  Shape s = x;
  std::copy(sp.begin(), sp.end(), s.begin() + (channel_last ? 1 : 2));
  return s;
}

void check_resolved(const char* op, const Shape& x, const IntArray& kernel_size,
                    const IntArray& stride, const IntArray& padding, bool adaptive) {
  const int64_t nd = static_cast<int64_t>(x.size()) - 2;
  OAR_ENFORCE_ARG(nd >= 1 && nd <= 3, op, ": expected 1 to 3 spatial dims, got x of shape ",
                  shape_str(x));
  OAR_ENFORCE_ARG(static_cast<int64_t>(kernel_size.size()) == nd &&
                      (adaptive || (static_cast<int64_t>(stride.size()) == nd &&
                                    static_cast<int64_t>(padding.size()) == 2 * nd)),
                  op, ": expected ", nd, " kernel sizes, ", nd, " strides and ", 2 * nd,
                  " paddings, got ", list_str(kernel_size), ", ", list_str(stride), " and ",
                  list_str(padding));
  for (int64_t d = 0; d < nd; ++d) {
    OAR_ENFORCE_ARG(kernel_size[d] > 0, op, ": the kernel size (or output size) should be "
                    "greater than 0, but received ", list_str(kernel_size));
    if (adaptive) continue;
    OAR_ENFORCE_ARG(stride[d] > 0, op, ": the stride should be greater than 0, but received ",
                    list_str(stride));
    OAR_ENFORCE_ARG(padding[2 * d] >= 0 && padding[2 * d + 1] >= 0, op,
                    ": the padding should be non-negative, but received ", list_str(padding));
  }
}

}  // namespace

PoolArgs pool_args(const char* op, int64_t nd, const Tensor& x, const IntArray& kernel_size,
                   const IntArray& stride, const IntArray& padding, bool ceil_mode,
                   const std::string& data_format, const std::string& padding_algorithm) {
  PoolArgs a;
  a.channel_last = parse_data_format(op, nd, data_format);
  check_x(op, nd, x);
  a.kernel = per_dim(op, "kernel_size", kernel_size, nd, 1);
  a.stride = stride.empty() ? a.kernel : per_dim(op, "stride", stride, nd, 1);
  // Paddle's padding forms -> before/after pairs.
  const int64_t n = static_cast<int64_t>(padding.size());
  if (n == 1 || n == nd) {
    for (int64_t d = 0; d < nd; ++d) {
      a.padding.push_back(padding[n == 1 ? 0 : d]);
      a.padding.push_back(padding[n == 1 ? 0 : d]);
    }
  } else if (n == 2 * nd) {
    a.padding = padding;
  } else if (n == 2 * (nd + 2)) {
    const int64_t cdim = a.channel_last ? nd + 1 : 1;
    OAR_ENFORCE_ARG(padding[0] == 0 && padding[1] == 0 && padding[2 * cdim] == 0 &&
                        padding[2 * cdim + 1] == 0,
                    op, ": Non-zero padding(", list_str(padding),
                    ") in the batch or channel dimensions is not supported.");
    for (int64_t d = 0; d < nd + 2; ++d) {
      if (d == 0 || d == cdim) continue;
      a.padding.push_back(padding[2 * d]);
      a.padding.push_back(padding[2 * d + 1]);
    }
  } else {
    OAR_THROW(InvalidArgument, op, ": Invalid padding: ", list_str(padding), " (expected 1, ", nd,
              " or ", 2 * nd, " values, or a [before, after] pair for each dim of x)");
  }
  for (int64_t p : a.padding)
    OAR_ENFORCE_ARG(p >= 0, op, ": the padding should be non-negative, but received ",
                    list_str(padding));
  std::string alg = padding_algorithm;
  for (char& c : alg) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  OAR_ENFORCE_ARG(alg == "EXPLICIT" || alg == "SAME" || alg == "VALID", op,
                  ": Unknown padding_algorithm: '", padding_algorithm,
                  "'. It can only be 'EXPLICIT', 'SAME' or 'VALID'.");
  if (alg == "VALID") {
    OAR_ENFORCE_ARG(!ceil_mode, op, ": When Attr(padding) is \"VALID\", Attr(ceil_mode) must be "
                    "False. Received ceil_mode: True.");
    std::fill(a.padding.begin(), a.padding.end(), 0);
  } else if (alg == "SAME") {
    const Shape in = spatial(x.shape(), a.channel_last);
    for (int64_t d = 0; d < nd; ++d) {
      const int64_t out = (in[d] + a.stride[d] - 1) / a.stride[d];
      const int64_t total = std::max<int64_t>((out - 1) * a.stride[d] + a.kernel[d] - in[d], 0);
      a.padding[2 * d] = total / 2;
      a.padding[2 * d + 1] = total - total / 2;
    }
  }
  return a;
}

PoolArgs adaptive_pool_args(const char* op, int64_t nd, const Tensor& x,
                            const IntArray& output_size, const std::string& data_format) {
  PoolArgs a;
  a.channel_last = parse_data_format(op, nd, data_format);
  check_x(op, nd, x);
  a.kernel = per_dim(op, "output_size", output_size, nd, 1);
  a.stride = IntArray(std::vector<int64_t>(nd, 1));
  a.padding = IntArray(std::vector<int64_t>(2 * nd, 0));
  return a;
}

Shape pool_out_spatial(const char* op, const Shape& x, const IntArray& kernel_size,
                       const IntArray& stride, const IntArray& padding, bool ceil_mode,
                       bool adaptive, bool channel_last) {
  check_resolved(op, x, kernel_size, stride, padding, adaptive);
  const Shape in = spatial(x, channel_last);
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (adaptive) {
      out.push_back(kernel_size[d]);
      continue;
    }
    // C division (toward zero), as Paddle.
    const int64_t span = in[d] - kernel_size[d] + padding[2 * d] + padding[2 * d + 1] +
                         (ceil_mode ? stride[d] - 1 : 0);
    const int64_t o = span / stride[d] + 1;
    OAR_ENFORCE_ARG(o > 0, op, ": the output size of spatial dim ", d, " would be ", o,
                    " (input ", in[d], ", kernel ", kernel_size[d], ", stride ", stride[d],
                    ", padding ", padding[2 * d], " + ", padding[2 * d + 1],
                    "); it should be greater than 0");
    out.push_back(o);
  }
  return out;
}

std::vector<Meta> pool_max(const char* op, const Tensor& x, const IntArray& kernel_size,
                           const IntArray& stride, const IntArray& padding, bool ceil_mode,
                           bool adaptive, bool channel_last) {
  const Shape s = with_spatial(x.shape(), pool_out_spatial(op, x.shape(), kernel_size, stride,
                                                           padding, ceil_mode, adaptive,
                                                           channel_last),
                               channel_last);
  return {{s, x.dtype()}, {s, DType::Int32}};
}

Meta pool_avg(const char* op, const Tensor& x, const IntArray& kernel_size,
              const IntArray& stride, const IntArray& padding, bool ceil_mode, bool, bool adaptive,
              bool channel_last) {
  return {with_spatial(x.shape(), pool_out_spatial(op, x.shape(), kernel_size, stride, padding,
                                                   ceil_mode, adaptive, channel_last),
                       channel_last),
          x.dtype()};
}

Meta pool_avg_grad(const char* op, const Tensor& out_grad, const IntArray& input_shape,
                   const IntArray& kernel_size, const IntArray& stride, const IntArray& padding,
                   bool ceil_mode, bool, bool adaptive, bool channel_last) {
  const Shape in(input_shape.begin(), input_shape.end());
  const Shape out = with_spatial(in, pool_out_spatial(op, in, kernel_size, stride, padding,
                                                      ceil_mode, adaptive, channel_last),
                                 channel_last);
  OAR_ENFORCE_ARG(out == out_grad.shape(), op, ": pooling ", shape_str(in), " gives ",
                  shape_str(out), ", but out_grad is ", shape_str(out_grad.shape()));
  return {in, out_grad.dtype()};
}

Meta pool_max_grad(const char* op, const Tensor& out_grad, const Tensor& mask,
                   const IntArray& input_shape, bool channel_last) {
  const Shape in(input_shape.begin(), input_shape.end());
  OAR_ENFORCE_ARG(mask.shape() == out_grad.shape() && mask.dtype() == DType::Int32 &&
                      in.size() == out_grad.shape().size() && in[0] == out_grad.shape()[0] &&
                      (channel_last ? in.back() == out_grad.shape().back()
                                    : in[1] == out_grad.shape()[1]),
                  op, ": out_grad ", shape_str(out_grad.shape()), ", mask ",
                  shape_str(mask.shape()), " (", dtype_name(mask.dtype()),
                  ") and input_shape ", shape_str(in), " do not match");
  return {in, out_grad.dtype()};
}

Meta pool_max_gather(const char* op, const Tensor& x, const Tensor& mask, bool channel_last) {
  const Shape& m = mask.shape();
  OAR_ENFORCE_ARG(x.ndim() >= 3, op, ": x must have batch, channel and spatial dims, got shape ",
                  shape_str(x.shape()));
  OAR_ENFORCE_ARG(mask.dtype() == DType::Int32 && m.size() == x.shape().size() &&
                      m[0] == x.shape()[0] &&
                      (channel_last ? m.back() == x.shape().back() : m[1] == x.shape()[1]),
                  op, ": x ", shape_str(x.shape()), " and mask ", shape_str(m), " (",
                  dtype_name(mask.dtype()), ") do not match");
  return {m, x.dtype()};
}

}  // namespace oar::infer_meta
