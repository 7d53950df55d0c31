#include "oar/ops/infer_meta/vision.h"

#include <algorithm>

namespace oar::infer_meta {

namespace {

std::string list_str(const IntArray& v) { return shape_str(Shape(v.begin(), v.end())); }

}  // namespace

IntArray spatial_sizes(const Shape& s) {
  return IntArray(std::vector<int64_t>(s.begin() + 2, s.end()));
}

Meta interp(const char* op, const Tensor& x, const IntArray& out_size, const std::string& mode,
            bool align_corners, int64_t align_mode, double, double, double) {
  check_floating(op, "x", x);
  const int64_t nd = x.ndim() - 2;
  OAR_ENFORCE_ARG(nd >= 1 && nd <= 3, op, ": expected a 3-D, 4-D or 5-D input x, got shape ",
                  shape_str(x.shape()));
  OAR_ENFORCE_ARG(static_cast<int64_t>(out_size.size()) == nd, op, ": expected ", nd,
                  " output sizes for x of shape ", shape_str(x.shape()), ", got ",
                  list_str(out_size));
  OAR_ENFORCE_ARG(mode == "nearest" || mode == "linear" || mode == "bilinear" ||
                      mode == "trilinear" || mode == "bicubic",
                  op, ": the mode should be 'nearest', 'linear', 'bilinear', 'trilinear' or "
                  "'bicubic', but received '", mode, "'");
  OAR_ENFORCE_ARG(align_mode == 0 || align_mode == 1, op, ": align_mode can only be 0 or 1, got ",
                  align_mode);
  (void)align_corners;
  Shape s = x.shape();
  for (int64_t d = 0; d < nd; ++d) {
    OAR_ENFORCE_ARG(out_size[d] > 0, op, ": the output sizes should be greater than 0, got ",
                    list_str(out_size));
    OAR_ENFORCE_ARG(s[2 + d] > 0, op, ": cannot interpolate an empty spatial dim of x (shape ",
                    shape_str(s), ")");
    s[2 + d] = out_size[d];
  }
  return {s, x.dtype()};
}

Meta interp_grad(const char* op, const Tensor& out_grad, const IntArray& input_shape,
                 const std::string&, bool, int64_t, double, double, double) {
  OAR_ENFORCE_ARG(static_cast<int64_t>(input_shape.size()) == out_grad.ndim(), op,
                  ": input_shape ", list_str(input_shape), " does not match out_grad of shape ",
                  shape_str(out_grad.shape()));
  bool fits = out_grad.ndim() >= 3 && out_grad.ndim() <= 5 && input_shape[0] == out_grad.shape()[0] &&
              input_shape[1] == out_grad.shape()[1];
  for (int64_t d : input_shape) fits = fits && d >= 0;
  OAR_ENFORCE_ARG(fits, op, ": input_shape ", list_str(input_shape), " must be [N, C, spatial...] (3-D to 5-D, ",
                  "N and C as out_grad's ", shape_str(out_grad.shape()), ", no negative size)");
  return {Shape(input_shape.begin(), input_shape.end()), out_grad.dtype()};
}

void grid_sample_check(const char* op, const Tensor& x, const Tensor& grid,
                       const std::string& mode, const std::string& padding_mode) {
  OAR_ENFORCE_ARG(mode == "bilinear" || mode == "nearest", op,
                  ": The mode of grid sample function should be in ['bilinear', 'nearest'], but "
                  "got: ", mode);
  OAR_ENFORCE_ARG(padding_mode == "zeros" || padding_mode == "border" ||
                      padding_mode == "reflection",
                  op, ": The padding mode of grid sample function should be in ['zeros', "
                  "'reflection', 'border'], but got: ", padding_mode);
  check_float32_or_64(op, "x", x);
  check_float32_or_64(op, "grid", grid);
  OAR_ENFORCE(x.dtype() == grid.dtype(), TypeMismatch, op, ": x (", dtype_name(x.dtype()),
              ") and grid (", dtype_name(grid.dtype()), ") must have the same dtype");
  OAR_ENFORCE_ARG(x.ndim() == 4 || x.ndim() == 5, op,
                  ": expected x of shape [N, C, H, W] or [N, C, D, H, W], got shape ",
                  shape_str(x.shape()));
  if (x.ndim() == 4) {
    OAR_ENFORCE_ARG(grid.ndim() == 4 && grid.shape()[3] == 2, op,
                    ": expected grid of shape [N, H_out, W_out, 2], got shape ",
                    shape_str(grid.shape()));
  } else {
    OAR_ENFORCE_ARG(grid.ndim() == 5 && grid.shape()[4] == 3, op,
                    ": expected grid of shape [N, D_out, H_out, W_out, 3] for a 5-D x, got shape ",
                    shape_str(grid.shape()));
  }
  OAR_ENFORCE_ARG(grid.shape()[0] == x.shape()[0], op, ": x (shape ", shape_str(x.shape()),
                  ") and grid (shape ", shape_str(grid.shape()),
                  ") should have the same batch size");
}

Meta grid_sample(const char* op, const std::vector<Tensor>& inputs, const std::string& mode,
                 const std::string& padding_mode, bool) {
  OAR_ENFORCE_ARG(inputs.size() == 2, op, ": expected {x, grid}, got ", inputs.size(),
                  " tensors");
  grid_sample_check(op, inputs[0], inputs[1], mode, padding_mode);
  const Shape& x = inputs[0].shape();
  const Shape& g = inputs[1].shape();
  Shape out{x[0], x[1]};
  out.insert(out.end(), g.begin() + 1, g.end() - 1);
  return {out, inputs[0].dtype()};
}

void affine_grid_check(const char* op, const Tensor& theta, const IntArray& out_shape) {
  check_float32_or_64(op, "theta", theta);
  OAR_ENFORCE_ARG(out_shape.size() == 4 || out_shape.size() == 5, op,
                  ": out_shape should be [N, C, H, W] or [N, C, D, H, W], got ",
                  list_str(out_shape));
  const bool three = out_shape.size() == 5;
  OAR_ENFORCE_ARG(theta.ndim() == 3 && theta.shape()[1] == (three ? 3 : 2) &&
                      theta.shape()[2] == (three ? 4 : 3),
                  op, ": expected theta of shape ", three ? "[N, 3, 4]" : "[N, 2, 3]",
                  " for out_shape ", list_str(out_shape), ", got shape ",
                  shape_str(theta.shape()));
  OAR_ENFORCE_ARG(theta.shape()[0] == out_shape[0], op, ": theta's batch size ",
                  theta.shape()[0], " differs from out_shape[0] = ", out_shape[0]);
  for (size_t d = 2; d < out_shape.size(); ++d)
    OAR_ENFORCE_ARG(out_shape[d] > 0, op, ": out_shape's spatial sizes should be positive, got ",
                    list_str(out_shape));
}

Meta affine_grid_base(const char*, int64_t depth, int64_t height, int64_t width, bool,
                      DType dtype) {
  if (depth > 0) return {Shape{depth, height, width, 4}, dtype};
  return {Shape{height, width, 3}, dtype};
}

Shape shuffle_check(const char* op, const Tensor& x, int64_t factor,
                    const std::string& data_format, int kind) {
  OAR_ENFORCE_ARG(data_format == "NCHW" || data_format == "NHWC", op,
                  ": Attr(data_format) should be 'NCHW' or 'NHWC'. But received "
                  "Attr(data_format): ", data_format);
  OAR_ENFORCE_ARG(x.ndim() == 4, op, ": Input should be a 4-D tensor of format [N, C, H, W] "
                  "or [N, H, W, C], but got the shape ", shape_str(x.shape()));
  const char* what = kind == 0 ? "upscale_factor" : kind == 1 ? "downscale_factor" : "groups";
  OAR_ENFORCE_ARG(factor > 0, op, ": ", what, " should be positive, got ", factor);
  const Shape& s = x.shape();
  const bool last = data_format == "NHWC";
  const int64_t C = last ? s[3] : s[1], H = last ? s[1] : s[2], W = last ? s[2] : s[3];
  if (kind == 0) {
    // factor <= C first: the square of a larger factor exceeds C anyway and may overflow.
    OAR_ENFORCE_ARG(factor <= C && C % (factor * factor) == 0, op, ": the number of channels (", C,
                    ") should be divisible by the square of upscale_factor (", factor, "^2)");
  } else if (kind == 1) {
    OAR_ENFORCE_ARG(H % factor == 0 && W % factor == 0, op, ": the height (", H,
                    ") and width (", W, ") should be divisible by downscale_factor (", factor,
                    ")");
  } else {
    OAR_ENFORCE_ARG(C % factor == 0, op, ": the number of channels (", C,
                    ") should be divisible by groups (", factor, ")");
  }
  return s;
}

IntArray pair_of(const char* op, const char* what, const IntArray& v, int64_t min_value) {
  OAR_ENFORCE_ARG(v.size() == 1 || v.size() == 2, op, ": ", what,
                  " should be an int or a list of 2 ints, got ", list_str(v));
  const IntArray r = v.size() == 1 ? IntArray{v[0], v[0]} : v;
  for (int64_t d : r)
    OAR_ENFORCE_ARG(d >= min_value, op, ": ", what, " should be ",
                    min_value == 0 ? "non-negative" : "positive", ", got ", list_str(v));
  return r;
}

FoldArgs fold_args(const char* op, const IntArray& kernel_sizes, const IntArray& strides,
                   const IntArray& paddings, const IntArray& dilations) {
  FoldArgs a;
  a.kernel = pair_of(op, "kernel_sizes", kernel_sizes, 1);
  a.stride = pair_of(op, "strides", strides, 1);
  a.dilation = pair_of(op, "dilations", dilations, 1);
  OAR_ENFORCE_ARG(paddings.size() == 1 || paddings.size() == 2 || paddings.size() == 4, op,
                  ": paddings should be an int or a list of 2 or 4 ints, got ",
                  list_str(paddings));
  if (paddings.size() == 1) a.padding = {paddings[0], paddings[0], paddings[0], paddings[0]};
  else if (paddings.size() == 2) a.padding = {paddings[0], paddings[1], paddings[0], paddings[1]};
  else a.padding = paddings;
  for (int64_t p : a.padding)
    OAR_ENFORCE_ARG(p >= 0, op, ": paddings should be non-negative, got ", list_str(paddings));
  return a;
}

namespace {
int64_t blocks(const char* op, int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1,
               int64_t dil) {
  const int64_t span = checked_mul(dil, k - 1, op, "the dilated kernel size") + 1;
  const int64_t padded = checked_add(checked_add(in, p0, op, "the padded size"), p1, op, "the padded size");
  OAR_ENFORCE_ARG(padded >= span, op, ": the padded input size (", padded,
                  ") is smaller than the dilated kernel size (", span, ")");
  return (padded - span) / s + 1;
}
// The 2-D window attributes of fold/unfold: 2 kernel sizes, strides and dilations (positive) and
// 4 paddings (non-negative); anything else would index past the arrays or divide by zero.
void check_window(const char* op, const IntArray& kernel, const IntArray& stride, const IntArray& padding,
                  const IntArray& dilation) {
  auto check = [op](const IntArray& v, size_t n, int64_t min, const char* what) {
    OAR_ENFORCE_ARG(v.size() == n, op, ": '", what, "' must have ", n, " values, but got ", v.size());
    for (int64_t e : v)
      OAR_ENFORCE_ARG(e >= min, op, ": every value of '", what, "' must be >= ", min, ", but got ", e);
  };
  check(kernel, 2, 1, "kernel_sizes");
  check(stride, 2, 1, "strides");
  check(padding, 4, 0, "paddings");
  check(dilation, 2, 1, "dilations");
}
}  // namespace

Meta unfold_base(const char* op, const Tensor& x, const IntArray& kernel, const IntArray& stride,
                 const IntArray& padding, const IntArray& dilation) {
  check_float32_or_64(op, "x", x);
  OAR_ENFORCE_ARG(x.ndim() == 4, op, ": expected a 4-D input x [N, C, H, W], got shape ",
                  shape_str(x.shape()));
  check_window(op, kernel, stride, padding, dilation);
  const Shape& s = x.shape();
  const int64_t ho = blocks(op, s[2], kernel[0], stride[0], padding[0], padding[2], dilation[0]);
  const int64_t wo = blocks(op, s[3], kernel[1], stride[1], padding[1], padding[3], dilation[1]);
  const int64_t area = checked_mul(kernel[0], kernel[1], op, "the kernel area");
  return {Shape{s[0], checked_mul(s[1], area, op, "the output channels"), checked_mul(ho, wo, op, "the block count")},
          x.dtype()};
}

Meta fold_base(const char* op, const Tensor& x, const IntArray& output_size,
               const IntArray& kernel, const IntArray& stride, const IntArray& padding,
               const IntArray& dilation) {
  check_float32_or_64(op, "x", x);
  OAR_ENFORCE_ARG(x.ndim() == 3, op, ": expected a 3-D input x [N, C * kh * kw, L], got shape ",
                  shape_str(x.shape()));
  check_window(op, kernel, stride, padding, dilation);
  OAR_ENFORCE_ARG(output_size.size() == 2, op, ": 'output_sizes' must have 2 values, but got ",
                  output_size.size());
  const Shape& s = x.shape();
  const int64_t kk = checked_mul(kernel[0], kernel[1], op, "the kernel area");
  OAR_ENFORCE_ARG(s[1] % kk == 0, op, ": the size of x's dim 1 (", s[1],
                  ") should be divisible by the kernel area (", kk, ")");
  const int64_t ho =
      blocks(op, output_size[0], kernel[0], stride[0], padding[0], padding[2], dilation[0]);
  const int64_t wo =
      blocks(op, output_size[1], kernel[1], stride[1], padding[1], padding[3], dilation[1]);
  OAR_ENFORCE_ARG(checked_mul(ho, wo, op, "the block count") == s[2], op, ": x's dim 2 (", s[2],
                  ") should equal the number of sliding blocks (", ho, " * ", wo, " = ", ho * wo,
                  ")");
  return {Shape{s[0], s[1] / kk, output_size[0], output_size[1]}, x.dtype()};
}

IntArray max_unpool_shape(const char* op, int64_t nd, const Tensor& x, const Tensor& indices,
                          const IntArray& kernel_size, const IntArray& stride,
                          const IntArray& padding, const std::string& data_format,
                          const IntArray& output_size) {
  const char* fmt = nd == 1 ? "NCL" : nd == 2 ? "NCHW" : "NCDHW";
  OAR_ENFORCE_ARG(data_format == fmt, op, ": The data_format must be ", fmt, ", but received ",
                  data_format, ".");
  check_float32_or_64(op, "x", x);
  OAR_ENFORCE(indices.dtype() == DType::Int32 || indices.dtype() == DType::Int64, TypeMismatch,
              op, ": argument 'indices' must be an int32 or int64 tensor, got ",
              dtype_name(indices.dtype()));
  OAR_ENFORCE_ARG(x.ndim() == nd + 2, op, ": expected a ", nd + 2, "-D input x, got shape ",
                  shape_str(x.shape()));
  OAR_ENFORCE_ARG(indices.shape() == x.shape(), op, ": indices (shape ",
                  shape_str(indices.shape()), ") should have x's shape ", shape_str(x.shape()));
  auto per = [&](const IntArray& v, const char* what) {
    OAR_ENFORCE_ARG(v.size() == 1 || static_cast<int64_t>(v.size()) == nd, op, ": ", what,
                    " should have 1 or ", nd, " values, got ", list_str(v));
    return v.size() == 1 ? IntArray(std::vector<int64_t>(nd, v[0])) : v;
  };
  const IntArray k = per(kernel_size, "kernel_size");
  const IntArray s = stride.empty() ? k : per(stride, "stride");
  const IntArray p = per(padding, "padding");
  std::vector<int64_t> out{x.shape()[0], x.shape()[1]};
  if (!output_size.empty()) {
    OAR_ENFORCE_ARG(static_cast<int64_t>(output_size.size()) >= nd, op,
                    ": output_size should have at least ", nd, " values, got ",
                    list_str(output_size));
    for (int64_t d = 0; d < nd; ++d) out.push_back(output_size[output_size.size() - nd + d]);
    // As Paddle: each size strictly within a stride of the default one.
    for (int64_t d = 0; d < nd; ++d) {
      const int64_t def = (x.shape()[2 + d] - 1) * s[d] - 2 * p[d] + k[d];
      OAR_ENFORCE_ARG(def - s[d] < out[2 + d] && out[2 + d] < def + s[d], op,
                      ": invalid output_size \"", list_str(output_size), "\" (dim ", d,
                      " must be between ", def - s[d], " and ", def + s[d], ")");
    }
  } else {
    for (int64_t d = 0; d < nd; ++d)
      out.push_back((x.shape()[2 + d] - 1) * s[d] - 2 * p[d] + k[d]);
  }
  for (int64_t d = 0; d < nd; ++d)
    OAR_ENFORCE_ARG(out[2 + d] > 0, op, ": the output size should be positive, got ",
                    shape_str(Shape(out.begin(), out.end())));
  return IntArray(out);
}

Meta max_unpool_base(const char* op, const Tensor& x, const Tensor& indices,
                     const IntArray& output_shape) {
  OAR_ENFORCE(indices.dtype() == DType::Int32, TypeMismatch, op,
              ": argument 'indices' must be an int32 tensor, got ", dtype_name(indices.dtype()));
  OAR_ENFORCE_ARG(indices.shape() == x.shape() && x.ndim() >= 3 &&
                      static_cast<int64_t>(output_shape.size()) == x.ndim() &&
                      output_shape[0] == x.shape()[0] && output_shape[1] == x.shape()[1],
                  op, ": x ", shape_str(x.shape()), ", indices ", shape_str(indices.shape()),
                  " and output shape ", list_str(output_shape), " do not match");
  return {Shape(output_shape.begin(), output_shape.end()), x.dtype()};
}

bool lrn_check(const char* op, const Tensor& x, int64_t size, const std::string& data_format) {
  check_float32_or_64(op, "x", x);
  OAR_ENFORCE_ARG(x.ndim() >= 3 && x.ndim() <= 5, op,
                  ": Expected 3D or higher dimensionality input, but got ", x.ndim(),
                  " dimensions");
  OAR_ENFORCE_ARG(data_format == "NCL" || data_format == "NLC" || data_format == "NCHW" ||
                      data_format == "NHWC" || data_format == "NCDHW" || data_format == "NDHWC",
                  op, ": data_format should be in one of [NCL, NCHW, NCDHW, NLC, NHWC, NDHWC], "
                  "but got ", data_format);
  OAR_ENFORCE_ARG(size > 0, op, ": size should be positive, got ", size);
  return data_format.back() == 'C';
}

void bilinear_check(const char* op, const Tensor& x1, const Tensor& x2, const Tensor& weight,
                    const Tensor& bias) {
  check_float32_or_64(op, "x1", x1);
  OAR_ENFORCE_ARG(x1.ndim() == 2 && x2.ndim() == 2 && weight.ndim() == 3, op,
                  ": expected x1 [B, in1], x2 [B, in2] and weight [out, in1, in2], got shapes ",
                  shape_str(x1.shape()), ", ", shape_str(x2.shape()), " and ",
                  shape_str(weight.shape()));
  OAR_ENFORCE_ARG(x1.shape()[0] == x2.shape()[0] && weight.shape()[1] == x1.shape()[1] &&
                      weight.shape()[2] == x2.shape()[1],
                  op, ": shapes do not match: x1 ", shape_str(x1.shape()), ", x2 ",
                  shape_str(x2.shape()), ", weight ", shape_str(weight.shape()));
  if (bias.defined())
    OAR_ENFORCE_ARG(bias.numel() == weight.shape()[0] && bias.ndim() <= 2, op,
                    ": expected bias of shape [1, ", weight.shape()[0], "], got ",
                    shape_str(bias.shape()));
}

SdpaDims sdpa_check(const char* op, const Tensor& q, const Tensor& k, const Tensor& v,
                    const Tensor& mask, double dropout_p) {
  check_float32_or_64(op, "query", q);
  OAR_ENFORCE(k.dtype() == q.dtype() && v.dtype() == q.dtype(), TypeMismatch, op,
              ": query, key and value must have the same dtype, got ", dtype_name(q.dtype()),
              ", ", dtype_name(k.dtype()), " and ", dtype_name(v.dtype()));
  OAR_ENFORCE_ARG(q.ndim() == 4 && k.ndim() == 4 && v.ndim() == 4, op,
                  ": query, key and value should be 4-D [batch, seq_len, num_heads, head_dim], "
                  "got shapes ", shape_str(q.shape()), ", ", shape_str(k.shape()), " and ",
                  shape_str(v.shape()));
  const Shape &qs = q.shape(), &ks = k.shape(), &vs = v.shape();
  OAR_ENFORCE_ARG(qs[0] == ks[0] && ks[0] == vs[0] && ks[1] == vs[1] && ks[2] == vs[2] &&
                      qs[3] == ks[3],
                  op, ": incompatible shapes: query ", shape_str(qs), ", key ", shape_str(ks),
                  ", value ", shape_str(vs));
  OAR_ENFORCE_ARG(ks[2] > 0 && qs[2] % ks[2] == 0, op, ": the number of query heads (", qs[2],
                  ") should be a multiple of the number of key/value heads (", ks[2], ")");
  OAR_ENFORCE_ARG(dropout_p >= 0.0 && dropout_p <= 1.0, op,
                  ": dropout_p should be in [0, 1], got ", dropout_p);
  SdpaDims d{qs[0], qs[1], ks[1], qs[2], ks[2], qs[3], vs[3]};
  if (mask.defined()) {
    OAR_ENFORCE(mask.dtype() == DType::Bool || is_floating(mask.dtype()), TypeMismatch, op,
                ": attn_mask must be a bool or float tensor, got ", dtype_name(mask.dtype()));
    const Shape full{d.B, d.H, d.Sq, d.Sk};
    bool fits = mask.ndim() <= 4;
    for (int64_t i = 1; fits && i <= mask.ndim(); ++i) {
      const int64_t m = mask.shape()[mask.ndim() - i];
      fits = m == 1 || m == full[4 - i];
    }
    OAR_ENFORCE_ARG(fits, op,
                    ": attn_mask of shape ", shape_str(mask.shape()),
                    " cannot be broadcast to [batch, num_heads, seq_len, seq_len_kv] = ",
                    shape_str(full));
  }
  return d;
}

std::vector<Meta> sdpa_core(const char* op, const std::vector<Tensor>& qkv, const Tensor& dmask,
                            double, bool) {
  OAR_ENFORCE_ARG(qkv.size() == 3 || qkv.size() == 4, op,
                  ": expected {query, key, value} and maybe a mask, got ", qkv.size(), " tensors");
  // The public op expanded the mask to [B, H, Sq, Sk] already; a program file may not have.
  const SdpaDims d = sdpa_check(op, qkv[0], qkv[1], qkv[2], Tensor(), 0.0);
  const Shape full{d.B, d.H, d.Sq, d.Sk};
  auto check_full = [&](const Tensor& m, const char* what, bool bool_ok) {
    OAR_ENFORCE(m.dtype() == qkv[0].dtype() || (bool_ok && m.dtype() == DType::Bool), TypeMismatch, op,
                ": ", what, " must be ", bool_ok ? "bool or " : "", dtype_name(qkv[0].dtype()), ", got ",
                dtype_name(m.dtype()));
    OAR_ENFORCE_ARG(m.shape() == full, op, ": ", what, " must have shape ", shape_str(full), ", got ",
                    shape_str(m.shape()));
  };
  if (qkv.size() == 4) check_full(qkv[3], "the attention mask", true);
  if (dmask.defined()) check_full(dmask, "the dropout mask", false);
  return {Meta{Shape{d.B, d.Sq, d.H, d.Dv}, qkv[0].dtype()}, Meta{full, qkv[0].dtype()}};
}

Meta nms_keep(const char*, const Tensor&, double, double, double) { return {Shape{-1}, DType::Int64}; }

}  // namespace oar::infer_meta
