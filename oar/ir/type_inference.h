// Type inference at build time. Ops with an infer_meta (or a geometry-only view kernel) are
// inferred by running that function on placeholder tensors: shape and dtype, no memory. Unknown
// dims (-1) are handled by running it twice with two different sentinel sizes in their place:
// result dims that differ between the runs depend on an unknown dim and become -1. When a check
// rejects the sentinels (a dim compared with a known one), other candidate sizes are tried for
// the unknown dims (24 x the sentinels, 1, 2, 3, the known sizes of the operands, the values,
// products and sums of integer attributes; at most 4096 assignments), so checks that compare an
// unknown dim with a known size pass; checks between known dims raise the op's usual error.
// A dim that only some other value satisfies (one that is none of those candidates) makes the
// inference fail with the op's error and the sizes it tried.
#pragma once
#include <memory>
#include <vector>

#include "oar/ir/op_registry.h"

namespace oar::ir {

// The result types of `def` for these operand types (one vector per slot) and this complete
// attribute map (defaults filled in). Throws Unimplemented for a Declared op.
std::vector<TensorType> infer_types(const OpDef& def, const std::vector<std::vector<TensorType>>& slots,
                                    const AttributeMap& attrs,
                                    const std::vector<std::unique_ptr<Region>>* regions = nullptr);

// A tensor with this shape and dtype and no memory (all placeholders share one empty Storage).
// Only metadata may be read from it.
Tensor placeholder(const Shape& shape, DType dtype);
// `t` as another dtype (the placeholder analogue of cast, for promoted inputs).
Tensor retyped(const Tensor& t, DType dtype);

}  // namespace oar::ir
