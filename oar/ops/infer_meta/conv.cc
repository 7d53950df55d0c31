#include "oar/ops/infer_meta/conv.h"

#include <algorithm>
#include <cctype>

namespace oar::infer_meta {

namespace {

std::string upper(const std::string& s) {
  std::string r = s;
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

std::string list_str(const IntArray& v) { return shape_str(Shape(v.begin(), v.end())); }

// The channel-first and channel-last layout names for nd spatial dims.
const char* layout_first(int64_t nd) { return nd == 1 ? "NCL" : nd == 2 ? "NCHW" : "NCDHW"; }
const char* layout_last(int64_t nd) { return nd == 1 ? "NLC" : nd == 2 ? "NHWC" : "NDHWC"; }

bool parse_data_format(const char* op, int64_t nd, const std::string& data_format) {
  OAR_ENFORCE_ARG(data_format == layout_first(nd) || data_format == layout_last(nd), op,
                  ": Attr(data_format) should be '", layout_first(nd), "' or '", layout_last(nd),
                  "'. Received Attr(data_format): ", data_format, ".");
  return data_format == layout_last(nd);
}

void check_dtypes(const char* op, const Tensor& x, const Tensor& weight, const char* xname,
                  const char* wname) {
  OAR_ENFORCE(is_floating(x.dtype()), TypeMismatch, op, ": argument '", xname,
              "' must be a floating-point tensor (float16, bfloat16, float32, float64), got ",
              dtype_name(x.dtype()));
  OAR_ENFORCE(x.dtype() == weight.dtype(), TypeMismatch, op, ": the dtype of '", wname, "' (",
              dtype_name(weight.dtype()), ") must be the same as the dtype of '", xname, "' (",
              dtype_name(x.dtype()), ")");
}

// One value per spatial dim from 1 or nd values, each >= min_value.
IntArray per_dim(const char* op, const char* what, const IntArray& v, int64_t nd,
                 int64_t min_value) {
  OAR_ENFORCE_ARG(v.size() == 1 || static_cast<int64_t>(v.size()) == nd, op, ": the ", what,
                  " should have 1 or ", nd, " values (one per spatial dim), but received ",
                  list_str(v));
  IntArray r(std::vector<int64_t>(nd, v[0]));
  if (v.size() != 1) r = v;
  for (int64_t d : r)
    OAR_ENFORCE_ARG(d >= min_value, op, ": the ", what, " should be ",
                    min_value == 0 ? "non-negative" : "larger than 0", ", but received ",
                    list_str(v));
  return r;
}

// Paddle's padding forms -> before/after pairs per spatial dim.
IntArray padding_pairs(const char* op, const IntArray& padding, int64_t nd, bool channel_last) {
  const int64_t n = static_cast<int64_t>(padding.size());
  IntArray pairs;
  if (n == 1 || n == nd) {
    for (int64_t d = 0; d < nd; ++d) {
      const int64_t p = padding[n == 1 ? 0 : d];
      pairs.push_back(p);
      pairs.push_back(p);
    }
  } else if (n == 2 * nd) {
    pairs = padding;
  } else if (n == 2 * (nd + 2)) {
    // A pair for every dim of x: those of the batch and channel dims must be zero.
    const int64_t cdim = channel_last ? nd + 1 : 1;
    OAR_ENFORCE_ARG(padding[0] == 0 && padding[1] == 0 && padding[2 * cdim] == 0 &&
                        padding[2 * cdim + 1] == 0,
                    op, ": Non-zero padding(", list_str(padding),
                    ") in the batch or channel dimensions is not supported.");
    for (int64_t d = 0; d < nd + 2; ++d) {
      if (d == 0 || d == cdim) continue;
      pairs.push_back(padding[2 * d]);
      pairs.push_back(padding[2 * d + 1]);
    }
  } else {
    OAR_THROW(InvalidArgument, op, ": invalid padding ", list_str(padding), ": expected 1, ",
              nd, " or ", 2 * nd, " values, or a [before, after] pair for each of the ",
              nd + 2, " dims of x");
  }
  for (int64_t p : pairs)
    OAR_ENFORCE_ARG(p >= 0, op, ": Invalid padding, all value should be larger than or equal to "
                    "0, but received: ", list_str(padding));
  return pairs;
}

// Applies padding_algorithm: SAME pads for an output of ceil(in / stride) (dilation becomes 1),
// VALID pads nothing; in and k are the spatial sizes of the input and the kernel.
void apply_algorithm(const char* op, const std::string& algorithm, const Shape& in,
                     const Shape& k, ConvArgs& a) {
  const std::string alg = upper(algorithm);
  OAR_ENFORCE_ARG(alg == "EXPLICIT" || alg == "SAME" || alg == "VALID", op,
                  ": Unknown padding_algorithm: '", algorithm,
                  "'. It can only be 'EXPLICIT', 'SAME' or 'VALID'.");
  const size_t nd = in.size();
  if (alg == "VALID") {
    std::fill(a.padding.begin(), a.padding.end(), 0);
  } else if (alg == "SAME") {
    for (size_t d = 0; d < nd; ++d) {
      const int64_t out = (in[d] + a.stride[d] - 1) / a.stride[d];
      const int64_t total = std::max<int64_t>((out - 1) * a.stride[d] + k[d] - in[d], 0);
      a.padding[2 * d] = total / 2;
      a.padding[2 * d + 1] = total - total / 2;
      a.dilation[d] = 1;
    }
  }
}

Shape spatial(const Shape& s, bool channel_last) {
  return channel_last ? Shape(s.begin() + 1, s.end() - 1) : Shape(s.begin() + 2, s.end());
}

int64_t channels(const Shape& s, bool channel_last) { return channel_last ? s.back() : s[1]; }

// Checks the resolved geometry arguments against nd spatial dims.
void check_resolved(const char* op, int64_t nd, const IntArray& stride, const IntArray& padding,
                    const IntArray& dilation, int64_t groups) {
  OAR_ENFORCE_ARG(nd >= 1 && nd <= 3, op, ": expected 1 to 3 spatial dims, got ", nd);
  OAR_ENFORCE_ARG(static_cast<int64_t>(stride.size()) == nd &&
                      static_cast<int64_t>(dilation.size()) == nd &&
                      static_cast<int64_t>(padding.size()) == 2 * nd,
                  op, ": expected ", nd, " strides, ", nd, " dilations and ", 2 * nd,
                  " paddings, got ", list_str(stride), ", ", list_str(dilation), " and ",
                  list_str(padding));
  for (int64_t d = 0; d < nd; ++d) {
    OAR_ENFORCE_ARG(stride[d] > 0, op, ": The stride of Op(Conv) should be larger than 0, but "
                    "received stride is ", list_str(stride));
    OAR_ENFORCE_ARG(dilation[d] > 0, op, ": The dilation of Op(Conv) should be larger than 0, "
                    "but received dilation is ", list_str(dilation));
    OAR_ENFORCE_ARG(padding[2 * d] >= 0 && padding[2 * d + 1] >= 0, op,
                    ": the padding should be non-negative, but received ", list_str(padding));
  }
  OAR_ENFORCE_ARG(groups > 0, op, ": the groups should be greater than 0, but received groups = ",
                  groups);
}

// The output spatial sizes of a convolution of `in` by kernel `k` (all must be >= 0).
Shape conv_out_spatial(const char* op, const Shape& in, const Shape& k, const IntArray& stride,
                       const IntArray& padding, const IntArray& dilation) {
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t o = conv_out_size(in[d], k[d], stride[d], dilation[d], padding[2 * d],
                                    padding[2 * d + 1]);
    OAR_ENFORCE_ARG(o >= 0, op, ": the output size of spatial dim ", d, " would be ", o,
                    ": the kernel (size ", k[d], ", dilation ", dilation[d],
                    ") is larger than the padded input (size ", in[d], ", padding ",
                    padding[2 * d], " + ", padding[2 * d + 1], ")");
    out.push_back(o);
  }
  return out;
}

Shape with_channels(int64_t n, int64_t c, const Shape& sp, bool channel_last) {
  Shape s{n};
  if (!channel_last) s.push_back(c);
  s.insert(s.end(), sp.begin(), sp.end());
  if (channel_last) s.push_back(c);
  return s;
}

}  // namespace

ConvArgs conv_args(const char* op, int64_t nd, const Tensor& x, const Tensor& weight,
                   const IntArray& stride, const IntArray& padding, const IntArray& dilation,
                   int64_t groups, const std::string& data_format,
                   const std::string& padding_algorithm) {
  ConvArgs a;
  a.channel_last = parse_data_format(op, nd, data_format);
  OAR_ENFORCE_ARG(x.ndim() == nd + 2, op, ": Input x should be ", nd + 2,
                  "D tensor, but received x with the shape of ", shape_str(x.shape()));
  OAR_ENFORCE_ARG(weight.ndim() == nd + 2, op, ": Input weight should be ", nd + 2,
                  "D tensor, but received weight with the shape of ", shape_str(weight.shape()));
  check_dtypes(op, x, weight, "x", "weight");
  const int64_t c = channels(x.shape(), a.channel_last), m = weight.shape()[0];
  OAR_ENFORCE_ARG(groups > 0, op, ": the groups should be greater than 0, but received groups = ",
                  groups);
  OAR_ENFORCE_ARG(c % groups == 0, op, ": The channel of input must be divisible by groups,"
                  "received: the channel of input is ", c, ", the shape of input is ",
                  shape_str(x.shape()), ", the groups is ", groups);
  OAR_ENFORCE_ARG(m % groups == 0, op, ": The number of filters must be divisible by groups,"
                  "received: the number of filters is ", m, ", the shape of weight is ",
                  shape_str(weight.shape()), ", the groups is ", groups);
  OAR_ENFORCE_ARG(c == weight.shape()[1] * groups, op, ": The number of input's channels should "
                  "be equal to filter's channels * groups. But received: the input's channels is ",
                  c, ", the input's shape is ", shape_str(x.shape()), "; the filter's channels is ",
                  weight.shape()[1], ", the filter's shape is ", shape_str(weight.shape()),
                  "; the groups is ", groups, ", the data_format is ", data_format);
  a.stride = per_dim(op, "stride", stride, nd, 1);
  a.dilation = per_dim(op, "dilation", dilation, nd, 1);
  a.padding = padding_pairs(op, padding, nd, a.channel_last);
  apply_algorithm(op, padding_algorithm, spatial(x.shape(), a.channel_last),
                  Shape(weight.shape().begin() + 2, weight.shape().end()), a);
  return a;
}

ConvArgs conv_transpose_args(const char* op, int64_t nd, const Tensor& x, const Tensor& weight,
                             const IntArray& stride, const IntArray& padding,
                             const IntArray& output_padding, const IntArray& dilation,
                             int64_t groups, const IntArray& output_size,
                             const std::string& data_format,
                             const std::string& padding_algorithm, Shape& out_shape) {
  ConvArgs a;
  a.channel_last = parse_data_format(op, nd, data_format);
  OAR_ENFORCE_ARG(x.ndim() == nd + 2, op, ": Input x should be ", nd + 2,
                  "D tensor, but received x with the shape of ", shape_str(x.shape()));
  OAR_ENFORCE_ARG(weight.ndim() == nd + 2, op, ": Input weight should be ", nd + 2,
                  "D tensor, but received weight with the shape of ", shape_str(weight.shape()));
  check_dtypes(op, x, weight, "x", "weight");
  const int64_t c = channels(x.shape(), a.channel_last);
  OAR_ENFORCE_ARG(groups > 0, op, ": the groups should be greater than 0, but received groups = ",
                  groups);
  OAR_ENFORCE_ARG(c % groups == 0, op, ": the channel of input must be divisible by groups,"
                  "received: the channel of input is ", c, ", the shape of input is ",
                  shape_str(x.shape()), ", the groups is ", groups);
  OAR_ENFORCE_ARG(c == weight.shape()[0], op, ": The number of input channels should be equal "
                  "to filter channels for Op(conv_transpose). But received: the input's "
                  "channels is ", c, ", the input's shape is ", shape_str(x.shape()),
                  "; the filter's channels is ", weight.shape()[0], ", the filter's shape is ",
                  shape_str(weight.shape()), "; the data_format is ", data_format);
  a.stride = per_dim(op, "stride", stride, nd, 1);
  a.dilation = per_dim(op, "dilation", dilation, nd, 1);
  a.padding = padding_pairs(op, padding, nd, a.channel_last);
  const Shape in = spatial(x.shape(), a.channel_last);
  const Shape k(weight.shape().begin() + 2, weight.shape().end());
  apply_algorithm(op, padding_algorithm, in, k, a);

  const bool has_padding = std::any_of(output_padding.begin(), output_padding.end(),
                                       [](int64_t v) { return v != 0; });
  OAR_ENFORCE_ARG(output_size.empty() || !has_padding, op,
                  ": output_padding option is mutually exclusive with output_size");
  IntArray opad = output_padding.empty() ? IntArray(std::vector<int64_t>(nd, 0))
                                         : per_dim(op, "output_padding", output_padding, nd, 0);
  IntArray osize;
  if (!output_size.empty()) osize = per_dim(op, "output_size", output_size, nd, 1);
  Shape out;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t base = checked_add(
        checked_mul(in[d] - 1, a.stride[d], op, "the output size") - a.padding[2 * d] - a.padding[2 * d + 1],
        checked_mul(a.dilation[d], k[d] - 1, op, "the dilated kernel size") + 1, op, "the output size");
    OAR_ENFORCE_ARG(opad[d] < a.stride[d], op, ": the output_padding (", list_str(opad),
                    ") should be smaller than the stride (", list_str(a.stride), ")");
    int64_t o = base + opad[d];
    if (!osize.empty()) {
      OAR_ENFORCE_ARG(osize[d] >= base && osize[d] < base + a.stride[d], op,
                      ": the output_size of spatial dim ", d, " should be in [", base, ", ",
                      base + a.stride[d], ") for this input, kernel, stride and padding, but "
                      "received output_size ", list_str(output_size));
      o = osize[d];
    }
    OAR_ENFORCE_ARG(o > 0, op, ": the output size of spatial dim ", d, " would be ", o,
                    " (input ", in[d], ", kernel ", k[d], ", stride ", a.stride[d],
                    ", padding ", a.padding[2 * d], " + ", a.padding[2 * d + 1], ")");
    out.push_back(o);
  }
  out_shape = with_channels(x.shape()[0], weight.shape()[1] * groups, out, a.channel_last);
  return a;
}

