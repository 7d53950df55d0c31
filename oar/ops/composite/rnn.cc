// Composite ops of the rnn family (oar/ops/specs/rnn.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include "oar/ops/composite/composite.h"

#ifndef OAR_SHAPE_ONLY  // used by the eager-only parts below
#include "oar/kernels/cpu/rnn.h"
#include "oar/autograd/grad_mode.h"
#include "oar/autograd/node.h"
#include "oar/ir/attribute.h"
#include "oar/ops/device_dispatch.h"
#endif

namespace OAR_COMPOSITE_NAMESPACE {

#ifndef OAR_SHAPE_ONLY  // runs kernels on values; programs declare its result types
std::vector<Tensor> rnn_layer_grad(const Tensor& x, const Tensor& weight_ih, const Tensor& weight_hh,
                                   const Tensor& bias_ih, const Tensor& bias_hh, const Tensor& h0,
                                   const Tensor& c0, const Tensor& sequence_length, const Tensor& weight_ho,
                                   const Tensor& out, const Tensor& reserve, const Tensor& out_grad,
                                   const Tensor& last_h_grad, const Tensor& last_c_grad,
                                   const std::string& mode, bool is_reverse, bool want_x, bool want_weight_ih,
                                   bool want_weight_hh, bool want_bias_ih, bool want_bias_hh, bool want_h0,
                                   bool want_c0, bool want_weight_ho) {
  // Under create_graph=True the incoming gradients carry history: refuse rather than return
  // gradients that silently lack their second-order part.
  OAR_ENFORCE(!(autograd::grad_enabled() &&
                autograd::any_requires_grad({&x, &weight_ih, &weight_hh, &bias_ih, &bias_hh, &h0, &c0,
                                             &weight_ho, &out_grad, &last_h_grad, &last_c_grad})),
              Unimplemented, "rnn_layer: create_graph=True (double backward) through the fused recurrent ",
              "kernel is not supported; run the cells through oar.nn.RNN for higher-order gradients");
  const kernels::RnnMode m = kernels::rnn_mode(mode, "rnn_layer_grad");
  // On a device the gradients are made there and the backend's rnn_layer_grad kernel writes
  // them (the host kernel cannot read device memory).
  const Place place = ops::op_place("rnn_layer_grad", {&x, &weight_ih, &weight_hh, &bias_ih, &bias_hh, &h0, &c0,
                                                       &sequence_length, &weight_ho, &out, &reserve, &out_grad,
                                                       &last_h_grad, &last_c_grad});
  auto like = [&place](bool want, const Tensor& t) {
    return want && t.defined() ? Tensor::make(t.shape(), t.dtype(), place) : Tensor();
  };
  std::vector<Tensor> g{like(want_x, x),
                        like(want_weight_ih, weight_ih),
                        like(want_weight_hh, weight_hh),
                        like(want_bias_ih, bias_ih),
                        like(want_bias_hh, bias_hh),
                        like(want_h0, h0),
                        like(want_c0 && m == kernels::RnnMode::Lstm, c0),
                        Tensor(),
                        like(want_weight_ho, weight_ho)};
  if (!place.is_host()) {
    // The kernel's arguments are kernels::rnn_layer_grad's: tensors in its order (absent ones
    // ndim -1), the flags as attributes, the gradients as outputs (unwanted ones absent).
    ops::launch("rnn_layer_grad", place,
                {x, weight_ih, weight_hh, bias_ih, bias_hh, sequence_length, weight_ho, out, reserve,
                 out_grad, last_h_grad, last_c_grad},
                ir::AttributeMap{{"mode", ir::to_attribute(mode)}, {"is_reverse", ir::to_attribute(is_reverse)}},
                {g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[8]});
    return g;
  }
  kernels::rnn_layer_grad(x, weight_ih, weight_hh, bias_ih, bias_hh, sequence_length, weight_ho, m,
                          is_reverse, out, reserve, out_grad, last_h_grad, last_c_grad, g[0], g[1], g[2],
                          g[3], g[4], g[5], g[6], g[8]);
  return g;
}
#endif

}  // namespace OAR_COMPOSITE_NAMESPACE
