// Indexing: index_select and gather (one kernel), index_add, take_along_axis_base,
// put_along_axis_base, embedding_base, embedding_grad, one_hot.
//
// Contract (plugins/custom_cpu/index.cc and search.cc are the reference): index tensors are int32
// or int64, any strided view; values in [-n, n) address n entries (negative ones from the end),
// ids of embedding and one_hot count from 0 without wrapping. Out-of-range indices follow
// custom_cpu, not the host's IndexError: the device cannot raise after it has read the index
// without a stream synchronisation, so such an entry reads as 0 (index_select, gather,
// take_along_axis, embedding), is skipped (index_add, put_along_axis, embedding_grad) or leaves
// its one_hot row zero. Inputs may be strided views; outputs are contiguous.
// - index_select / gather: x, index (0-d or 1-d); axis. out: x's shape with the axis holding
//   index.numel() entries (dropped for a 0-d index). Any dtype (elements are moved as bytes).
// - index_add: x, index, value; axis. out = x, then out[.., index[j], ..] += value[.., j, ..]
//   with atomics (float order is not deterministic; integers wrap; bool is or).
// - take_along_axis_base: arr, indices; axis; arr's other dims match indices' or are 1.
// - put_along_axis_base: arr, indices, values; axis, reduce (assign, add, mul/multiply, mean,
//   amax, amin), include_self. One thread per lane (the elements along the axis) applies the
//   lane's values in order, so repeated indices behave exactly as on the CPU (the last assign
//   wins, mean divides by the count), deterministically.
// - embedding_base: x (ids), weight [rows, D]; padding_idx: rows of weight, zeros for
//   padding_idx and ids outside [0, rows). Any weight dtype.
// - embedding_grad: x (ids), out_grad (ids' shape + [D]); num_weights, padding_idx: out
//   [num_weights, D] sums out_grad's rows per id with atomics (16-bit floats sum in float and
//   round once).
// - one_hot: x (ids); num_classes (out's last extent): out of any dtype, 1 at each id.
#include <cstring>

#include "plugins/cuda/common.h"
#include "plugins/cuda/dtype.cuh"
#include "plugins/cuda/index.cuh"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

bool is_index_dtype(int32_t d) { return d == OAR_INT32 || d == OAR_INT64; }

bool normalize_axis(const OarKernelContext* ctx, int64_t axis, int nd, int* out) {
  if (axis < -nd || axis >= nd) {
    fail(ctx, "%s on gpu: axis %lld is out of range for %d dimensions", ctx->op,
         static_cast<long long>(axis), nd);
    return false;
  }
  *out = static_cast<int>(axis < 0 ? axis + nd : axis);
  return true;
}

int64_t int_attr(const OarKernelContext* ctx, const char* name, int64_t fallback) {
  const OarAttr* a = oar_find_attr(ctx, name);
  if (!a || (a->kind != OAR_ATTR_INT && a->kind != OAR_ATTR_SCALAR_INT)) return fallback;
  return a->i;
}

// Calls f(Tag<I>) for the index dtype.
template <class F>
void dispatch_index(int32_t dtype, F&& f) {
  if (dtype == OAR_INT64) f(Tag<int64_t>{});
  else f(Tag<int32_t>{});
}

// out <- x (x any view, same shape and dtype) on the stream: copy_'s kernel.
OarStatus copy_into(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& x,
                    const OarTensor& out) {
  OarKernelContext sub = *ctx;
  sub.op = "copy_";
  sub.num_inputs = 1;
  sub.inputs = &x;
  sub.num_outputs = 1;
  sub.outputs = &out;
  sub.num_attrs = 0;
  sub.attrs = nullptr;
  sub.stream = reinterpret_cast<OarStream>(stream);
  return k_copy_(&sub);
}

