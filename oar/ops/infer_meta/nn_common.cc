#include "oar/ops/infer_meta/nn_common.h"

#include <algorithm>

namespace oar::infer_meta {

namespace {
void check_ids(const char* op, const Tensor& x) {
  OAR_ENFORCE(x.dtype() == DType::Int32 || x.dtype() == DType::Int64, TypeMismatch, op,
              ": argument 'x' must be an int32 or int64 tensor, got ", dtype_name(x.dtype()));
}
}  // namespace

void linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  check_floating("linear", "x", x);
  OAR_ENFORCE(weight.dtype() == x.dtype(), TypeMismatch, "linear: argument 'weight' must have x's dtype ",
              dtype_name(x.dtype()), ", got ", dtype_name(weight.dtype()));
  OAR_ENFORCE_ARG(weight.ndim() == 2, "linear: argument 'weight' must be 2-D [in_features, out_features], got shape ",
                  shape_str(weight.shape()));
  OAR_ENFORCE_ARG(x.ndim() >= 1 && x.shape().back() == weight.shape()[0],
                  "linear: the last dim of argument 'x' (shape ", shape_str(x.shape()),
                  ") must equal in_features = weight.shape[0] = ", weight.shape()[0]);
  if (bias.defined()) {
    OAR_ENFORCE(bias.dtype() == x.dtype(), TypeMismatch, "linear: argument 'bias' must have x's dtype ",
                dtype_name(x.dtype()), ", got ", dtype_name(bias.dtype()));
    OAR_ENFORCE_ARG(bias.numel() == weight.shape()[1] && bias.ndim() <= 1,
                    "linear: argument 'bias' expected shape [", weight.shape()[1], "], got ",
                    shape_str(bias.shape()));
  }
}

Shape dropout(const Tensor& x, double p, const IntArray& axis, const std::string& mode) {
  check_floating("dropout", "x", x);
  OAR_ENFORCE_ARG(p >= 0.0 && p <= 1.0, "dropout: argument 'p' must be in [0, 1], got ", p);
  OAR_ENFORCE_ARG(mode == "upscale_in_train" || mode == "downscale_in_infer",
                  "dropout: argument 'mode' must be 'upscale_in_train' or 'downscale_in_infer', got '",
                  mode, "'");
  if (axis.empty()) return x.shape();
  Shape m(x.shape().size(), 1);
  for (int64_t a : axis) {
    OAR_ENFORCE_ARG(a >= 0 && a < x.ndim(), "dropout: argument 'axis' holds ", a,
                    ", expected values in [0, ", x.ndim(), ")");
    m[a] = x.shape()[a];
  }
  return m;
}

int64_t embedding_padding(const Tensor& x, const Tensor& weight,
                          const std::optional<int64_t>& padding_idx, bool sparse) {
  (void)sparse;  // the gradient is always dense here (as Paddle's dense fallback)
  check_ids("embedding", x);
  check_floating("embedding", "weight", weight);
  OAR_ENFORCE_ARG(weight.ndim() == 2, "embedding: argument 'weight' must be 2-D [num_embeddings, dim], got shape ",
                  shape_str(weight.shape()));
  if (!padding_idx.has_value()) return -1;
  const int64_t rows = weight.shape()[0];
  int64_t p = *padding_idx;
  OAR_ENFORCE_ARG(p >= -rows && p < rows, "embedding: argument 'padding_idx' must be in [", -rows,
                  ", ", rows, "), got ", p);
  return p < 0 ? p + rows : p;
}

Meta embedding(const char*, const Tensor& x, const Tensor& weight, int64_t) {
  check_ids("embedding", x);
  check_floating("embedding", "weight", weight);
  OAR_ENFORCE_ARG(weight.ndim() == 2, "embedding: argument 'weight' must be 2-D, got shape ",
                  shape_str(weight.shape()));
  Shape s = x.shape();
  s.push_back(weight.shape()[1]);
  return {s, weight.dtype()};
}

