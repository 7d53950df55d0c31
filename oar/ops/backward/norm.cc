#include "oar/ops/backward/norm.h"

#include "oar/kernels/cpu/norm.h"
#include "oar/ops/generated/api/elementwise.h"
#include "oar/ops/generated/api/creation.h"
#include "oar/ops/op_helpers.h"

namespace oar {

Tensor fused_norm_input_grad(const autograd::Node& node, autograd::TensorList& result, size_t first_edge,
                             size_t k, const Tensor& bias, const Tensor& residual, const Tensor& norm_weight,
                             const Tensor& norm_bias, const Tensor& residual_out, const Tensor& mean,
                             const Tensor& rstd, const Tensor& grad_out, const Tensor& grad_residual_out,
                             int64_t begin_norm_axis, double residual_alpha, bool rms) {
  if (result[first_edge + k].defined()) return result[first_edge + k];
  const Tensor& h = residual_out;
  const std::array<bool, 5> present = {true, bias.defined(), residual.defined(), norm_weight.defined(),
                                       norm_bias.defined()};
  std::array<bool, 5> want{};
  for (size_t j = k; j < 5; ++j)
    want[j] = present[j] && node.needs_input_grad(first_edge + j) && !result[first_edge + j].defined();
  OAR_ENFORCE(h.place().is_host(), Unimplemented, "fused_norm: the gradient runs on the CPU only");
  // dh: the norm's input gradient plus what reached residual_out directly.
  const bool want_h = want[0] || want[1] || want[2];
  Tensor dh = want_h ? Tensor::make(h.shape(), h.dtype()) : Tensor();
  Tensor dw = want[3] ? Tensor::make(norm_weight.shape(), h.dtype()) : Tensor();
  Tensor db = want[4] ? Tensor::make(norm_bias.shape(), h.dtype()) : Tensor();
  const Tensor g = grad_out.defined() ? grad_out : zeros(h.shape(), h.dtype());
  if (dh.defined() || dw.defined() || db.defined())
    kernels::layer_norm_grad(h, norm_weight, mean, rstd, g, begin_norm_axis, dh, dw, db, rms);
  if (dh.defined() && grad_residual_out.defined()) dh = add(dh, grad_residual_out);
  std::array<Tensor, 5> grads;
  if (want[0]) grads[0] = dh;
  if (want[1]) {  // bias repeats on every row: its gradient sums dh's rows
    const int64_t n = bias.numel(), rows = n == 0 ? 0 : dh.numel() / n;
    grads[1] = reduce_to_shape(dh.reshape(IntArray({rows, n})), Shape{1, n}).reshape(IntArray(bias.shape()));
  }
  if (want[2]) grads[2] = residual_alpha == 1.0 ? dh : scale(dh, residual_alpha, 0.0, true);
  grads[3] = dw;
  grads[4] = db;
  for (size_t j = k + 1; j < 5; ++j)
    if (grads[j].defined()) result[first_edge + j] = grads[j];
  return grads[k];
}

}  // namespace oar