// out[off0] = x[off1 + wrap(index[off2]) * x_step], or 0 when the index is out of range.
template <class E, class I>
struct SelectFn {
  E* out;
  const E* x;
  const I* index;
  int64_t x_step, n;
  __device__ void operator()(const int64_t* off) const {
    const int64_t i = wrap_index(static_cast<int64_t>(index[off[2]]), n);
    out[off[0]] = i < 0 ? E(0) : x[off[1] + i * x_step];
  }
};

// out[off1 + wrap(index[off2]) * out_step] += value[off0].
template <class T, class I>
struct IndexAddFn {
  T* out;
  const T* value;
  const I* index;
  int64_t out_step, n;
  __device__ void operator()(const int64_t* off) const {
    const int64_t i = wrap_index(static_cast<int64_t>(index[off[2]]), n);
    if (i >= 0) atomic_accumulate(out + off[1] + i * out_step, value[off[0]]);
  }
};

enum PutReduce { kPutAssign, kPutAdd, kPutMul, kPutMean, kPutMax, kPutMin };

template <class C>
__device__ __forceinline__ C wrap_op(C a, C b, bool mul) {
  using U = std::make_unsigned_t<C>;
  return static_cast<C>(mul ? static_cast<U>(a) * static_cast<U>(b)
                            : static_cast<U>(a) + static_cast<U>(b));
}

// One lane of put_along_axis: off0 = out's lane start, off1 = indices', off2 = values'.
template <class T, class I>
struct PutFn {
  T* out;
  const I* index;
  const T* values;
  int32_t* cnt;  // values put into each out element (mean, or include_self false); else null
  int64_t k, index_step, values_step, out_step, n;
  int32_t reduce;
  bool include_self;
  __device__ void operator()(const int64_t* off) const {
    using C = compute_t<T>;
    if (cnt)
      for (int64_t q = 0; q < n; ++q) cnt[off[0] + q * out_step] = 0;
    for (int64_t j = 0; j < k; ++j) {
      const int64_t i = wrap_index(static_cast<int64_t>(index[off[1] + j * index_step]), n);
      if (i < 0) continue;
      const int64_t at = off[0] + i * out_step;
      const C v = to_compute(values[off[2] + j * values_step]);
      if (reduce == kPutAssign) {
        out[at] = convert<T>(v);
        continue;
      }
      if (!include_self && cnt[at] == 0) {  // the first value replaces arr's
        out[at] = convert<T>(v);
        cnt[at] = 1;
        continue;
      }
      const C cur = to_compute(out[at]);
      switch (reduce) {
        case kPutAdd: case kPutMean:
          if constexpr (std::is_same_v<T, bool>) out[at] = cur || v;
          else if constexpr (std::is_integral_v<C>) out[at] = wrap_op(cur, v, false);
          else out[at] = convert<T>(cur + v);
          break;
        case kPutMul:
          if constexpr (std::is_same_v<T, bool>) out[at] = cur && v;
          else if constexpr (std::is_integral_v<C>) out[at] = wrap_op(cur, v, true);
          else out[at] = convert<T>(cur * v);
          break;
        case kPutMax: out[at] = convert<T>(v > cur ? v : cur); break;
        case kPutMin: out[at] = convert<T>(v < cur ? v : cur); break;
        default: break;
      }
      if (cnt) ++cnt[at];
    }
    if constexpr (!std::is_same_v<T, bool>) {
      if (reduce == kPutMean) {
        for (int64_t q = 0; q < n; ++q) {
          const int64_t at = off[0] + q * out_step;
          const int64_t count = cnt[at] + (include_self ? 1 : 0);
          if (count > 1) out[at] = convert<T>(to_compute(out[at]) / static_cast<C>(count));
        }
      }
    }
  }
};

// out[off0] = weight row ids[off1], column at off2; zeros for padding_idx and bad ids.
template <class E, class I>
struct EmbedFn {
  E* out;
  const I* ids;
  const E* weight;
  int64_t rows, row_stride, padding_idx;
  __device__ void operator()(const int64_t* off) const {
    const int64_t r = ids[off[1]];
    out[off[0]] = r < 0 || r >= rows || r == padding_idx ? E(0) : weight[off[2] + r * row_stride];
  }
};