Meta convolution(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias,
                 const IntArray& stride, const IntArray& padding, const IntArray& dilation,
                 int64_t groups, bool channel_last) {
  const int64_t nd = x.ndim() - 2;
  check_resolved(op, nd, stride, padding, dilation, groups);
  OAR_ENFORCE_ARG(weight.ndim() == x.ndim(), op, ": weight ", shape_str(weight.shape()),
                  " should have as many dims as x ", shape_str(x.shape()));
  check_dtypes(op, x, weight, "x", "weight");
  const int64_t c = channels(x.shape(), channel_last), m = weight.shape()[0];
  OAR_ENFORCE_ARG(c == weight.shape()[1] * groups && m % groups == 0, op,
                  ": x ", shape_str(x.shape()), " and weight ", shape_str(weight.shape()),
                  " do not match: expected ", weight.shape()[1] * groups,
                  " input channels and a number of filters divisible by groups = ", groups);
  if (bias.defined()) {
    OAR_ENFORCE_ARG(bias.ndim() == 1 && bias.shape()[0] == m, op, ": bias should have shape [",
                    m, "] (one value per output channel), but received ",
                    shape_str(bias.shape()));
    OAR_ENFORCE(bias.dtype() == x.dtype(), TypeMismatch, op, ": the dtype of 'bias' (",
                dtype_name(bias.dtype()), ") must be the same as the dtype of 'x' (",
                dtype_name(x.dtype()), ")");
  }
  const Shape out = conv_out_spatial(op, spatial(x.shape(), channel_last),
                                     Shape(weight.shape().begin() + 2, weight.shape().end()),
                                     stride, padding, dilation);
  return {with_channels(x.shape()[0], m, out, channel_last), x.dtype()};
}

