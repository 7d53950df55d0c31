// Composite ops of the norm family (oar/ops/specs/norm.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include "oar/ops/composite/composite.h"

#include "oar/ops/infer_meta/norm.h"
#ifndef OAR_SHAPE_ONLY  // used by the eager-only parts below
#include "oar/kernels/cpu/norm.h"
#include "oar/autograd/grad_mode.h"
#include "oar/autograd/node.h"
#include "oar/device/device_registry.h"
#include "oar/ir/attribute.h"
#include "oar/ops/device_dispatch.h"
#endif

namespace OAR_COMPOSITE_NAMESPACE {

#ifndef OAR_SHAPE_ONLY
namespace {
// Whether x's device backend has the fused gradient kernel `op` for x's dtype (else the gradient
// is written with ops).
bool fused_grad_on_device(const char* op, const Tensor& x) {
  return device::find_kernel(device::backend_of(x.place(), op), op, x.dtype()) != nullptr;
}
}  // namespace
#endif

Tensor layer_norm(const Tensor& x, const IntArray& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double epsilon) {
  // Half x is normalised in float32 and rounded once, as Paddle's half kernels do; its weight and
  // bias may be float32 (auto_cast O2 and amp.decorate keep norm layers in float32).
  auto is_half = [](const Tensor& t) {
    return t.defined() && (t.dtype() == DType::Float16 || t.dtype() == DType::BFloat16);
  };
  auto up = [&](const Tensor& t) { return is_half(t) ? cast(t, DType::Float32) : t; };
  const Tensor xf = up(x), wf = up(weight), bf = up(bias);
  const int64_t begin = infer_meta::layer_norm_begin(xf, normalized_shape, wf, bf, epsilon);
  const Tensor out = std::get<0>(layer_norm_base(xf, wf, bf, epsilon, begin));
  return is_half(x) ? cast(out, x.dtype()) : out;
}

#ifndef OAR_SHAPE_ONLY  // runs kernels on values; programs declare its result types
std::tuple<Tensor, Tensor, Tensor> layer_norm_grad(const Tensor& x, const Tensor& weight, const Tensor& mean,
                                                   const Tensor& rstd, const Tensor& out_grad, double epsilon,
                                                   int64_t begin_norm_axis, bool want_x, bool want_weight,
                                                   bool want_bias) {
  {  // the forward's checks, and the saved statistics and gradient shaped as it made them
    const auto fwd =
        infer_meta::layer_norm_base("layer_norm_grad", x, weight, Tensor(), epsilon, begin_norm_axis);
    check_same_meta("layer_norm_grad", "mean", mean, fwd[1].shape, fwd[1].dtype);
    check_same_meta("layer_norm_grad", "rstd", rstd, fwd[2].shape, fwd[2].dtype);
    check_same_meta("layer_norm_grad", "out_grad", out_grad, fwd[0].shape, fwd[0].dtype);
  }
  int64_t rows = 1;
  for (int64_t d = 0; d < begin_norm_axis; ++d) rows *= x.shape()[d];
  const int64_t n = rows == 0 ? 0 : x.numel() / rows;
  const Shape pshape =
      weight.defined() ? weight.shape() : Shape(x.shape().begin() + begin_norm_axis, x.shape().end());
  const bool differentiable = autograd::grad_enabled() && autograd::any_requires_grad({&x, &weight, &out_grad});
  if (!differentiable && !x.place().is_host() && fused_grad_on_device("layer_norm_grad", x)) {
    // The backend's fused kernel, with kernels::layer_norm_grad's arguments (absent ones ndim
    // -1; unwanted gradients absent).
    const Place place = x.place();
    Tensor dx = want_x ? Tensor::make(x.shape(), x.dtype(), place) : Tensor();
    Tensor dw = want_weight && weight.defined() ? Tensor::make(weight.shape(), x.dtype(), place) : Tensor();
    Tensor db = want_bias ? Tensor::make(pshape, x.dtype(), place) : Tensor();
    if (dx.defined() || dw.defined() || db.defined())
      ops::launch("layer_norm_grad", place, {x, weight, mean, rstd, out_grad},
                  ir::AttributeMap{{"begin_norm_axis", ir::to_attribute(begin_norm_axis)}}, {dx, dw, db});
    return {dx, dw, db};
  }
  if (differentiable || !x.place().is_host()) {
    // create_graph=True: the same gradient written with differentiable ops (statistics
    // recomputed from x), so that it can be differentiated again. A device without the fused
    // kernel: the same ops, with the statistics the forward saved.
    const Tensor xr = reshape(x, {rows, n}), gr = reshape(out_grad, {rows, n});
    Tensor r, h;
    if (differentiable) {
      const Tensor d = xr - oar::mean(xr, {1}, true);
      r = rsqrt(oar::mean(d * d, {1}, true) + epsilon);
      h = d * r;
    } else {
      r = reshape(rstd, {rows, 1});
      h = (xr - reshape(mean, {rows, 1})) * r;
    }
    const Tensor g = weight.defined() ? gr * reshape(weight, {1, n}) : gr;
    Tensor dx, dw, db;
    if (want_x)
      dx = reshape(r * (g - oar::mean(g, {1}, true) - h * oar::mean(g * h, {1}, true)), IntArray(x.shape()));
    if (want_weight && weight.defined()) dw = reshape(sum(gr * h, {0}), IntArray(pshape));
    if (want_bias) db = reshape(sum(gr, {0}), IntArray(pshape));
    return {dx, dw, db};
  }
  Tensor dx = want_x ? Tensor::make(x.shape(), x.dtype()) : Tensor();
  Tensor dw = want_weight && weight.defined() ? Tensor::make(weight.shape(), x.dtype()) : Tensor();
  Tensor db = want_bias ? Tensor::make(pshape, x.dtype()) : Tensor();
  kernels::layer_norm_grad(x, weight, mean, rstd, out_grad, begin_norm_axis, dx, dw, db);
  return {dx, dw, db};
}
#endif

#ifndef OAR_SHAPE_ONLY  // runs kernels on values; programs declare its result types
std::tuple<Tensor, Tensor, Tensor> batch_norm_grad(const Tensor& x, const Tensor& weight,
                                                   const Tensor& saved_mean, const Tensor& saved_rstd,
                                                   const Tensor& out_grad, double epsilon,
                                                   bool use_batch_stats, int64_t channel_axis, bool want_x,
                                                   bool want_weight, bool want_bias) {
  {  // the forward's checks, and the saved statistics and gradient shaped as it made them
    const auto fwd = infer_meta::batch_norm_base("batch_norm_grad", x, Tensor(), Tensor(), weight, Tensor(),
                                                 use_batch_stats, false, 0.0, epsilon, channel_axis);
    check_same_meta("batch_norm_grad", "saved_mean", saved_mean, fwd[1].shape, fwd[1].dtype);
    check_same_meta("batch_norm_grad", "saved_rstd", saved_rstd, fwd[2].shape, fwd[2].dtype);
    check_same_meta("batch_norm_grad", "out_grad", out_grad, fwd[0].shape, fwd[0].dtype);
  }
  const bool differentiable = autograd::grad_enabled() && autograd::any_requires_grad({&x, &weight, &out_grad});
  if (!differentiable && !x.place().is_host() && fused_grad_on_device("batch_norm_grad", x)) {
    // The backend's fused kernel, with kernels::batch_norm_grad's arguments (absent ones ndim
    // -1; unwanted gradients absent).
    const Place place = x.place();
    Tensor dx = want_x ? Tensor::make(x.shape(), x.dtype(), place) : Tensor();
    Tensor dw = want_weight ? Tensor::make(saved_mean.shape(), x.dtype(), place) : Tensor();
    Tensor db = want_bias ? Tensor::make(saved_mean.shape(), x.dtype(), place) : Tensor();
    if (dx.defined() || dw.defined() || db.defined())
      ops::launch("batch_norm_grad", place, {x, weight, saved_mean, saved_rstd, out_grad},
                  ir::AttributeMap{{"use_batch_stats", ir::to_attribute(use_batch_stats)},
                                   {"channel_axis", ir::to_attribute(channel_axis)}},
                  {dx, dw, db});
    return {dx, dw, db};
  }
  if (differentiable || !x.place().is_host()) {
    // create_graph=True: the same gradient written with differentiable ops (batch statistics
    // recomputed from x), so that it can be differentiated again. A device without the fused
    // kernel: the same ops, with the statistics the forward saved.
    const int64_t ax = channel_axis < 0 ? channel_axis + x.ndim() : channel_axis;
    int64_t outer = 1, inner = 1;
    const int64_t C = x.shape()[ax];
    for (int64_t d = 0; d < ax; ++d) outer *= x.shape()[d];
    for (int64_t d = ax + 1; d < x.ndim(); ++d) inner *= x.shape()[d];
    const Tensor x3 = reshape(x, {outer, C, inner}), g3 = reshape(out_grad, {outer, C, inner});
    Tensor h, r;
    if (use_batch_stats && differentiable) {
      const Tensor d = x3 - mean(x3, {0, 2}, true);
      r = rsqrt(mean(d * d, {0, 2}, true) + epsilon);
      h = d * r;
    } else {
      r = reshape(saved_rstd, {1, C, 1});
      h = (x3 - reshape(saved_mean, {1, C, 1})) * r;
    }
    const Tensor k = weight.defined() ? reshape(weight, {1, C, 1}) * r : r;
    Tensor dx, dw, db;
    if (want_x) {
      dx = use_batch_stats ? k * (g3 - mean(g3, {0, 2}, true) - h * mean(g3 * h, {0, 2}, true)) : k * g3;
      dx = reshape(dx, IntArray(x.shape()));
    }
    if (want_weight) dw = sum(g3 * h, {0, 2});
    if (want_bias) db = sum(g3, {0, 2});
    return {dx, dw, db};
  }
  Tensor dx = want_x ? Tensor::make(x.shape(), x.dtype()) : Tensor();
  Tensor dw = want_weight ? Tensor::make(saved_mean.shape(), x.dtype()) : Tensor();
  Tensor db = want_bias ? Tensor::make(saved_mean.shape(), x.dtype()) : Tensor();
  kernels::batch_norm_grad(x, weight, saved_mean, saved_rstd, out_grad, use_batch_stats, channel_axis, dx, dw,
                           db);
  return {dx, dw, db};
}
#endif

Tensor group_norm(const Tensor& x, int64_t num_groups, double epsilon, const Tensor& weight,
                  const Tensor& bias, const std::string& data_format) {
  const bool last = infer_meta::group_norm(x, num_groups, epsilon, weight, bias, data_format);
  const int64_t r = x.ndim();
  Tensor xc = x;
  std::vector<int64_t> to_first, to_last;
  if (last) {
    to_first.push_back(0);
    to_first.push_back(r - 1);
    for (int64_t d = 1; d < r - 1; ++d) to_first.push_back(d);
    to_last.push_back(0);
    for (int64_t d = 2; d < r; ++d) to_last.push_back(d);
    to_last.push_back(1);
    xc = transpose(x, to_first);
  }
  const Shape s = xc.shape();
  Tensor y =
      std::get<0>(layer_norm_base(reshape(xc, {s[0], num_groups, -1}), Tensor(), Tensor(), epsilon, 2));
  y = reshape(y, IntArray(std::vector<int64_t>(s.begin(), s.end())));
  std::vector<int64_t> bshape(static_cast<size_t>(r), 1);
  bshape[1] = s[1];
  if (weight.defined()) y = y * reshape(weight, bshape);
  if (bias.defined()) y = y + reshape(bias, bshape);
  return last ? transpose(y, to_last) : y;
}

Tensor instance_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                     const Tensor& weight, const Tensor& bias, bool use_input_stats, double momentum,
                     double eps, const std::string& data_format) {
  infer_meta::instance_norm(x, running_mean, running_var, weight, bias, use_input_stats, data_format);
  const int64_t r = x.ndim();
  std::vector<int64_t> bshape(static_cast<size_t>(r), 1);
  bshape[1] = x.shape()[1];
  Tensor y;
  if (use_input_stats) {
    const Shape s = x.shape();
    y = std::get<0>(layer_norm_base(reshape(x, {s[0] * s[1], -1}), Tensor(), Tensor(), eps, 1));
    y = reshape(y, IntArray(std::vector<int64_t>(s.begin(), s.end())));
  } else {
    y = (x - reshape(running_mean, bshape)) * rsqrt(reshape(running_var, bshape) + eps);
  }
  if (weight.defined()) y = y * reshape(weight, bshape);
  if (bias.defined()) y = y + reshape(bias, bshape);
  return y;
}

Tensor normalize(const Tensor& x, double p, int64_t axis, double epsilon) {
  infer_meta::normalize(x, p, axis, epsilon);
  return x / clip(p_norm(x, p, {axis}, true), epsilon);
}

}  // namespace OAR_COMPOSITE_NAMESPACE