// acc[ids[off0] * D + col(off2)] += grad[off1].
template <class T, class A, class I>
struct EmbedGradFn {
  A* acc;
  const T* grad;
  const I* ids;
  int64_t rows, D, padding_idx;
  __device__ void operator()(const int64_t* off) const {
    const int64_t r = ids[off[0]];
    if (r < 0 || r >= rows || r == padding_idx) return;
    atomic_accumulate(acc + r * D + off[2], static_cast<A>(to_compute(grad[off[1]])));
  }
};

template <class T>
__global__ void float_to_kernel(const float* in, T* out, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = convert<T>(in[i]);
}

// out[off1 * C + ids[off0]] = 1 for ids in [0, C).
template <class T, class I>
struct OneHotFn {
  T* out;
  const I* ids;
  int64_t classes;
  T one;
  __device__ void operator()(const int64_t* off) const {
    const int64_t r = ids[off[0]];
    if (r >= 0 && r < classes) out[off[1] * classes + r] = one;
  }
};

}  // namespace

OarStatus k_index_select(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& index = ctx->inputs[1];
  const OarTensor& out = ctx->outputs[0];
  if (!is_index_dtype(index.dtype))
    return fail(ctx, "%s on gpu: index must be int32 or int64, got %s", ctx->op,
                dtype_name(index.dtype));
  if (out.dtype != x.dtype)
    return fail(ctx, "%s on gpu: out has dtype %s, x %s", ctx->op, dtype_name(out.dtype),
                dtype_name(x.dtype));
  const int nd = x.ndim;
  if (nd == 0) return fail(ctx, "%s on gpu: x must have at least 1 dimension", ctx->op);
  if (nd > 64) return fail(ctx, "%s on gpu: too many dims (%d)", ctx->op, nd);
  if (index.ndim > 1) return fail(ctx, "%s on gpu: index must be 0-d or 1-d", ctx->op);
  int axis;
  if (!normalize_axis(ctx, int_attr(ctx, "axis", 0), nd, &axis)) return OAR_STATUS_ERROR;
  int64_t shape[64], out_strides[64], x_strides[64], idx_strides[64];
  int64_t numel = 1;
  for (int d = 0; d < nd; ++d) {
    shape[d] = d == axis ? index.numel : x.shape[d];
    x_strides[d] = d == axis ? 0 : x.strides[d];
    idx_strides[d] = d == axis && index.ndim == 1 ? index.strides[0] : 0;
    numel *= shape[d];
  }
  if (out.numel != numel || !is_contiguous(out))
    return fail(ctx, "%s on gpu: out must be contiguous with %lld elements", ctx->op,
                static_cast<long long>(numel));
  contiguous_strides(nd, shape, out_strides);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (numel == 0) return OAR_STATUS_OK;
  const int64_t* strides[3] = {out_strides, x_strides, idx_strides};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch_bytes(x.dtype, [&](auto etag) {
    using E = typename decltype(etag)::type;
    dispatch_index(index.dtype, [&](auto itag) {
      using I = typename decltype(itag)::type;
      const SelectFn<E, I> f{static_cast<E*>(out.data), static_cast<const E*>(x.data),
                             static_cast<const I*>(index.data), x.strides[axis], x.shape[axis]};
      st = run_walk<3>(ctx, stream, nd, shape, strides, f);
    });
  });
  return found ? st : unsupported(ctx, x.dtype);
}

