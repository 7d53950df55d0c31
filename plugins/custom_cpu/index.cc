// Indexing kernels: index_select and gather (one kernel), index_add, take_along_axis_base,
// embedding_base, one_hot.
// Contract: see kernels.h. Index tensors are int32 or int64, any strided view; values in
// [-n, n) address n entries (negative ones from the end, as the host). The host raises
// IndexError for a value outside that range after reading the index; a device kernel cannot
// read device memory before it runs nor report an error afterwards, so here such an entry
// reads as 0 (and index_add skips it), in the spirit of integer division by zero giving 0.
// Outputs are contiguous (the ABI's promise); the walks hand out positions along the indexed
// axis through an extra operand whose stride is 1 along that axis and 0 elsewhere.
#include <array>
#include <cstring>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {
namespace {

int normalize_axis(int64_t axis, int nd) {
  if (axis < -nd || axis >= nd) fail("axis %lld is out of range for %d dimensions", static_cast<long long>(axis), nd);
  return static_cast<int>(axis < 0 ? axis + nd : axis);
}

void expect_index(const TensorDesc& t, const char* role) {
  if (t.dtype != OAR_INT32 && t.dtype != OAR_INT64)
    fail("'%s' must be an int32 or int64 tensor, got %s", role, dtype_name(t.dtype));
}

// The index values of t in row-major order, read on the stream (inside the task).
struct IndexReader {
  StridedWalker<1> walk;
  const char* data = nullptr;
  bool is64 = true;

  explicit IndexReader(const TensorDesc& t)
      : walk(t.shape, {t.strides}), data(t.data), is64(t.dtype == OAR_INT64) {}

  // The values as they are.
  std::vector<int64_t> read_raw() const {
    std::vector<int64_t> out;
    out.reserve(static_cast<size_t>(walk.numel()));
    walk.run([&](const std::array<int64_t, 1>& off) {
      out.push_back(is64 ? reinterpret_cast<const int64_t*>(data)[off[0]]
                         : reinterpret_cast<const int32_t*>(data)[off[0]]);
    });
    return out;
  }

  // Wrapped into [0, n), or -1 when outside [-n, n).
  std::vector<int64_t> read(int64_t n) const {
    std::vector<int64_t> out = read_raw();
    for (int64_t& v : out) v = v < -n || v >= n ? -1 : (v < 0 ? v + n : v);
    return out;
  }
};

// Strides that are 1 along `axis` and 0 elsewhere: the walk's position along the axis.
std::vector<int64_t> axis_position(int nd, int axis) {
  std::vector<int64_t> s(nd, 0);
  s[axis] = 1;
  return s;
}

}  // namespace

// index_select / gather: x, index; axis. out is x's shape with the axis holding index.numel()
// entries (a 0-d index for gather drops the axis).
OarStatus index_select_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x"), index = input(ctx, 1, "index");
    const TensorDesc out = output(ctx);
    expect_index(index, "index");
    expect_dtype(out, x.dtype, "out");
    expect_contiguous(out, "out");
    const int nd = x.ndim();
    if (nd == 0) fail("x must have at least 1 dimension");
    const int axis = normalize_axis(int_attr(ctx, "axis", 0), nd);
    if (index.ndim() > 1) fail("index must be 0-d or 1-d, got shape %s", shape_str(index.shape).c_str());
    // The walk's shape: x's with the axis holding the selected entries (1 for a 0-d index).
    std::vector<int64_t> shape = x.shape;
    shape[axis] = index.numel;
    std::vector<int64_t> want = shape;
    if (index.ndim() == 0) want.erase(want.begin() + axis);
    expect_shape(out, want, "out");
    std::vector<int64_t> x_strides = x.strides;
    const int64_t x_axis_stride = x_strides[axis], n = x.shape[axis];
    x_strides[axis] = 0;
    const StridedWalker<3> walk(shape, {contiguous_strides(shape), x_strides, axis_position(nd, axis)});
    const IndexReader reader(index);
    const size_t es = element_size(x.dtype);
    const char* xp = x.data;
    char* op = out.data;
    launch(ctx, [walk, reader, xp, op, es, x_axis_stride, n] {
      const std::vector<int64_t> idx = reader.read(n);
      walk.run([&](const std::array<int64_t, 3>& off) {
        const int64_t i = idx[off[2]];
        char* dst = op + off[0] * static_cast<int64_t>(es);
        if (i < 0) std::memset(dst, 0, es);
        else std::memcpy(dst, xp + (off[1] + i * x_axis_stride) * static_cast<int64_t>(es), es);
      });
    });
  });
}

