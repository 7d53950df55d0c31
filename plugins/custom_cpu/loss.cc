// Losses: hard_cross_entropy (cross_entropy and nll_loss with class-index labels).
// Contract: see kernels.h. input [M, C] float32/float64 and weight [C] may be any strided
// views; label [M] int32/int64; the outputs loss, weight_sum, lse are contiguous [M]. The
// arithmetic is the host's (oar/kernels/cpu/loss.cc), in double. The host raises for a label
// outside [0, C) that is not ignore_index; a device kernel cannot report that after it runs,
// so such a row's loss is NaN (its weight 0), which a reduction carries into the result.
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {
namespace {

enum class CEInput : int64_t { Logits = 0, Probs = 1, LogProbs = 2 };

// logsumexp of a row as the host's row_lse: max first (NaN passed over), an infinite max is
// the result, else log(sum(exp(x - max))) + max.
double row_lse(const std::vector<double>& x) {
  double m = -std::numeric_limits<double>::infinity();
  for (double v : x) m = v > m ? v : m;
  if (std::isinf(m)) return m;
  double s = 0;
  for (double v : x) s += std::exp(v - m);
  return std::log(s) + m;
}

}  // namespace

// hard_cross_entropy: input, label, weight?; ignore_index, input_kind (0 logits, 1
// probabilities, 2 log-probabilities). loss[i] = -w[l] logp(i, l) (0 when l == ignore_index),
// weight_sum[i] = w[l] (0 when ignored), lse[i] = logsumexp of row i for logits (else 0).
OarStatus hard_cross_entropy_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "input"), label = input(ctx, 1, "label");
    const bool has_weight = ctx->num_inputs > 2 && ctx->inputs != nullptr && ctx->inputs[2].ndim >= 0;
    const TensorDesc weight = has_weight ? input(ctx, 2, "weight") : TensorDesc{};
    const TensorDesc loss = output(ctx, 0), wsum = output(ctx, 1), lse = output(ctx, 2);
    const int64_t ignore_index = int_attr(ctx, "ignore_index", -100);
    const int64_t kind = int_attr(ctx, "input_kind", 0);
    if (kind < 0 || kind > 2) fail("input_kind must be 0, 1 or 2, got %lld", static_cast<long long>(kind));
    if (x.ndim() != 2) fail("input must be 2-d [N, C], got shape %s", shape_str(x.shape).c_str());
    const int64_t M = x.shape[0], C = x.shape[1];
    if (label.dtype != OAR_INT32 && label.dtype != OAR_INT64) fail("label must be int32 or int64, got %s", dtype_name(label.dtype));
    expect_shape(label, {M}, "label");
    if (has_weight) {
      expect_dtype(weight, x.dtype, "weight");
      expect_shape(weight, {C}, "weight");
    }
    for (const TensorDesc* t : {&loss, &wsum, &lse}) {
      expect_dtype(*t, x.dtype, "out");
      expect_shape(*t, {M}, "out");
      expect_contiguous(*t, "out");
    }
    const int64_t xr = x.strides[0], xc = x.strides[1], ls = label.strides[0];
    const int64_t ws = has_weight ? weight.strides[0] : 0;
    const bool l64 = label.dtype == OAR_INT64;
    const char* lp = label.data;
    auto run = [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.as<const T>();
      const T* wp = has_weight ? weight.as<const T>() : nullptr;
      T* op = loss.as<T>();
      T* wo = wsum.as<T>();
      T* so = lse.as<T>();
      const CEInput mode = static_cast<CEInput>(kind);
      launch(ctx, [=] {
        std::vector<double> row(static_cast<size_t>(C));
        for (int64_t r = 0; r < M; ++r) {
          const int64_t l = l64 ? reinterpret_cast<const int64_t*>(lp)[r * ls]
                                : reinterpret_cast<const int32_t*>(lp)[r * ls];
          for (int64_t c = 0; c < C; ++c) row[c] = static_cast<double>(xp[r * xr + c * xc]);
          const double s = mode == CEInput::Logits && C > 0 ? row_lse(row) : 0.0;
          so[r] = static_cast<T>(s);
          if (l == ignore_index) {
            op[r] = wo[r] = T(0);
            continue;
          }
          if (l < 0 || l >= C) {  // the host's IndexError (see the file comment)
            op[r] = std::numeric_limits<T>::quiet_NaN();
            wo[r] = T(0);
            continue;
          }
          const double w = wp ? static_cast<double>(wp[l * ws]) : 1.0;
          double logp;
          if (mode == CEInput::Logits) logp = row[l] - s;
          else if (mode == CEInput::Probs) logp = std::log(row[l]);
          else logp = row[l];
          op[r] = static_cast<T>(-w * logp);
          wo[r] = static_cast<T>(w);
        }
      });
    };
    if (x.dtype == OAR_FLOAT32) run(float{});
    else if (x.dtype == OAR_FLOAT64) run(double{});
    else unsupported("no hard_cross_entropy kernel for %s (float32 and float64 have one)", dtype_name(x.dtype));
  });
}

}  // namespace oar_custom_cpu
