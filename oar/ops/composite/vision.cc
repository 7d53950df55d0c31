// Composite ops of the vision family (oar/ops/specs/vision.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include <cmath>

#include "oar/ops/composite/composite.h"

#include "oar/ops/infer_meta/vision.h"
#ifndef OAR_SHAPE_ONLY  // used by the eager-only parts below
#include "oar/kernels/cpu/attention.h"
#endif

namespace OAR_COMPOSITE_NAMESPACE {

Tensor grid_sample(const Tensor& x, const Tensor& grid, const std::string& mode,
                   const std::string& padding_mode, bool align_corners) {
  infer_meta::grid_sample_check("grid_sample", x, grid, mode, padding_mode);
  return grid_sample_base({x, grid}, mode, padding_mode, align_corners);
}

Tensor affine_grid(const Tensor& theta, const IntArray& out_shape, bool align_corners) {
  infer_meta::affine_grid_check("affine_grid", theta, out_shape);
  const int64_t N = out_shape[0];
  if (out_shape.size() == 4) {
    const int64_t H = out_shape[2], W = out_shape[3];
    const Tensor base = affine_grid_base(0, H, W, align_corners, theta.dtype());
    return reshape(matmul(reshape(base, {1, H * W, 3}), theta, false, true), {N, H, W, 2});
  }
  const int64_t D = out_shape[2], H = out_shape[3], W = out_shape[4];
  const Tensor base = affine_grid_base(D, H, W, align_corners, theta.dtype());
  return reshape(matmul(reshape(base, {1, D * H * W, 4}), theta, false, true), {N, D, H, W, 3});
}

Tensor pixel_shuffle(const Tensor& x, int64_t upscale_factor, const std::string& data_format) {
  const Shape s = infer_meta::shuffle_check("pixel_shuffle", x, upscale_factor, data_format, 0);
  const int64_t r = upscale_factor;
  const bool last = data_format == "NHWC";
  const int64_t N = s[0], C = last ? s[3] : s[1], H = last ? s[1] : s[2], W = last ? s[2] : s[3];
  const int64_t c = C / (r * r);
  const Tensor t = last ? reshape(x, {N, H, W, c, r, r}) : reshape(x, {N, c, r, r, H, W});
  const Tensor p = transpose(t, {0, 1, 4, 2, 5, 3});
  return last ? reshape(p, {N, H * r, W * r, c}) : reshape(p, {N, c, H * r, W * r});
}

Tensor pixel_unshuffle(const Tensor& x, int64_t downscale_factor, const std::string& data_format) {
  const Shape s = infer_meta::shuffle_check("pixel_unshuffle", x, downscale_factor, data_format, 1);
  const int64_t r = downscale_factor;
  const bool last = data_format == "NHWC";
  const int64_t N = s[0], C = last ? s[3] : s[1], H = (last ? s[1] : s[2]) / r, W = (last ? s[2] : s[3]) / r;
  const Tensor t = last ? reshape(x, {N, H, r, W, r, C}) : reshape(x, {N, C, H, r, W, r});
  const Tensor p = transpose(t, {0, 1, 3, 5, 2, 4});
  return last ? reshape(p, {N, H, W, C * r * r}) : reshape(p, {N, C * r * r, H, W});
}

Tensor channel_shuffle(const Tensor& x, int64_t groups, const std::string& data_format) {
  const Shape s = infer_meta::shuffle_check("channel_shuffle", x, groups, data_format, 2);
  const bool last = data_format == "NHWC";
  const int64_t N = s[0], C = last ? s[3] : s[1], H = last ? s[1] : s[2], W = last ? s[2] : s[3];
  const int64_t g = groups;
  if (last) return reshape(transpose(reshape(x, {N, H, W, g, C / g}), {0, 1, 2, 4, 3}), {N, H, W, C});
  return reshape(transpose(reshape(x, {N, g, C / g, H, W}), {0, 2, 1, 3, 4}), {N, C, H, W});
}

Tensor unfold(const Tensor& x, const IntArray& kernel_sizes, const IntArray& strides,
              const IntArray& paddings, const IntArray& dilations) {
  const auto a = infer_meta::fold_args("unfold", kernel_sizes, strides, paddings, dilations);
  return unfold_base(x, a.kernel, a.stride, a.padding, a.dilation);
}

Tensor fold(const Tensor& x, const IntArray& output_sizes, const IntArray& kernel_sizes,
            const IntArray& strides, const IntArray& paddings, const IntArray& dilations) {
  const auto a = infer_meta::fold_args("fold", kernel_sizes, strides, paddings, dilations);
  return fold_base(x, infer_meta::pair_of("fold", "output_sizes", output_sizes, 1), a.kernel, a.stride,
                   a.padding, a.dilation);
}

Tensor max_unpool1d(const Tensor& x, const Tensor& indices, const IntArray& kernel_size,
                    const IntArray& stride, const IntArray& padding, const std::string& data_format,
                    const IntArray& output_size) {
  const IntArray shape = infer_meta::max_unpool_shape("max_unpool1d", 1, x, indices, kernel_size, stride,
                                                      padding, data_format, output_size);
  return max_unpool_base(x, indices.dtype() == DType::Int32 ? indices : cast(indices, DType::Int32), shape);
}

Tensor max_unpool2d(const Tensor& x, const Tensor& indices, const IntArray& kernel_size,
                    const IntArray& stride, const IntArray& padding, const std::string& data_format,
                    const IntArray& output_size) {
  const IntArray shape = infer_meta::max_unpool_shape("max_unpool2d", 2, x, indices, kernel_size, stride,
                                                      padding, data_format, output_size);
  return max_unpool_base(x, indices.dtype() == DType::Int32 ? indices : cast(indices, DType::Int32), shape);
}

Tensor max_unpool3d(const Tensor& x, const Tensor& indices, const IntArray& kernel_size,
                    const IntArray& stride, const IntArray& padding, const std::string& data_format,
                    const IntArray& output_size) {
  const IntArray shape = infer_meta::max_unpool_shape("max_unpool3d", 3, x, indices, kernel_size, stride,
                                                      padding, data_format, output_size);
  return max_unpool_base(x, indices.dtype() == DType::Int32 ? indices : cast(indices, DType::Int32), shape);
}

Tensor local_response_norm(const Tensor& x, int64_t size, double alpha, double beta, double k,
                           const std::string& data_format) {
  const bool last = infer_meta::lrn_check("local_response_norm", x, size, data_format);
  const Shape s = x.shape();
  const int64_t nd = static_cast<int64_t>(s.size());
  std::vector<int64_t> to_first{0, nd - 1}, to_last{0};
  for (int64_t d = 1; d < nd - 1; ++d) to_first.push_back(d);
  for (int64_t d = 2; d < nd; ++d) to_last.push_back(d);
  to_last.push_back(1);
  const Tensor xf = last ? transpose(x, IntArray(to_first)) : x;
  const Shape f = xf.shape();
  int64_t L = 1;
  for (int64_t d = 2; d < nd; ++d) L *= f[d];
  const Tensor sq = reshape(multiply(xf, xf), {f[0], 1, f[1], L});
  const Tensor avg =
      pool_avg(sq, {size, 1}, {1, 1}, {size / 2, (size - 1) / 2, 0, 0}, false, false, false, false);
  const Tensor div =
      pow(scale(reshape(avg, IntArray(std::vector<int64_t>(f.begin(), f.end()))), alpha, k), beta);
  const Tensor out = divide(xf, div);
  return last ? transpose(out, IntArray(to_last)) : out;
}

Tensor bilinear(const Tensor& x1, const Tensor& x2, const Tensor& weight, const Tensor& bias) {
  infer_meta::bilinear_check("bilinear", x1, x2, weight, bias);
  const int64_t B = x1.shape()[0], O = weight.shape()[0], I = weight.shape()[1], J = weight.shape()[2];
  const Tensor w = reshape(transpose(weight, {1, 0, 2}), {I, O * J});
  const Tensor t = reshape(matmul(x1, w), {B, O, J});
  const Tensor out = sum(multiply(t, unsqueeze(x2, {1})), {2});
  return bias.defined() ? add(out, bias) : out;
}

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal, bool training,
                                    const std::optional<Scalar>& scale) {
  const auto a =
      infer_meta::sdpa_check("scaled_dot_product_attention", query, key, value, attn_mask, dropout_p);
  std::vector<Tensor> inputs{query, key, value};
  if (attn_mask.defined()) {
    const Tensor m = attn_mask.dtype() == DType::Bool || attn_mask.dtype() == query.dtype()
                         ? attn_mask
                         : cast(attn_mask, query.dtype());
    // The host kernel reads a broadcast mask through its strides (one [Sq, Sk] block serves
    // every batch and head); device kernels take it contiguous.
    const Tensor full = expand(m, {a.B, a.H, a.Sq, a.Sk});
    inputs.push_back(full.place().is_host() ? full : full.contiguous());
  }
  Tensor dmask;
  if (training && dropout_p > 0.0)
    dmask = dropout_mask({a.B, a.H, a.Sq, a.Sk}, dropout_p, dropout_p >= 1.0 ? 0.0 : 1.0 / (1.0 - dropout_p),
                         query.dtype());
  const double sc = scale.has_value() ? scale->to<double>() : 1.0 / std::sqrt(double(a.D));
  return std::get<0>(sdpa_core(inputs, dmask, sc, is_causal));
}

