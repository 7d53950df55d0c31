// The fused elementwise kernel: a small interpreter over a list of elementwise op codes, run
// block by block so that every intermediate of the chain lives in a cache-sized buffer instead of
// a tensor of its own.
#pragma once
#include <string>
#include <vector>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"

#include "oar/ops/infer_meta/fused.h"

namespace oar::kernels {

using infer_meta::FusedEwOp;
using infer_meta::fused_ew_is_binary;
using infer_meta::fused_ew_is_valid;
using infer_meta::fused_ew_code;


// out = the last register of `program` over `inputs` (checked by infer_meta::fused_elementwise).
void fused_elementwise(const std::vector<Tensor>& inputs, const IntArray& program, const Tensor& out);

}  // namespace oar::kernels
