// Operator statistics (paddle.amp.debugging.enable_operator_stats_collection /
// collect_operator_stats): how many times each op ran, by the dtype its kernel ran in, to see
// what auto_cast did. An op observer (oar/ops/op_observer.h).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>

namespace oar::ops {

// Calls per op: [float16, bfloat16, float32, other] (the dtype of the op's first input, or of its
// output when it has none).
using OpStats = std::map<std::string, std::array<int64_t, 4>>;

void enable_op_stats();   // clears the counts and starts counting (every thread)
OpStats disable_op_stats();  // stops and returns the counts (empty if not counting)
bool op_stats_enabled();

}  // namespace oar::ops