OarStatus k_index_add(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 3, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& index = ctx->inputs[1];
  const OarTensor& value = ctx->inputs[2];
  const OarTensor& out = ctx->outputs[0];
  if (!is_index_dtype(index.dtype))
    return fail(ctx, "%s on gpu: index must be int32 or int64, got %s", ctx->op,
                dtype_name(index.dtype));
  if (value.dtype != x.dtype || out.dtype != x.dtype)
    return fail(ctx, "%s on gpu: x, value and out must share a dtype", ctx->op);
  const int nd = x.ndim;
  if (nd == 0) return fail(ctx, "%s on gpu: x must have at least 1 dimension", ctx->op);
  if (nd > 64) return fail(ctx, "%s on gpu: too many dims (%d)", ctx->op, nd);
  if (index.ndim > 1) return fail(ctx, "%s on gpu: index must be 0-d or 1-d", ctx->op);
  if (out.ndim != nd || !is_contiguous(out))
    return fail(ctx, "%s on gpu: out must be contiguous with x's shape", ctx->op);
  int axis;
  if (!normalize_axis(ctx, int_attr(ctx, "axis", 0), nd, &axis)) return OAR_STATUS_ERROR;
  if (value.ndim != nd) return fail(ctx, "%s on gpu: value must have x's rank", ctx->op);
  int64_t out_strides[64], walk_out[64], idx_strides[64];
  contiguous_strides(nd, x.shape, out_strides);
  for (int d = 0; d < nd; ++d) {
    if (out.shape[d] != x.shape[d] ||
        value.shape[d] != (d == axis ? index.numel : x.shape[d]))
      return fail(ctx, "%s on gpu: value or out does not fit x and index", ctx->op);
    walk_out[d] = d == axis ? 0 : out_strides[d];
    idx_strides[d] = d == axis && index.ndim == 1 ? index.strides[0] : 0;
  }
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  if (OarStatus st = copy_into(ctx, stream, x, out)) return st;
  const int64_t* strides[3] = {value.strides, walk_out, idx_strides};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(AllTypes{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dispatch_index(index.dtype, [&](auto itag) {
      using I = typename decltype(itag)::type;
      const IndexAddFn<T, I> f{static_cast<T*>(out.data), static_cast<const T*>(value.data),
                               static_cast<const I*>(index.data), out_strides[axis],
                               x.shape[axis]};
      st = run_walk<3>(ctx, stream, nd, value.shape, strides, f);
    });
  });
  return found ? st : unsupported(ctx, x.dtype);
}

OarStatus k_take_along_axis(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  const OarTensor& arr = ctx->inputs[0];
  const OarTensor& indices = ctx->inputs[1];
  const OarTensor& out = ctx->outputs[0];
  if (!is_index_dtype(indices.dtype))
    return fail(ctx, "%s on gpu: indices must be int32 or int64, got %s", ctx->op,
                dtype_name(indices.dtype));
  if (out.dtype != arr.dtype)
    return fail(ctx, "%s on gpu: out has dtype %s, arr %s", ctx->op, dtype_name(out.dtype),
                dtype_name(arr.dtype));
  const int nd = arr.ndim;
  if (nd == 0 || indices.ndim != nd)
    return fail(ctx, "%s on gpu: arr and indices must have the same number (> 0) of dimensions",
                ctx->op);
  if (nd > 64) return fail(ctx, "%s on gpu: too many dims (%d)", ctx->op, nd);
  if (out.numel != indices.numel || !is_contiguous(out))
    return fail(ctx, "%s on gpu: out must be contiguous with indices' shape", ctx->op);
  int axis;
  if (!normalize_axis(ctx, int_attr(ctx, "axis", 0), nd, &axis)) return OAR_STATUS_ERROR;
  int64_t out_strides[64], a_strides[64];
  contiguous_strides(nd, indices.shape, out_strides);
  for (int d = 0; d < nd; ++d) {
    a_strides[d] = 0;
    if (d == axis) continue;
    if (arr.shape[d] == indices.shape[d]) a_strides[d] = arr.strides[d];
    else if (arr.shape[d] != 1)
      return fail(ctx, "%s on gpu: arr and indices differ outside axis %d", ctx->op, axis);
  }
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const int64_t* strides[3] = {out_strides, a_strides, indices.strides};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch_bytes(arr.dtype, [&](auto etag) {
    using E = typename decltype(etag)::type;
    dispatch_index(indices.dtype, [&](auto itag) {
      using I = typename decltype(itag)::type;
      const SelectFn<E, I> f{static_cast<E*>(out.data), static_cast<const E*>(arr.data),
                             static_cast<const I*>(indices.data), arr.strides[axis],
                             arr.shape[axis]};
      st = run_walk<3>(ctx, stream, nd, indices.shape, strides, f);
    });
  });
  return found ? st : unsupported(ctx, arr.dtype);
}

