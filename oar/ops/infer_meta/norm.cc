#include "oar/ops/infer_meta/norm.h"

namespace oar::infer_meta {

namespace {
// An optional per-channel tensor: x's dtype, `n` elements, 1-D.
void check_param(const char* op, const char* arg, const Tensor& t, const Tensor& x, int64_t n) {
  if (!t.defined()) return;
  OAR_ENFORCE(t.dtype() == x.dtype(), TypeMismatch, op, ": argument '", arg,
              "' must have x's dtype ", dtype_name(x.dtype()), ", got ", dtype_name(t.dtype()));
  OAR_ENFORCE_ARG(t.ndim() == 1 && t.numel() == n, op, ": argument '", arg, "' expected shape [",
                  n, "], got ", shape_str(t.shape()));
}
}  // namespace

int64_t layer_norm_begin(const Tensor& x, const IntArray& normalized_shape, const Tensor& weight,
                         const Tensor& bias, double epsilon) {
  check_float32_or_64("layer_norm", "x", x);
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  bool ok = k >= 1 && k <= x.ndim();
  for (int64_t i = 0; ok && i < k; ++i) ok = x.shape()[x.ndim() - k + i] == normalized_shape[i];
  OAR_ENFORCE_ARG(ok, "layer_norm: argument 'normalized_shape' is ",
                  shape_str(Shape(normalized_shape.begin(), normalized_shape.end())),
                  ", expected input with shape [*, ",
                  shape_str(Shape(normalized_shape.begin(), normalized_shape.end())).substr(1),
                  ", got input shape ", shape_str(x.shape()));
  OAR_ENFORCE_ARG(epsilon >= 0, "layer_norm: argument 'epsilon' must be >= 0, got ", epsilon);
  int64_t n = 1;
  for (int64_t v : normalized_shape) n *= v;
  for (auto [t, arg] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    if (!t->defined()) continue;
    OAR_ENFORCE(t->dtype() == x.dtype(), TypeMismatch, "layer_norm: argument '", arg,
                "' must have x's dtype ", dtype_name(x.dtype()), ", got ", dtype_name(t->dtype()));
    // As Paddle: 1-D with prod(normalized_shape) elements.
    OAR_ENFORCE_ARG(t->ndim() == 1 && t->numel() == n, "layer_norm: argument '", arg,
                    "' expected shape [", n, "] (prod of normalized_shape ",
                    shape_str(Shape(normalized_shape.begin(), normalized_shape.end())), "), got ",
                    shape_str(t->shape()));
  }
  return x.ndim() - k;
}

std::vector<Meta> layer_norm_base(const char*, const Tensor& x, const Tensor& weight,
                                  const Tensor& bias, double, int64_t begin) {
  check_float32_or_64("layer_norm", "x", x);
  OAR_ENFORCE_ARG(begin >= 0 && begin <= x.ndim(), "layer_norm: begin_norm_axis ", begin,
                  " out of range for a ", x.ndim(), "-D input");
  int64_t rows = 1, n = 1;
  for (int64_t d = 0; d < x.ndim(); ++d) (d < begin ? rows : n) *= x.shape()[d];
  if (weight.defined())
    OAR_ENFORCE_ARG(weight.numel() == n && weight.dtype() == x.dtype(), "layer_norm: argument 'weight' expected ", n,
                    " elements of ", dtype_name(x.dtype()), ", got shape ", shape_str(weight.shape()));
  if (bias.defined())
    OAR_ENFORCE_ARG(bias.numel() == n && bias.dtype() == x.dtype(), "layer_norm: argument 'bias' expected ", n,
                    " elements of ", dtype_name(x.dtype()), ", got shape ", shape_str(bias.shape()));
  return {{x.shape(), x.dtype()}, {{rows}, x.dtype()}, {{rows}, x.dtype()}};
}

std::vector<Meta> fused_norm(const char*, const Tensor& x, const Tensor& bias, const Tensor& residual,
                             const Tensor& norm_weight, const Tensor& norm_bias, double, int64_t begin, double,
                             bool rms) {
  const char* op = rms ? "fused_rms_norm" : "fused_layer_norm";
  check_float32_or_64(op, "x", x);
  OAR_ENFORCE_ARG(begin >= 0 && begin < std::max<int64_t>(x.ndim(), 1), op, ": begin_norm_axis ", begin,
                  " out of range for a ", x.ndim(), "-D input");
  int64_t rows = 1, n = 1;
  for (int64_t d = 0; d < x.ndim(); ++d) (d < begin ? rows : n) *= x.shape()[d];
  const bool known = rows >= 0 && n >= 0;
  auto check_row_param = [&](const Tensor& t, const char* arg) {
    if (t.defined())
      OAR_ENFORCE_ARG((!known || t.numel() == n) && t.dtype() == x.dtype(), op, ": the normalized size of x (",
                      n, ") must equal the size of '", arg, "' (", dtype_name(x.dtype()), "), got shape ",
                      shape_str(t.shape()), " ", dtype_name(t.dtype()));
  };
  check_row_param(bias, "bias");
  check_row_param(norm_weight, "norm_weight");
  check_row_param(norm_bias, "norm_bias");
  if (residual.defined())
    OAR_ENFORCE_ARG(residual.shape() == x.shape() && residual.dtype() == x.dtype(), op, ": 'residual' must have ",
                    "x's shape ", shape_str(x.shape()), " and dtype, got ", shape_str(residual.shape()), " ",
                    dtype_name(residual.dtype()));
  return {{x.shape(), x.dtype()}, {x.shape(), x.dtype()}, {{rows}, x.dtype()}, {{rows}, x.dtype()}};
}

std::vector<Meta> batch_norm_base(const char*, const Tensor& x, const Tensor& running_mean,
                                  const Tensor& running_var, const Tensor& weight,
                                  const Tensor& bias, bool, bool, double momentum, double epsilon,
                                  int64_t channel_axis) {
  check_float32_or_64("batch_norm", "x", x);
  OAR_ENFORCE_ARG(x.ndim() >= 2 && x.ndim() <= 5, "batch_norm: argument 'x' must be 2-D to 5-D, got shape ",
                  shape_str(x.shape()));
  const int64_t ax = normalize_axis(channel_axis, x.ndim(), "batch_norm", "channel_axis");
  const int64_t C = x.shape()[ax];
  check_param("batch_norm", "running_mean", running_mean, x, C);
  check_param("batch_norm", "running_var", running_var, x, C);
  check_param("batch_norm", "weight", weight, x, C);
  check_param("batch_norm", "bias", bias, x, C);
  OAR_ENFORCE_ARG(epsilon >= 0, "batch_norm: argument 'epsilon' must be >= 0, got ", epsilon);
  (void)momentum;
  return {{x.shape(), x.dtype()}, {{C}, x.dtype()}, {{C}, x.dtype()}};
}

bool group_norm(const Tensor& x, int64_t num_groups, double epsilon, const Tensor& weight,
                const Tensor& bias, const std::string& data_format) {
  check_float32_or_64("group_norm", "x", x);
  const bool last = data_format == "NHWC" || data_format == "NLC" || data_format == "NDHWC";
  OAR_ENFORCE_ARG(last || data_format == "NCHW" || data_format == "NCL" || data_format == "NCDHW",
                  "group_norm: argument 'data_format' must be one of NCL, NCHW, NCDHW, NLC, NHWC, "
                  "NDHWC, got '", data_format, "'");
  OAR_ENFORCE_ARG(x.ndim() >= 2, "group_norm: argument 'x' must be at least 2-D, got shape ",
                  shape_str(x.shape()));
  const int64_t C = last ? x.shape().back() : x.shape()[1];
  OAR_ENFORCE_ARG(num_groups >= 1 && C % num_groups == 0, "group_norm: argument 'num_groups' (",
                  num_groups, ") must divide the number of channels ", C);
  OAR_ENFORCE_ARG(epsilon >= 0, "group_norm: argument 'epsilon' must be >= 0, got ", epsilon);
  check_param("group_norm", "weight", weight, x, C);
  check_param("group_norm", "bias", bias, x, C);
  return last;
}

void instance_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                   const Tensor& weight, const Tensor& bias, bool use_input_stats,
                   const std::string& data_format) {
  check_float32_or_64("instance_norm", "x", x);
  OAR_ENFORCE_ARG(data_format == "NC" || data_format == "NCL" || data_format == "NCHW" ||
                      data_format == "NCDHW",
                  "instance_norm: argument 'data_format' must be one of NC, NCL, NCHW, NCDHW, got '",
                  data_format, "'");
  OAR_ENFORCE_ARG(x.ndim() >= 2, "instance_norm: argument 'x' must be at least 2-D, got shape ",
                  shape_str(x.shape()));
  const int64_t C = x.shape()[1];
  check_param("instance_norm", "weight", weight, x, C);
  check_param("instance_norm", "bias", bias, x, C);
  check_param("instance_norm", "running_mean", running_mean, x, C);
  check_param("instance_norm", "running_var", running_var, x, C);
  if (!use_input_stats)
    OAR_ENFORCE_ARG(running_mean.defined() && running_var.defined(),
                    "instance_norm: use_input_stats=False needs running_mean and running_var");
}

void normalize(const Tensor& x, double p, int64_t axis, double epsilon) {
  check_float32_or_64("normalize", "x", x);
  normalize_axis(axis, std::max<int64_t>(x.ndim(), 1), "normalize");
  (void)p;
  OAR_ENFORCE_ARG(epsilon >= 0, "normalize: argument 'epsilon' must be >= 0, got ", epsilon);
}

}  // namespace oar::infer_meta
