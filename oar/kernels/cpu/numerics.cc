#include "oar/kernels/cpu/numerics.h"

#include <cmath>
#include <limits>

#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/shape.h"

namespace oar::kernels {

NumericStats numeric_stats(const Tensor& x) {
  NumericStats s;
  const Tensor c = x.is_contiguous() ? x : as_contiguous(x, x.dtype());
  const int64_t n = c.numel();
  if (n == 0) return s;
  // A debugging aid run once per checked op: one serial pass in double is plenty.
  dispatch_floating(c.dtype(), "check_numerics", [&](auto tag) {
    using T = decltype(tag);
    const T* p = c.data<T>();
    double sum = 0, hi = -std::numeric_limits<double>::infinity(), lo = -hi;
    for (int64_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(p[i]);
      if (std::isnan(v)) { ++s.num_nan; continue; }
      if (std::isinf(v)) ++s.num_inf;
      if (v == 0) ++s.num_zero;
      hi = std::max(hi, v);
      lo = std::min(lo, v);
      sum += v;
    }
    s.max = s.num_nan == n ? std::nan("") : hi;
    s.min = s.num_nan == n ? std::nan("") : lo;
    s.mean = s.num_nan ? std::nan("") : sum / static_cast<double>(n);
  });
  return s;
}

}  // namespace oar::kernels