OarStatus k_put_along_axis(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 3, 1)) return OAR_STATUS_ERROR;
  const OarTensor& arr = ctx->inputs[0];
  const OarTensor& indices = ctx->inputs[1];
  const OarTensor& values = ctx->inputs[2];
  const OarTensor& out = ctx->outputs[0];
  if (!is_index_dtype(indices.dtype))
    return fail(ctx, "%s on gpu: indices must be int32 or int64", ctx->op);
  if (values.dtype != arr.dtype || out.dtype != arr.dtype)
    return fail(ctx, "%s on gpu: arr, values and out must share a dtype", ctx->op);
  const int nd = arr.ndim;
  if (nd == 0 || indices.ndim != nd || values.ndim != nd || out.ndim != nd)
    return fail(ctx, "%s on gpu: arr and indices must have the same number (> 0) of dimensions",
                ctx->op);
  if (nd > 64) return fail(ctx, "%s on gpu: too many dims (%d)", ctx->op, nd);
  if (!is_contiguous(out)) return fail(ctx, "%s on gpu: out must be contiguous", ctx->op);
  int axis;
  if (!normalize_axis(ctx, int_attr(ctx, "axis", 0), nd, &axis)) return OAR_STATUS_ERROR;
  for (int d = 0; d < nd; ++d) {
    if (values.shape[d] != indices.shape[d] || out.shape[d] != arr.shape[d])
      return fail(ctx, "%s on gpu: values must have indices' shape and out arr's", ctx->op);
    if (d != axis && indices.shape[d] > arr.shape[d])
      return fail(ctx, "%s on gpu: indices does not fit arr", ctx->op);
  }
  int reduce = kPutAssign;
  const OarAttr* ra = oar_find_attr(ctx, "reduce");
  if (ra && ra->kind == OAR_ATTR_STRING && ra->s) {
    const char* r = ra->s;
    if (!std::strcmp(r, "assign")) reduce = kPutAssign;
    else if (!std::strcmp(r, "add")) reduce = kPutAdd;
    else if (!std::strcmp(r, "mul") || !std::strcmp(r, "multiply")) reduce = kPutMul;
    else if (!std::strcmp(r, "mean")) reduce = kPutMean;
    else if (!std::strcmp(r, "amax")) reduce = kPutMax;
    else if (!std::strcmp(r, "amin")) reduce = kPutMin;
    else
      return fail(ctx,
                  "%s on gpu: reduce must be one of 'assign', 'add', 'mul', 'multiply', 'mean', "
                  "'amax', 'amin', got '%s'", ctx->op, r);
  }
  const bool include_self = attr_bool(ctx, "include_self", true);
  // Lanes: indices' shape with the axis collapsed.
  int64_t lanes[64], out_strides[64];
  contiguous_strides(nd, arr.shape, out_strides);
  for (int d = 0; d < nd; ++d) lanes[d] = d == axis ? 1 : indices.shape[d];
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  if (OarStatus st = copy_into(ctx, stream, arr, out)) return st;
  if (indices.numel == 0) return OAR_STATUS_OK;
  void* cnt = nullptr;
  if (reduce == kPutMean || !include_self) {
    const cudaError_t err = scratch_alloc(ctx->device_id, &cnt, sizeof(int32_t) * out.numel,
                                          stream);
    if (err != cudaSuccess) return cuda_fail(ctx, err, "cudaMallocAsync (put_along_axis counts)");
  }
  const int64_t* strides[3] = {out_strides, indices.strides, values.strides};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(AllTypes{}, arr.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dispatch_index(indices.dtype, [&](auto itag) {
      using I = typename decltype(itag)::type;
      const PutFn<T, I> f{static_cast<T*>(out.data),
                          static_cast<const I*>(indices.data),
                          static_cast<const T*>(values.data),
                          static_cast<int32_t*>(cnt),
                          indices.shape[axis],
                          indices.strides[axis],
                          values.strides[axis],
                          out_strides[axis],
                          arr.shape[axis],
                          reduce,
                          include_self};
      st = run_walk<3>(ctx, stream, nd, lanes, strides, f);
    });
  });
  scratch_free(cnt, stream);
  return found ? st : unsupported(ctx, arr.dtype);
}

