// softmax_base and log_softmax_base: (log-)softmax of x along one axis (oar's softmax,
// log_softmax and cross-entropy composites call them).
// Contract: see kernels.h. x is any strided view; out is contiguous with x's shape and dtype.
// Each row along the axis is read once into a buffer, shifted by its maximum (no overflow in
// exp), then normalised; the sum is accumulated in double.
#include <cmath>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {
namespace {

template <typename T>
void enqueue_softmax(const OarKernelContext* ctx, const TensorDesc& x, const TensorDesc& out, int axis,
                     bool log) {
  const int nd = x.ndim();
  const int64_t len = nd == 0 ? 1 : x.shape[axis];
  const int64_t x_step = nd == 0 ? 0 : x.strides[axis];
  const std::vector<int64_t> out_strides = contiguous_strides(x.shape);
  const int64_t out_step = nd == 0 ? 0 : out_strides[axis];
  // One walk over the rows: the shape with the axis collapsed to 1.
  std::vector<int64_t> rows_shape = x.shape;
  if (nd > 0) rows_shape[axis] = 1;
  StridedWalker<2> rows(rows_shape, {x.strides, out_strides});
  const T* xp = x.as<const T>();
  T* op = out.as<T>();
  launch(ctx, [rows = std::move(rows), xp, op, len, x_step, out_step, log] {
    std::vector<double> buf(static_cast<size_t>(len));
    rows.run([&](const std::array<int64_t, 2>& off) {
      double hi = -INFINITY;
      for (int64_t i = 0; i < len; ++i) {
        buf[i] = convert<double>(xp[off[0] + i * x_step]);
        hi = std::max(hi, buf[i]);
      }
      double total = 0;
      for (int64_t i = 0; i < len; ++i) total += std::exp(buf[i] -= hi);  // buf: shifted values
      const double log_total = std::log(total);
      for (int64_t i = 0; i < len; ++i)
        op[off[1] + i * out_step] =
            convert<T>(log ? buf[i] - log_total : std::exp(buf[i]) / total);
    });
  });
}

}  // namespace

namespace {
OarStatus softmax_or_log(const OarKernelContext* ctx, bool log) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    expect_shape(out, x.shape, "out");
    expect_dtype(out, x.dtype, "out");
    expect_contiguous(out, "out");
    const int nd = x.ndim();
    int64_t axis = int_attr(ctx, "axis", -1);
    if (nd == 0 ? (axis != 0 && axis != -1) : (axis < -nd || axis >= nd))
      fail("axis %lld is out of range for x with %d dimensions", static_cast<long long>(axis), nd);
    if (axis < 0) axis += nd == 0 ? 1 : nd;
    visit_float_dtype(x.dtype, op_name(ctx), [&](auto tag) {
      enqueue_softmax<decltype(tag)>(ctx, x, out, static_cast<int>(axis), log);
    });
  });
}
}  // namespace

OarStatus softmax_kernel(const OarKernelContext* ctx) { return softmax_or_log(ctx, false); }
OarStatus log_softmax_kernel(const OarKernelContext* ctx) { return softmax_or_log(ctx, true); }

}  // namespace oar_custom_cpu