Meta embedding_grad(const char*, const Tensor& x, const Tensor& out_grad, int64_t num_weights,
                    int64_t) {
  check_ids("embedding_grad", x);
  OAR_ENFORCE_ARG(out_grad.ndim() == x.ndim() + 1 &&
                      Shape(out_grad.shape().begin(), out_grad.shape().end() - 1) == x.shape(),
                  "embedding_grad: out_grad of shape ", shape_str(out_grad.shape()),
                  " must be the ids' shape ", shape_str(x.shape()), " plus the embedding dim");
  OAR_ENFORCE_ARG(num_weights >= 0, "embedding_grad: num_weights must be >= 0, got ", num_weights);
  return {{num_weights, out_grad.shape().back()}, out_grad.dtype()};
}

Meta one_hot(const char*, const Tensor& x, int64_t num_classes) {
  check_ids("one_hot", x);
  OAR_ENFORCE_ARG(num_classes >= 1, "one_hot: argument 'num_classes' must be >= 1, got ", num_classes);
  Shape s = x.shape();
  s.push_back(num_classes);
  return {s, DType::Float32};
}

Meta pad_nd(const char*, const Tensor& x, const IntArray& pads, const std::string& mode, double) {
  check_float32_or_64("pad", "x", x);
  OAR_ENFORCE_ARG(static_cast<int64_t>(pads.size()) == 2 * x.ndim(), "pad: expected ", 2 * x.ndim(),
                  " padding amounts for a ", x.ndim(), "-D input, got ", pads.size());
  const bool constant = mode == "constant";
  OAR_ENFORCE_ARG(constant || mode == "reflect" || mode == "replicate" || mode == "circular",
                  "pad: argument 'mode' must be one of 'constant', 'reflect', 'replicate', "
                  "'circular', got '", mode, "'");
  Shape s = x.shape();
  for (int64_t d = 0; d < x.ndim(); ++d) {
    const int64_t b = pads[2 * d], a = pads[2 * d + 1], n = x.shape()[d];
    OAR_ENFORCE_ARG(b >= 0 && a >= 0, "pad: padding amounts must be >= 0, got ", b, " and ", a,
                    " for dim ", d);
    if (b == 0 && a == 0) continue;
    if (mode == "reflect")
      OAR_ENFORCE_ARG(b < n && a < n, "pad: reflect padding of dim ", d, " (size ", n,
                      ") must be less than the dim size, got ", b, " and ", a);
    if (mode == "replicate")
      OAR_ENFORCE_ARG(n > 0, "pad: replicate padding of dim ", d, " needs a non-empty dim");
    if (mode == "circular")
      OAR_ENFORCE_ARG(b <= n && a <= n, "pad: circular padding of dim ", d, " (size ", n,
                      ") must be at most the dim size, got ", b, " and ", a);
    s[d] = checked_add(checked_add(n, b, "pad", "the padded size"), a, "pad", "the padded size");
  }
  return {s, x.dtype()};
}

Meta pad_nd_grad(const char*, const Tensor& out_grad, const IntArray& input_shape,
                 const IntArray& pads, const std::string&) {
  OAR_ENFORCE_ARG(pads.size() == 2 * input_shape.size() && out_grad.ndim() == static_cast<int64_t>(input_shape.size()),
                  "pad_grad: shapes do not match the padding");
  // out_grad is the padded input: each dim the input's plus its two paddings.
  for (size_t d = 0; d < input_shape.size(); ++d) {
    int64_t padded = input_shape[d];
    const bool fits = input_shape[d] >= 0 && pads[2 * d] >= 0 && pads[2 * d + 1] >= 0 &&
                      !__builtin_add_overflow(padded, pads[2 * d], &padded) &&
                      !__builtin_add_overflow(padded, pads[2 * d + 1], &padded) &&
                      padded == out_grad.shape()[d];
    OAR_ENFORCE_ARG(fits, "pad_grad: out_grad of shape ", shape_str(out_grad.shape()), " is not input_shape ",
                    shape_str(Shape(input_shape.begin(), input_shape.end())), " padded by ",
                    shape_str(Shape(pads.begin(), pads.end())));
  }
  return {Shape(input_shape.begin(), input_shape.end()), out_grad.dtype()};
}

}  // namespace oar::infer_meta
