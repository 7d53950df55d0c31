// Fused scaled dot-product attention (forward and backward), float32 and float64.
//
// query [B, Sq, H, D], key [B, Sk, Hk, D], value [B, Sk, Hk, Dv], query head h reading key/value
// head h / (H / Hk). Per (batch, head): S = scale * Q K^T (GEMM), the mask (bool: false -> -inf;
// float: added; [B, H, Sq, Sk] contiguous, or undefined), is_causal (key j > query i -> -inf),
// P = softmax(S) row by row (max-subtracted), out = (P * dmask) V (GEMM; dmask: the dropout
// mask with kept values 1 / (1 - p), or undefined). probs [B, H, Sq, Sk] receives P.
#pragma once
#include <vector>

#include "oar/core/tensor.h"

namespace oar::kernels {

void sdpa_forward(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& mask,
                  const Tensor& dmask, double scale, bool is_causal, const Tensor& out,
                  const Tensor& probs);
// probs may be undefined (inference): each (batch, head)'s P then lives in a per-thread buffer.
// attention_inference: sdpa_forward without mask, dropout, causality or probs (fused_attention).
void attention_inference(const Tensor& query, const Tensor& key, const Tensor& value, double scale,
                         const Tensor& out);
// inputs: {query, key, value} or {query, key, value, mask}. {dquery, dkey, dvalue} (and dmask
// for a mask: the gradient of the scores, undefined for a bool mask) given probs (the
// forward's P) and out_grad [B, Sq, H, Dv].
std::vector<Tensor> sdpa_backward(const std::vector<Tensor>& inputs, const Tensor& probs,
                                  const Tensor& dmask, const Tensor& out_grad, double scale);

}  // namespace oar::kernels
