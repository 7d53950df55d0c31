#include "oar/kernels/cpu/amp_scale.h"

#include <atomic>
#include <cmath>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"

namespace oar::kernels {

bool unscale_and_check_finite(const Tensor& grad, double inv_scale) {
  OAR_ENFORCE(grad.is_contiguous(), PreconditionNotMet, "unscale_and_check_finite: needs a contiguous gradient");
  std::atomic<bool> finite{true};
  dispatch_floating(grad.dtype(), "GradScaler.unscale_", [&](auto tag) {
    using T = decltype(tag);
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;  // compute type
    T* p = grad.data<T>();
    const C s = static_cast<C>(inv_scale);
    parallel_for(0, grad.numel(), 1 << 16, [&](int64_t b, int64_t e) {
      // x * 0 is nan exactly when x is inf or nan: a branch-free test that vectorises.
      C bad = 0;
      for (int64_t i = b; i < e; ++i) {
        const C v = static_cast<C>(p[i]);
        bad += v * C(0);
        p[i] = static_cast<T>(v * s);
      }
      if (bad != bad) finite.store(false, std::memory_order_relaxed);
    });
  });
  return finite.load();
}

}  // namespace oar::kernels
