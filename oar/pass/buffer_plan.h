// Buffer planning from liveness: for one block, which buffer (slot) each value's memory lives
// in, so that a value whose last reader has run hands its memory to a later value of the same
// byte size, and which ops may run their in-place variant (OpDef::inplace_variant) because the
// operand they would overwrite dies at that op. The executor consumes the plan.
//   - data and parameter results (and block arguments) are external memory: no slot.
//   - a view (OpDef::is_view) shares its base's slot; the base lives until its last view's
//     last reader.
//   - a use inside a region counts at the op that holds the region; values in `live_out` (the
//     fetched ones) and values yielded by the terminator live to the end of the block.
//   - a value without readers is freed right after its op (its op still writes it).
//   - an op's results never take the slot of a buffer freed at that same op, unless the op
//     runs in place: `can_run_in_place(op)` holds (by default: its inplace_variant exists), operand 0 is a buffer of its own (not external,
//     not a view) of the result's byte size that dies at this op; the result then takes it.
//   - slots are reused only between values of equal, known byte size; a value with unknown
//     dims gets a slot of its own (bytes unknown, left out of the totals).
// Nested regions are planned separately (plan their blocks).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "oar/ir/block.h"

namespace oar::pass {

struct BufferPlan {
  std::unordered_map<const ir::Value*, int> slot;            // value -> slot id (views: their base's)
  std::vector<int64_t> slot_bytes;                           // per slot; -1: unknown
  std::unordered_map<const ir::Value*, size_t> last_use;     // op index of the last reader
  std::unordered_set<const ir::Operation*> inplace;          // ops that may run in place
  int64_t bytes_without_reuse = 0;  // every buffer its own memory (known sizes)
  int64_t bytes_with_reuse = 0;     // the sum of the slots (known sizes)
  size_t unknown_size_buffers = 0;

  int slot_of(const ir::Value* v) const;  // -1: no slot (external memory)
  std::string str() const;                // a summary, for logs and tests
};

// The byte size of a value of type t; -1 when a dim is unknown.
int64_t byte_size(const ir::TensorType& t);

// Which ops can write their result over operand 0 (the executor passes the ops it has in-place
// kernels for); empty: those with an inplace_variant.
using InplacePredicate = std::function<bool(const ir::Operation&)>;

BufferPlan plan_buffers(const ir::Block& block, const std::unordered_set<const ir::Value*>& live_out = {},
                        const InplacePredicate& can_run_in_place = {});

}  // namespace oar::pass
