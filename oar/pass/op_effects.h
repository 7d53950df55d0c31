// What passes may assume about an op: whether it can be deleted when its results are unused
// (DCE) and whether two equal-looking instances compute the same thing (CSE, constant folding).
//   - data, parameter, terminators (yield), fetch (a named output) and pass_outputs
//     (program_outputs.h) are never removed: they are the program's interface and its control
//     flow.
//   - an op that writes memory outside its results has a side effect and is kept:
//     batch_norm_base with update_running = true updates the running statistics; an op the
//     registry does not know is assumed to have one.
//   - random ops (OpDef::is_random) are removable when unused (a draw nobody reads changes
//     nothing but the generator's position, which programs do not promise), but never merged
//     or folded: two draws differ.
//   - the IR has no in-place ops (in-place variants are chosen later by the buffer planner), so
//     nothing else writes its operands.
//   - an op with regions (cond, while_loop) is as removable as everything inside it.
#pragma once
#include "oar/ir/operation.h"

namespace oar::pass {

bool has_side_effects(const ir::Operation& op);
// May be deleted when no result is used.
bool is_removable_if_unused(const ir::Operation& op);
// Same name, operands and attributes give the same results: no side effects, not random, no
// regions, registered.
bool is_pure(const ir::Operation& op);

}  // namespace oar::pass