// index_add: x, index (1-d or 0-d), value; axis. out = x, then out[..., index[j], ...] +=
// value[..., j, ...] (repeats accumulate, in index order).
OarStatus index_add_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x"), index = input(ctx, 1, "index"), value = input(ctx, 2, "value");
    const TensorDesc out = output(ctx);
    expect_index(index, "index");
    expect_dtype(value, x.dtype, "value");
    expect_dtype(out, x.dtype, "out");
    expect_shape(out, x.shape, "out");
    expect_contiguous(out, "out");
    const int nd = x.ndim();
    if (nd == 0) fail("x must have at least 1 dimension");
    const int axis = normalize_axis(int_attr(ctx, "axis", 0), nd);
    if (index.ndim() > 1) fail("index must be 0-d or 1-d, got shape %s", shape_str(index.shape).c_str());
    std::vector<int64_t> vshape = x.shape;
    vshape[axis] = index.numel;
    expect_shape(value, vshape, "value");
    const std::vector<int64_t> out_strides = contiguous_strides(x.shape);
    std::vector<int64_t> out_walk = out_strides;
    const int64_t out_axis_stride = out_strides[axis], n = x.shape[axis];
    out_walk[axis] = 0;
    const StridedWalker<2> copy_walk(x.shape, {out_strides, x.strides});
    const StridedWalker<3> add_walk(vshape, {value.strides, out_walk, axis_position(nd, axis)});
    const IndexReader reader(index);
    visit_math_dtype(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      using C = compute_t<T>;
      const T* xp = x.as<const T>();
      const T* vp = value.as<const T>();
      T* op = out.as<T>();
      launch(ctx, [copy_walk, add_walk, reader, xp, vp, op, out_axis_stride, n] {
        copy_walk.run([&](const std::array<int64_t, 2>& off) { op[off[0]] = xp[off[1]]; });
        const std::vector<int64_t> idx = reader.read(n);
        add_walk.run([&](const std::array<int64_t, 3>& off) {
          const int64_t i = idx[off[2]];
          if (i < 0) return;
          T& d = op[off[1] + i * out_axis_stride];
          const T v = vp[off[0]];
          if constexpr (std::is_same_v<T, bool>) d = d || v;
          else if constexpr (is_int_v<T>) d = wrap_add(d, v);
          else d = T(static_cast<C>(d) + static_cast<C>(v));
        });
      });
    });
  });
}

// take_along_axis_base: arr, indices; axis. out has indices' shape; out[p] = arr[p with its
// axis coordinate replaced by indices[p]]; arr's other dimensions match indices' or are 1.
OarStatus take_along_axis_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc arr = input(ctx, 0, "arr"), indices = input(ctx, 1, "indices");
    const TensorDesc out = output(ctx);
    expect_index(indices, "indices");
    expect_dtype(out, arr.dtype, "out");
    expect_shape(out, indices.shape, "out");
    expect_contiguous(out, "out");
    const int nd = arr.ndim();
    if (nd == 0 || indices.ndim() != nd) fail("arr and indices must have the same number (> 0) of dimensions");
    const int axis = normalize_axis(int_attr(ctx, "axis", 0), nd);
    std::vector<int64_t> a_strides(nd, 0);
    for (int d = 0; d < nd; ++d) {
      if (d == axis) continue;
      if (arr.shape[d] == indices.shape[d]) a_strides[d] = arr.strides[d];
      else if (arr.shape[d] != 1)
        fail("arr %s and indices %s differ outside axis %d", shape_str(arr.shape).c_str(),
             shape_str(indices.shape).c_str(), axis);
    }
    const int64_t axis_stride = arr.strides[axis], n = arr.shape[axis];
    // The indices are read in out's (row-major) order, so their k-th value belongs to out[k].
    const StridedWalker<2> walk(indices.shape, {contiguous_strides(indices.shape), a_strides});
    const IndexReader reader(indices);
    const size_t es = element_size(arr.dtype);
    const char* ap = arr.data;
    char* op = out.data;
    launch(ctx, [walk, reader, ap, op, es, axis_stride, n] {
      const std::vector<int64_t> idx = reader.read(n);
      walk.run([&](const std::array<int64_t, 2>& off) {
        const int64_t i = idx[off[0]];
        char* dst = op + off[0] * static_cast<int64_t>(es);
        if (i < 0) std::memset(dst, 0, es);
        else std::memcpy(dst, ap + (off[1] + i * axis_stride) * static_cast<int64_t>(es), es);
      });
    });
  });
}

