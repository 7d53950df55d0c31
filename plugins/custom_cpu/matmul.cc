// matmul: a naive triple loop per batch, with double (float) or wrapping int64 (int)
// accumulation. Contract: see kernels.h; Paddle's semantics: a 1-D x is [1, K] and a 1-D y is
// [K, 1], with that dimension dropped from the result and the transpose flag ignored;
// transpose_x / transpose_y swap the last two dimensions; batch dimensions broadcast. Operands
// may be any strided views; out must be contiguous with the shape these rules give.
#include <array>
#include <type_traits>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {
namespace {

// One operand seen as a batch of [rows, cols] matrices (after its transpose flag).
struct MatrixView {
  int64_t rows = 1, cols = 1;
  int64_t row_stride = 0, col_stride = 0;
  TensorDesc batch;  // the leading dimensions only, for broadcasting
};

// A 1-D operand becomes [1, K] (as_row) or [K, 1].
MatrixView matrix_view(const TensorDesc& t, bool transpose, bool as_row) {
  MatrixView v;
  const int nd = t.ndim();
  v.batch.data = t.data;
  v.batch.dtype = t.dtype;
  if (nd == 1) {
    (as_row ? v.cols : v.rows) = t.shape[0];
    (as_row ? v.col_stride : v.row_stride) = t.strides[0];
    return v;
  }
  v.rows = t.shape[nd - 2];
  v.cols = t.shape[nd - 1];
  v.row_stride = t.strides[nd - 2];
  v.col_stride = t.strides[nd - 1];
  if (transpose) {
    std::swap(v.rows, v.cols);
    std::swap(v.row_stride, v.col_stride);
  }
  v.batch.shape.assign(t.shape.begin(), t.shape.end() - 2);
  v.batch.strides.assign(t.strides.begin(), t.strides.end() - 2);
  v.batch.numel = shape_numel(v.batch.shape);
  return v;
}

}  // namespace

OarStatus matmul_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x"), y = input(ctx, 1, "y");
    const TensorDesc out = output(ctx);
    expect_dtype(y, x.dtype, "y");
    expect_dtype(out, x.dtype, "out");
    if (x.ndim() == 0 || y.ndim() == 0) fail("operands must have at least 1 dimension");
    const MatrixView a = matrix_view(x, bool_attr(ctx, "transpose_x", false), true);
    const MatrixView b = matrix_view(y, bool_attr(ctx, "transpose_y", false), false);
    if (a.cols != b.rows)
      fail("x %s and y %s do not contract (%lld vs %lld)", shape_str(x.shape).c_str(), shape_str(y.shape).c_str(),
           static_cast<long long>(a.cols), static_cast<long long>(b.rows));
    const int64_t M = a.rows, K = a.cols, N = b.cols;
    std::vector<int64_t> batch = broadcast_shape(a.batch.shape, b.batch.shape);
    std::vector<int64_t> out_shape = batch;
    if (x.ndim() > 1) out_shape.push_back(M);
    if (y.ndim() > 1) out_shape.push_back(N);
    expect_shape(out, out_shape, "out");
    expect_contiguous(out, "out");
    std::vector<int64_t> out_batch_strides = contiguous_strides(batch);
    for (int64_t& s : out_batch_strides) s *= M * N;
    const StridedWalker<3> walk(batch, {broadcast_strides(a.batch, batch, "x"), broadcast_strides(b.batch, batch, "y"),
                                        out_batch_strides});
    visit_math_dtype(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>) {
        fail("no matmul kernel for bool");
      } else {
        using Acc = std::conditional_t<is_floating_v<T>, double, int64_t>;
        const T* xp = x.as<const T>();
        const T* yp = y.as<const T>();
        T* op = out.as<T>();
        launch(ctx, [walk, a, b, xp, yp, op, M, K, N] {
          walk.run([&](const std::array<int64_t, 3>& off) {
            for (int64_t m = 0; m < M; ++m) {
              for (int64_t n = 0; n < N; ++n) {
                Acc acc = 0;
                for (int64_t k = 0; k < K; ++k) {
                  const Acc p = convert<Acc>(xp[off[0] + m * a.row_stride + k * a.col_stride]);
                  const Acc q = convert<Acc>(yp[off[1] + k * b.row_stride + n * b.col_stride]);
                  if constexpr (is_floating_v<T>) acc += p * q;
                  else acc = wrap_add(acc, wrap_mul(p, q));
                }
                op[off[2] + m * N + n] = convert<T>(acc);
              }
            }
          });
        });
      }
    });
  });
}

}  // namespace oar_custom_cpu
