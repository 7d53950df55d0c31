// Loss kernels: the fused hard-label cross entropy (log_softmax + nll in one pass).
#pragma once
#include <cstdint>

#include "oar/core/tensor.h"

namespace oar::kernels {

// How the input of a hard-label cross entropy is read.
enum class CEInput : int64_t { Logits = 0, Probs = 1, LogProbs = 2 };

// input [M, C] (rows of class scores), label [M] int32/int64, weight [C] or undefined.
// loss[i] = -w[l] * logp(i, l) (0 for l == ignore_index), wsum[i] = w[l] (0 when ignored),
// lse[i] = logsumexp of row i (Logits only; otherwise 0). Labels outside [0, C) that are not
// ignore_index raise IndexError.
void hard_cross_entropy(const Tensor& input, const Tensor& label, const Tensor& weight,
                        int64_t ignore_index, CEInput mode, const Tensor& loss,
                        const Tensor& wsum, const Tensor& lse);
// d input for d loss = grad [M].
void hard_cross_entropy_grad(const Tensor& input, const Tensor& label, const Tensor& weight,
                             const Tensor& lse, const Tensor& grad, int64_t ignore_index,
                             CEInput mode, const Tensor& dinput);

}  // namespace oar::kernels