#ifndef OAR_SHAPE_ONLY  // runs kernels on values; programs declare its result types
namespace {

// [B, S, Hk, D] -> [B, H, S, D], each key/value head serving H / Hk query heads (grouped queries).
Tensor heads_first(const Tensor& t, int64_t H) {
  const Tensor th = transpose(t, {0, 2, 1, 3});
  const int64_t B = th.shape()[0], Hk = th.shape()[1], S = th.shape()[2], D = th.shape()[3];
  if (Hk == H) return th;
  return reshape(expand(unsqueeze(th, {2}), {B, Hk, H / Hk, S, D}), {B, H, S, D});
}

// The gradient of heads_first: [B, H, S, D] summed over each group -> [B, S, Hk, D].
Tensor heads_back(const Tensor& g, int64_t Hk) {
  const int64_t B = g.shape()[0], H = g.shape()[1], S = g.shape()[2], D = g.shape()[3];
  const Tensor grouped = H == Hk ? g : sum(reshape(g, {B, Hk, H / Hk, S, D}), {2});
  return transpose(grouped, {0, 2, 1, 3});
}

// sdpa_backward written with ops, for devices (no kernel for the fused host one): with W = P
// (times the dropout mask), dV = W^T dO, dP = dO V^T (through the mask), dS = P (dP - rowsum(dP P)),
// dQ = scale dS K, dK = scale dS^T Q; a float mask's gradient is dS.
std::vector<Tensor> sdpa_grad_with_ops(const TensorList& inputs, const Tensor& probs, const Tensor& dmask,
                                       const Tensor& out_grad, double scale) {
  const int64_t H = inputs[0].shape()[2], Hk = inputs[1].shape()[2];
  const Tensor q = transpose(inputs[0], {0, 2, 1, 3}), k = heads_first(inputs[1], H),
               v = heads_first(inputs[2], H), dout = transpose(out_grad, {0, 2, 1, 3});
  const Tensor w = dmask.defined() ? multiply(probs, dmask) : probs;
  const Tensor dv = matmul(w, dout, true, false);
  Tensor dp = matmul(dout, v, false, true);
  if (dmask.defined()) dp = multiply(dp, dmask);
  const Tensor ds = multiply(probs, subtract(dp, sum(multiply(dp, probs), {-1}, std::nullopt, true)));
  const Tensor dss = oar::scale(ds, scale);
  std::vector<Tensor> grads{transpose(matmul(dss, k), {0, 2, 1, 3}), heads_back(matmul(dss, q, true, false), Hk),
                            heads_back(dv, Hk)};
  if (inputs.size() > 3) grads.push_back(inputs[3].dtype() == DType::Bool ? Tensor() : ds);
  return grads;
}

}  // namespace

std::vector<Tensor> sdpa_grad(const TensorList& inputs, const Tensor& probs, const Tensor& dmask,
                              const Tensor& out_grad, double scale) {
  // the forward's checks, and probs and the gradient shaped as it made them
  const auto fwd = infer_meta::sdpa_core("sdpa_grad", inputs, dmask, scale, false);
  check_same_meta("sdpa_grad", "probs", probs, fwd[1].shape, fwd[1].dtype);
  check_same_meta("sdpa_grad", "out_grad", out_grad, fwd[0].shape, fwd[0].dtype);
  if (!inputs[0].place().is_host()) return sdpa_grad_with_ops(inputs, probs, dmask, out_grad, scale);
  return kernels::sdpa_backward(inputs, probs, dmask, out_grad, scale);
}
#endif

}  // namespace OAR_COMPOSITE_NAMESPACE
