// Small helpers the rewriting passes share: where an op sits in its block, replacing an op's
// results, and reading the value of a constant that fills a whole tensor with one number.
#pragma once
#include <optional>
#include <vector>

#include "oar/ir/block.h"

namespace oar::pass {

// The position of `op` in its parent block (for a Builder's insertion point).
ir::Block::iterator iterator_of(ir::Operation* op);

// Points every use of op's results at `values` (same count and types), then deletes op.
void replace_op(ir::Operation* op, const std::vector<ir::Value*>& values);

// The number every element of `v` holds when its defining op fills a tensor with one value
// (full, full_like, zeros, zeros_like, ones, ones_like); nullopt otherwise or for complex fills.
std::optional<double> splat_value(const ir::Value* v);

}  // namespace oar::pass