Meta convolution_input_grad(const char* op, const Tensor& out_grad, const Tensor& weight,
                            const IntArray& input_shape, const IntArray& stride,
                            const IntArray& padding, const IntArray& dilation, int64_t groups,
                            bool channel_last) {
  const int64_t nd = out_grad.ndim() - 2;
  check_resolved(op, nd, stride, padding, dilation, groups);
  check_dtypes(op, out_grad, weight, "out_grad", "weight");
  const Shape in(input_shape.begin(), input_shape.end());
  OAR_ENFORCE_ARG(weight.ndim() == nd + 2 && static_cast<int64_t>(in.size()) == nd + 2, op,
                  ": out_grad ", shape_str(out_grad.shape()), ", weight ",
                  shape_str(weight.shape()), " and input_shape ", shape_str(in),
                  " should have the same number of dims");
  OAR_ENFORCE_ARG(channels(out_grad.shape(), channel_last) == weight.shape()[0] &&
                      channels(in, channel_last) == weight.shape()[1] * groups &&
                      weight.shape()[0] % groups == 0 && in[0] == out_grad.shape()[0],
                  op, ": out_grad ", shape_str(out_grad.shape()), ", weight ",
                  shape_str(weight.shape()), " and input_shape ", shape_str(in),
                  " do not match (groups = ", groups, ")");
  const Shape out = conv_out_spatial(op, spatial(in, channel_last),
                                     Shape(weight.shape().begin() + 2, weight.shape().end()),
                                     stride, padding, dilation);
  OAR_ENFORCE_ARG(out == spatial(out_grad.shape(), channel_last), op, ": a convolution of ",
                  shape_str(in), " gives spatial sizes ", shape_str(out), ", but out_grad is ",
                  shape_str(out_grad.shape()));
  return {in, out_grad.dtype()};
}

