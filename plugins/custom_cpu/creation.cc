// Creation kernels without inputs beyond full (elementwise.cc): arange.
// Contract: see kernels.h. out is contiguous; its dtype (the op's) picks the arithmetic, as on
// the host: integers as int64 start + i * step, floats as double start + i * step, rounded once.
#include <cstdint>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"

namespace oar_custom_cpu {

// arange: start, end, step (Scalars; out's length is already (end - start) / step).
OarStatus arange_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc out = output(ctx);
    expect_contiguous(out, "out");
    if (out.ndim() != 1) fail("out must be 1-d, got shape %s", shape_str(out.shape).c_str());
    const Scalar start = scalar_attr(ctx, "start", Scalar{false, 0, 0});
    const Scalar step = scalar_attr(ctx, "step", Scalar{false, 0, 1});
    visit_math_dtype(out.dtype, [&](auto tag) {
      using T = decltype(tag);
      T* p = out.as<T>();
      const int64_t n = out.numel;
      if constexpr (std::is_same_v<T, bool>) {
        fail("no arange kernel for bool");
      } else if constexpr (is_int_v<T>) {
        const int64_t s = start.to<int64_t>(), d = step.to<int64_t>();
        launch(ctx, [p, n, s, d] {
          for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(wrap_add(s, wrap_mul(i, d)));
        });
      } else {
        const double s = start.to_double(), d = step.to_double();
        launch(ctx, [p, n, s, d] {
          for (int64_t i = 0; i < n; ++i) p[i] = convert<T>(s + static_cast<double>(i) * d);
        });
      }
    });
  });
}

}  // namespace oar_custom_cpu
