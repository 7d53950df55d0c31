// CTC loss (connectionist temporal classification) in log space: forward (alpha) and backward
// (beta) recursions over the blank-interleaved label, per sample in parallel.
#pragma once
#include <cstdint>

#include "oar/core/tensor.h"

namespace oar::kernels {

// logits [T, N, C] unnormalised scores (log-softmax is taken over C here, as Paddle's warpctc),
// labels [N, Lmax] int32/int64, input_lengths / label_lengths [N] int32/int64.
// loss[n] = -log p(labels[n, :label_lengths[n]] | logits[:input_lengths[n], n]) (+inf where no
// alignment exists); grad [T, N, C] = d loss[n] / d logits[:, n] (0 past input_lengths[n] and for
// infeasible samples), divided by input_lengths[n] when norm_by_times.
// Lengths out of range or labels outside [0, C) raise ValueError / IndexError.
void ctc_loss(const Tensor& logits, const Tensor& labels, const Tensor& input_lengths,
              const Tensor& label_lengths, int64_t blank, bool norm_by_times, const Tensor& loss,
              const Tensor& grad);

}  // namespace oar::kernels