OarStatus k_embedding(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  const OarTensor& ids = ctx->inputs[0];
  const OarTensor& weight = ctx->inputs[1];
  const OarTensor& out = ctx->outputs[0];
  if (!is_index_dtype(ids.dtype))
    return fail(ctx, "%s on gpu: x must be int32 or int64, got %s", ctx->op,
                dtype_name(ids.dtype));
  if (weight.ndim != 2) return fail(ctx, "%s on gpu: weight must be 2-d", ctx->op);
  if (out.dtype != weight.dtype)
    return fail(ctx, "%s on gpu: out has dtype %s, weight %s", ctx->op, dtype_name(out.dtype),
                dtype_name(weight.dtype));
  const int nd = ids.ndim + 1;
  if (nd > 64) return fail(ctx, "%s on gpu: too many dims (%d)", ctx->op, nd);
  const int64_t D = weight.shape[1];
  if (out.numel != ids.numel * D || !is_contiguous(out))
    return fail(ctx, "%s on gpu: out must be contiguous of shape x.shape + [%lld]", ctx->op,
                static_cast<long long>(D));
  int64_t shape[64], out_strides[64], id_strides[64], col_strides[64];
  for (int d = 0; d < ids.ndim; ++d) {
    shape[d] = ids.shape[d];
    id_strides[d] = ids.strides[d];
    col_strides[d] = 0;
  }
  shape[nd - 1] = D;
  id_strides[nd - 1] = 0;
  col_strides[nd - 1] = weight.strides[1];
  contiguous_strides(nd, shape, out_strides);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const int64_t padding_idx = int_attr(ctx, "padding_idx", -1);
  const int64_t* strides[3] = {out_strides, id_strides, col_strides};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch_bytes(weight.dtype, [&](auto etag) {
    using E = typename decltype(etag)::type;
    dispatch_index(ids.dtype, [&](auto itag) {
      using I = typename decltype(itag)::type;
      const EmbedFn<E, I> f{static_cast<E*>(out.data), static_cast<const I*>(ids.data),
                            static_cast<const E*>(weight.data), weight.shape[0],
                            weight.strides[0], padding_idx};
      st = run_walk<3>(ctx, stream, nd, shape, strides, f);
    });
  });
  return found ? st : unsupported(ctx, weight.dtype);
}