// embedding_base: x (ids), weight [rows, D]; padding_idx. out = ids' shape + [D]: the rows of
// weight, zeros for padding_idx (and, on this device, for ids outside [0, rows)).
OarStatus embedding_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc ids = input(ctx, 0, "x"), weight = input(ctx, 1, "weight");
    const TensorDesc out = output(ctx);
    expect_index(ids, "x");
    if (weight.ndim() != 2) fail("weight must be 2-d, got shape %s", shape_str(weight.shape).c_str());
    expect_dtype(out, weight.dtype, "out");
    std::vector<int64_t> want = ids.shape;
    want.push_back(weight.shape[1]);
    expect_shape(out, want, "out");
    expect_contiguous(out, "out");
    const int64_t padding_idx = int_attr(ctx, "padding_idx", -1);
    const int64_t rows = weight.shape[0], D = weight.shape[1];
    const int64_t rs = weight.strides[0], cs = weight.strides[1];
    const IndexReader reader(ids);
    const size_t es = element_size(weight.dtype);
    const char* wp = weight.data;
    char* op = out.data;
    launch(ctx, [reader, wp, op, es, rows, D, rs, cs, padding_idx] {
      const std::vector<int64_t> raw = reader.read_raw();  // ids count from 0, no wrapping
      for (size_t i = 0; i < raw.size(); ++i) {
        const int64_t r = raw[i];
        char* dst = op + static_cast<int64_t>(i) * D * static_cast<int64_t>(es);
        if (r < 0 || r >= rows || r == padding_idx) {
          std::memset(dst, 0, static_cast<size_t>(D) * es);
          continue;
        }
        for (int64_t j = 0; j < D; ++j)
          std::memcpy(dst + j * static_cast<int64_t>(es), wp + (r * rs + j * cs) * static_cast<int64_t>(es), es);
      }
    });
  });
}

// embedding_grad: x (ids), out_grad (ids' shape + [D]); num_weights, padding_idx. out
// [num_weights, D] = the sum of out_grad's rows per id (in id order; the half types sum in
// float and round once, as the host), nothing for padding_idx or an id outside the table.
OarStatus embedding_grad_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc ids = input(ctx, 0, "x"), grad = input(ctx, 1, "out_grad");
    const TensorDesc out = output(ctx);
    expect_index(ids, "x");
    expect_dtype(out, grad.dtype, "out");
    expect_contiguous(out, "out");
    if (out.ndim() != 2 || grad.ndim() != ids.ndim() + 1 || grad.shape.back() != out.shape[1])
      fail("out_grad %s and out %s do not fit ids %s", shape_str(grad.shape).c_str(), shape_str(out.shape).c_str(),
           shape_str(ids.shape).c_str());
    const int64_t padding_idx = int_attr(ctx, "padding_idx", -1);
    const int64_t rows = out.shape[0], D = out.shape[1];
    // One row of out_grad per id, in ids' row-major order: walk ids' shape, the last dim apart.
    std::vector<int64_t> row_strides(grad.strides.begin(), grad.strides.end() - 1);
    const StridedWalker<1> grad_rows(ids.shape, {row_strides});
    const int64_t col_stride = grad.strides.back();
    const IndexReader reader(ids);
    visit_float_dtype(grad.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      using C = compute_t<T>;
      const T* gp = grad.as<const T>();
      T* op = out.as<T>();
      launch(ctx, [grad_rows, reader, gp, op, rows, D, col_stride, padding_idx] {
        std::vector<C> acc(static_cast<size_t>(rows * D), C(0));
        const std::vector<int64_t> raw = reader.read_raw();
        size_t i = 0;
        grad_rows.run([&](const std::array<int64_t, 1>& off) {
          const int64_t r = raw[i++];
          if (r < 0 || r >= rows || r == padding_idx) return;
          for (int64_t j = 0; j < D; ++j) acc[r * D + j] += static_cast<C>(gp[off[0] + j * col_stride]);
        });
        for (size_t k = 0; k < acc.size(); ++k) op[k] = T(acc[k]);
      });
    });
  });
}

// one_hot: x (ids); num_classes. out = ids' shape + [C] of out's dtype: 1 at each id, else 0
// (an id outside [0, C) leaves its row zero on this device).
OarStatus one_hot_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc ids = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    expect_index(ids, "x");
    expect_contiguous(out, "out");
    if (out.ndim() != ids.ndim() + 1) fail("out must have one more dimension than x");
    const int64_t C = out.shape.back();
    const IndexReader reader(ids);
    visit_storage_dtype(out.dtype, [&](auto tag) {
      using T = decltype(tag);
      T* op = out.as<T>();
      const int64_t total = out.numel;
      launch(ctx, [reader, op, C, total] {
        for (int64_t k = 0; k < total; ++k) op[k] = convert<T>(0);
        const std::vector<int64_t> raw = reader.read_raw();
        for (size_t i = 0; i < raw.size(); ++i)
          if (raw[i] >= 0 && raw[i] < C) op[static_cast<int64_t>(i) * C + raw[i]] = convert<T>(1);
      });
    });
  });
}

}  // namespace oar_custom_cpu