Meta convolution_weight_grad(const char* op, const Tensor& x, const Tensor& out_grad,
                             const IntArray& weight_shape, const IntArray& stride,
                             const IntArray& padding, const IntArray& dilation, int64_t groups,
                             bool channel_last) {
  const int64_t nd = x.ndim() - 2;
  check_resolved(op, nd, stride, padding, dilation, groups);
  check_dtypes(op, x, out_grad, "x", "out_grad");
  const Shape w(weight_shape.begin(), weight_shape.end());
  OAR_ENFORCE_ARG(out_grad.ndim() == nd + 2 && static_cast<int64_t>(w.size()) == nd + 2, op,
                  ": x ", shape_str(x.shape()), ", out_grad ", shape_str(out_grad.shape()),
                  " and weight_shape ", shape_str(w), " should have the same number of dims");
  OAR_ENFORCE_ARG(channels(x.shape(), channel_last) == w[1] * groups &&
                      channels(out_grad.shape(), channel_last) == w[0] && w[0] % groups == 0 &&
                      x.shape()[0] == out_grad.shape()[0],
                  op, ": x ", shape_str(x.shape()), ", out_grad ", shape_str(out_grad.shape()),
                  " and weight_shape ", shape_str(w), " do not match (groups = ", groups, ")");
  const Shape out = conv_out_spatial(op, spatial(x.shape(), channel_last),
                                     Shape(w.begin() + 2, w.end()), stride, padding, dilation);
  OAR_ENFORCE_ARG(out == spatial(out_grad.shape(), channel_last), op, ": a convolution of ",
                  shape_str(x.shape()), " gives spatial sizes ", shape_str(out),
                  ", but out_grad is ", shape_str(out_grad.shape()));
  return {w, x.dtype()};
}

}  // namespace oar::infer_meta