OarStatus k_embedding_grad(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  const OarTensor& ids = ctx->inputs[0];
  const OarTensor& grad = ctx->inputs[1];
  const OarTensor& out = ctx->outputs[0];
  if (!is_index_dtype(ids.dtype))
    return fail(ctx, "%s on gpu: x must be int32 or int64, got %s", ctx->op,
                dtype_name(ids.dtype));
  if (out.dtype != grad.dtype)
    return fail(ctx, "%s on gpu: out has dtype %s, out_grad %s", ctx->op, dtype_name(out.dtype),
                dtype_name(grad.dtype));
  if (!is_contiguous(out)) return fail(ctx, "%s on gpu: out must be contiguous", ctx->op);
  const int nd = grad.ndim;
  bool fits = out.ndim == 2 && nd == ids.ndim + 1 && grad.shape[nd - 1] == out.shape[1];
  for (int d = 0; fits && d < ids.ndim; ++d) fits = grad.shape[d] == ids.shape[d];
  if (!fits) return fail(ctx, "%s on gpu: out_grad and out do not fit the ids", ctx->op);
  if (nd > 64) return fail(ctx, "%s on gpu: too many dims (%d)", ctx->op, nd);
  const int64_t rows = out.shape[0], D = out.shape[1];
  int64_t id_strides[64], col_strides[64];
  for (int d = 0; d < nd; ++d) {
    id_strides[d] = d < nd - 1 ? ids.strides[d] : 0;
    col_strides[d] = d < nd - 1 ? 0 : 1;
  }
  const int64_t padding_idx = int_attr(ctx, "padding_idx", -1);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const int64_t* strides[3] = {id_strides, grad.strides, col_strides};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(FloatTypes{}, grad.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = std::conditional_t<is_half_v<T>, float, T>;
    void* acc = out.data;
    if constexpr (is_half_v<T>) {
      const cudaError_t err = scratch_alloc(ctx->device_id, &acc, sizeof(float) * out.numel,
                                            stream);
      if (err != cudaSuccess) {
        st = cuda_fail(ctx, err, "cudaMallocAsync (embedding_grad)");
        return;
      }
    }
    cudaError_t err = cudaMemsetAsync(acc, 0, sizeof(A) * out.numel, stream);
    if (err != cudaSuccess) st = cuda_fail(ctx, err, "cudaMemsetAsync");
    if (st == OAR_STATUS_OK)
      dispatch_index(ids.dtype, [&](auto itag) {
        using I = typename decltype(itag)::type;
        const EmbedGradFn<T, A, I> f{static_cast<A*>(acc), static_cast<const T*>(grad.data),
                                     static_cast<const I*>(ids.data), rows, D, padding_idx};
        st = run_walk<3>(ctx, stream, nd, grad.shape, strides, f);
      });
    if constexpr (is_half_v<T>) {
      if (st == OAR_STATUS_OK) {
        float_to_kernel<T><<<ew_blocks(ctx->device_id, out.numel), kEwThreads, 0, stream>>>(
            static_cast<const float*>(acc), static_cast<T*>(out.data), out.numel);
        st = check_launch(ctx, ctx->op);
      }
      scratch_free(acc, stream);
    }
  });
  return found ? st : unsupported(ctx, grad.dtype);
}

OarStatus k_one_hot(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& ids = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (!is_index_dtype(ids.dtype))
    return fail(ctx, "%s on gpu: x must be int32 or int64, got %s", ctx->op,
                dtype_name(ids.dtype));
  if (out.ndim != ids.ndim + 1 || !is_contiguous(out))
    return fail(ctx, "%s on gpu: out must be contiguous with one more dimension than x",
                ctx->op);
  if (ids.ndim > 64) return fail(ctx, "%s on gpu: too many dims (%d)", ctx->op, ids.ndim);
  if (dtype_size(out.dtype) == 0) return unsupported(ctx, out.dtype);
  const int64_t classes = out.shape[out.ndim - 1];
  int64_t pos_strides[64];
  contiguous_strides(ids.ndim, ids.shape, pos_strides);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  cudaError_t err = cudaMemsetAsync(out.data, 0, dtype_size(out.dtype) * out.numel, stream);
  if (err != cudaSuccess) return cuda_fail(ctx, err, "cudaMemsetAsync");
  const int64_t* strides[2] = {ids.strides, pos_strides};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(AllTypes{}, out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dispatch_index(ids.dtype, [&](auto itag) {
      using I = typename decltype(itag)::type;
      const OneHotFn<T, I> f{static_cast<T*>(out.data), static_cast<const I*>(ids.data), classes,
                             convert<T>(1)};
      st = run_walk<2>(ctx, stream, ids.ndim, ids.shape, strides, f);
    });
  });
  return found ? st : unsupported(ctx, out.dtype);
}

}  // namespace oar_cuda
