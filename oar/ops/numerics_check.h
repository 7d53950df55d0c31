// nan/inf checks of op results (paddle.amp.debugging.check_numerics, enable_tensor_checker, and
// FLAGS_check_nan_inf): a check of one tensor, and a checker that observes every op
// (oar/ops/op_observer.h) and checks each floating output as it is made.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/kernels/cpu/numerics.h"

namespace oar::ops {

// Paddle's DebugMode values.
enum class DebugMode { CheckNanInfAndAbort = 0, CheckNanInf = 1, CheckAllForOverflow = 2, CheckAll = 3 };

// Checks x's values: prints Paddle's "[PRECISION] ..." line to stdout when x holds nan or inf
// (every tensor in the CheckAll modes) and, in CheckNanInfAndAbort, then raises
// PreconditionNotMet (Python RuntimeError) naming the op and tensor.
kernels::NumericStats check_numerics(const Tensor& x, std::string_view op, std::string_view var_name,
                                     DebugMode mode);

struct TensorCheckerConfig {
  DebugMode mode = DebugMode::CheckNanInfAndAbort;
  std::vector<std::string> checked_ops;  // empty: every op
  std::vector<std::string> skipped_ops;
};

// Checks the outputs of every op run from now on (any thread) until disable_tensor_checker.
void enable_tensor_checker(TensorCheckerConfig config);
void disable_tensor_checker();
bool tensor_checker_enabled();

}  // namespace oar::ops
