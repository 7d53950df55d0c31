// Shape/dtype rules and argument checks of the losses in loss2.yaml.
#pragma once
#include <vector>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// logits [T, N, C] float32/float64, labels [N, Lmax], input_lengths / label_lengths [N] (ints),
// blank in [0, C); loss [N], logits_grad [T, N, C].
std::vector<Meta> ctc_loss(const char* op, const Tensor& logits, const Tensor& labels,
                           const Tensor& input_lengths, const Tensor& label_lengths,
                           int64_t blank, bool norm_by_times);

}  // namespace oar::infer_meta
