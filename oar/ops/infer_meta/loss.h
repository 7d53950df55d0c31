// Shape/dtype rules and argument checks for the fused hard-label cross entropy.
#pragma once
#include <vector>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// input [M, C] float, label [M] int32/int64, weight [C] (or undefined); loss, weight_sum, lse [M].
std::vector<Meta> hard_cross_entropy(const char* op, const Tensor& input, const Tensor& label,
                                     const Tensor& weight, int64_t ignore_index,
                                     int64_t input_kind);

}  // namespace oar::infer_meta
