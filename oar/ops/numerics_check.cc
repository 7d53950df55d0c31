#include "oar/ops/numerics_check.h"

#include <algorithm>
#include <cstdio>
#include <mutex>

#include "oar/core/error.h"
#include "oar/ops/device_dispatch.h"
#include "oar/ops/op_observer.h"

namespace oar::ops {

namespace {
// Paddle's short dtype names in these messages.
const char* short_dtype(DType t) {
  switch (t) {
    case DType::Float16: return "fp16";
    case DType::BFloat16: return "bf16";
    case DType::Float32: return "fp32";
    case DType::Float64: return "fp64";
    default: return dtype_name(t);
  }
}

std::mutex g_checker_mutex;
int g_checker_id = 0;
}  // namespace

kernels::NumericStats check_numerics(const Tensor& x, std::string_view op, std::string_view var_name,
                                     DebugMode mode) {
  OAR_ENFORCE(is_floating(x.dtype()), TypeMismatch, "check_numerics: expected a floating tensor (float16, ",
              "bfloat16, float32 or float64), got ", dtype_name(x.dtype()));
  const Tensor host = x.place().is_host() ? x : ops::copy_to_place(x, CPUPlace());
  const kernels::NumericStats s = kernels::numeric_stats(host);
  const bool bad = s.num_nan > 0 || s.num_inf > 0;
  const bool print_all = mode == DebugMode::CheckAll || mode == DebugMode::CheckAllForOverflow;
  const Place pl = x.place();
  const std::string device = pl.is_cpu() ? pl.device_type() : pl.device_type() + ":" + std::to_string(pl.device_id);
  const std::string where = "[device=" + device + ", op=" + std::string(op) + ", tensor=" +
                            std::string(var_name) + ", dtype=" + short_dtype(x.dtype()) + "]";
  if (bad) {
    std::printf("[PRECISION] [ERROR] in %s, numel=%lld, num_nan=%lld, num_inf=%lld, num_zero=%lld, max=%e, "
                "min=%e, mean=%e\n",
                where.c_str(), static_cast<long long>(x.numel()), static_cast<long long>(s.num_nan),
                static_cast<long long>(s.num_inf), static_cast<long long>(s.num_zero), s.max, s.min, s.mean);
  } else if (print_all) {
    std::printf("[PRECISION] in %s, numel=%lld, num_zero=%lld, max=%e, min=%e, mean=%e\n", where.c_str(),
                static_cast<long long>(x.numel()), static_cast<long long>(s.num_zero), s.max, s.min, s.mean);
  }
  std::fflush(stdout);
  if (bad && mode == DebugMode::CheckNanInfAndAbort)
    OAR_THROW(PreconditionNotMet, "There are NAN or INF (num_nan=", s.num_nan, ", num_inf=", s.num_inf,
              ", num_zero=", s.num_zero, ") in ", where, ".");
  return s;
}

void enable_tensor_checker(TensorCheckerConfig config) {
  std::lock_guard<std::mutex> lock(g_checker_mutex);
  if (g_checker_id) remove_observer(g_checker_id);
  g_checker_id = add_observer([config = std::move(config)](const OpCall& call) {
    const std::string_view op = call.op;
    auto listed = [&](const std::vector<std::string>& ops) {
      return std::find(ops.begin(), ops.end(), op) != ops.end();
    };
    if ((!config.checked_ops.empty() && !listed(config.checked_ops)) || listed(config.skipped_ops)) return;
    for (const Tensor& t : call.outputs)
      if (t.defined() && is_floating(t.dtype()) && t.numel() > 0) check_numerics(t, op, "", config.mode);
  });
}

void disable_tensor_checker() {
  std::lock_guard<std::mutex> lock(g_checker_mutex);
  if (g_checker_id) remove_observer(g_checker_id);
  g_checker_id = 0;
}

bool tensor_checker_enabled() {
  std::lock_guard<std::mutex> lock(g_checker_mutex);
  return g_checker_id != 0;
}

}  // namespace oar::ops
