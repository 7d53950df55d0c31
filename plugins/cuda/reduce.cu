// Reductions: sum, mean, max and min over a set of axes, and the host side of the reduction
// engine (reduce.cuh) that reduce2.cu shares.
//
// Contract: attrs axis (INT_ARRAY; empty or absent = all axes, negative entries count from the
// end) and keepdim (only changes the output's shape, which oar already computed: the output is
// contiguous, its elements in row-major order of the kept dims); sum's dtype attr is reflected in
// outputs[0].dtype. Accumulation: float for 16-bit floats and float32, double for float64, int64
// (wrapping) for integers and bool. Where the input type does not accumulate into the output's
// (an integer sum into a float output, float32 into float64, ...) the input is first cast to the
// output dtype, as oar's CPU kernels do. As there: mean of integers truncates, mean of bool is
// any(), max/min propagate NaN, an empty reduction gives 0 (sum), NaN (float mean) or 0 (integer
// mean), and max/min over an empty set are an error. How the kernels run: reduce.cuh.
#include <cmath>
#include <cstring>
#include <limits>

#include "plugins/cuda/common.h"
#include "plugins/cuda/dtype.cuh"
#include "plugins/cuda/kernels.h"
#include "plugins/cuda/reduce.cuh"
#include "plugins/cuda/strided_plan.h"

namespace oar_cuda {
namespace {

enum Kind { kSum = 0, kMax = 1, kMin = 2 };

template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double,
                                 std::conditional_t<is_float_v<T>, float, int64_t>>;

// Writes a final value: mean's division, then conversion to the output dtype.
struct Epilogue {
  void* out;
  int32_t dtype;
  int32_t divide;  // mean (not into bool: a bool mean is any())
  int64_t count;

  template <class Acc>
  __device__ void store(int64_t i, Acc v) const {
    if (divide) {
      if constexpr (std::is_integral_v<Acc>) v = count ? v / count : Acc(0);
      else v = v / static_cast<Acc>(count);
    }
    store_as(out, dtype, i, v);
  }
};

// The reduce.cuh policy of sum (mean), max and min.
template <int K, class AccT>
struct Reducer {
  using Acc = AccT;
  Epilogue ep;
  __device__ Acc identity() const {
    if constexpr (K == kSum) return Acc(0);
    else if constexpr (std::is_floating_point_v<Acc>)
      return K == kMax ? -std::numeric_limits<Acc>::infinity()
                       : std::numeric_limits<Acc>::infinity();
    else return K == kMax ? std::numeric_limits<Acc>::lowest() : std::numeric_limits<Acc>::max();
  }
  __device__ Acc combine(Acc a, Acc b) const {
    if constexpr (K == kSum) {
      if constexpr (std::is_integral_v<Acc>)  // wraps as two's complement, as the CPU kernel
        return static_cast<Acc>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
      else return a + b;
    } else {
      if constexpr (std::is_floating_point_v<Acc>) {
        if (a != a) return a;  // NaN anywhere gives NaN
        if (b != b) return b;
      }
      return K == kMax ? (b > a ? b : a) : (b < a ? b : a);
    }
  }
  template <class T>
  __device__ Acc load(T v, int64_t) const { return static_cast<Acc>(to_compute(v)); }
  __device__ void store(uint32_t o, Acc v) const { ep.store(o, v); }
};

}  // namespace

// ---- host side of the engine (reduce.cuh) ----------------------------------------------------

// Coalesces (size, stride) pairs given innermost first; drops size-1 dims.
static int coalesce(const int64_t* size, const int64_t* stride, int n, int64_t* out_size,
                    int64_t* out_stride) {
  int m = 0;
  for (int k = 0; k < n; ++k) {
    if (size[k] == 1) continue;
    if (m > 0 && stride[k] == out_stride[m - 1] * out_size[m - 1]) {
      out_size[m - 1] *= size[k];
      continue;
    }
    out_size[m] = size[k];
    out_stride[m] = stride[k];
    ++m;
  }
  return m;
}

bool reduce_axes(const OarKernelContext* ctx, const OarTensor& x, bool (&reduced)[64]) {
  for (int d = 0; d < 64; ++d) reduced[d] = false;
  if (x.ndim > 64) return fail(ctx, "%s on gpu: too many dims (%d)", ctx->op, x.ndim), false;
  const OarAttr* axis = oar_find_attr(ctx, "axis");
  const bool all = !axis || axis->kind == OAR_ATTR_NONE ||
                   (axis->kind == OAR_ATTR_INT_ARRAY && axis->count == 0);
  if (all) {
    for (int d = 0; d < x.ndim; ++d) reduced[d] = true;
    return true;
  }
  if (axis->kind != OAR_ATTR_INT_ARRAY && axis->kind != OAR_ATTR_INT)
    return fail(ctx, "%s on gpu: axis must be a list of ints", ctx->op), false;
  const int64_t* axes = axis->kind == OAR_ATTR_INT_ARRAY ? axis->ints : &axis->i;
  const int64_t naxes = axis->kind == OAR_ATTR_INT_ARRAY ? axis->count : 1;
  for (int64_t i = 0; i < naxes; ++i) {
    int64_t d = axes[i];
    const int64_t rank = x.ndim > 0 ? x.ndim : 1;  // a 0-D tensor accepts axis 0 / -1
    if (d < -rank || d >= rank)
      return fail(ctx, "%s on gpu: axis %lld out of range for %d dims", ctx->op,
                  static_cast<long long>(d), x.ndim), false;
    if (d < 0) d += rank;
    if (d < x.ndim) reduced[d] = true;
  }
  return true;
}

bool plan_reduce(const OarKernelContext* ctx, const OarTensor& x, const bool (&reduced)[64],
                 int64_t out_numel, ReduceArgs* a, bool* rows) {
  // Kept and reduced dims, innermost first, each coalesced.
  int64_t ks[64], kst[64], rs[64], rst[64];
  int nk = 0, nr = 0;
  for (int d = x.ndim - 1; d >= 0; --d) {
    if (reduced[d]) {
      rs[nr] = x.shape[d];
      rst[nr++] = x.strides[d];
    } else {
      ks[nk] = x.shape[d];
      kst[nk++] = x.strides[d];
    }
  }
  *a = ReduceArgs{};
  HostPlan kp;
  kp.ntensors = 1;
  kp.ndim = coalesce(ks, kst, nk, kp.size, kp.stride[0]);
  int64_t red_size[64], red_stride[64];
  a->red.ndim = coalesce(rs, rst, nr, red_size, red_stride);
  if (kp.ndim > kMaxDims || a->red.ndim > kMaxDims)
    return fail(ctx, "%s on gpu: more than %d kept or reduced dims after merging", ctx->op,
                kMaxDims), false;
  if (out_numel > kMaxChunk)
    return fail(ctx, "%s on gpu: %lld outputs are more than 2^31-1", ctx->op,
                static_cast<long long>(out_numel)), false;
  if (kp.ndim == 0) {
    kp.ndim = 1;
    kp.size[0] = 1;
    kp.stride[0][0] = 0;
  }
  a->kept = device_plan<1>(kp);
  for (int d = 0; d < a->red.ndim; ++d) {
    a->red.size[d] = red_size[d];
    a->red.stride[d] = red_stride[d];
  }
  a->count = 1;
  for (int d = 0; d < a->red.ndim; ++d) a->count *= red_size[d];
  if (x.numel == 0) a->count = 0;
  a->outputs = static_cast<uint32_t>(out_numel);
  *rows = a->red.ndim == 1 && red_stride[0] == 1 && a->count >= 32;
  return true;
}

OarStatus cast_to_scratch(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& x0,
                          int32_t dtype, OarTensor* x, void** buf, int64_t (&strides)[64]) {
  *x = x0;
  *buf = nullptr;
  const size_t bytes = static_cast<size_t>(x0.numel) * dtype_size(dtype);
  cudaError_t err = scratch_alloc(ctx->device_id, buf, bytes, stream);
  if (err != cudaSuccess) return cuda_fail(ctx, err, "cudaMallocAsync (reduce cast)");
  int64_t s = 1;
  for (int d = x0.ndim - 1; d >= 0; --d) {
    strides[d] = s;
    s *= x0.shape[d];
  }
  x->data = *buf;
  x->dtype = dtype;
  x->strides = strides;
  OarKernelContext sub = *ctx;
  sub.op = "cast";
  sub.num_inputs = 1;
  sub.inputs = &x0;
  sub.num_outputs = 1;
  sub.outputs = x;
  sub.num_attrs = 0;
  sub.attrs = nullptr;
  sub.stream = reinterpret_cast<OarStream>(stream);
  if (OarStatus st = k_cast(&sub)) {
    scratch_free(*buf, stream);
    *buf = nullptr;
    return st;
  }
  return OAR_STATUS_OK;
}

namespace {

// Whether T accumulates straight into the output dtype (else the input is cast first).
bool accumulates_into(int32_t in, int32_t out) {
  auto is_float = [](int32_t d) {
    return d == OAR_FLOAT16 || d == OAR_BFLOAT16 || d == OAR_FLOAT32 || d == OAR_FLOAT64;
  };
  if (is_float(out) && is_float(in)) return out != OAR_FLOAT64 || in == OAR_FLOAT64;
  return !is_float(out) && !is_float(in);
}

OarStatus reduce(const OarKernelContext* ctx, int kind, bool mean) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x0 = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (x0.ndim > 64) return fail(ctx, "%s on gpu: too many dims (%d)", ctx->op, x0.ndim);
  if (dtype_size(x0.dtype) == 0) return unsupported(ctx, x0.dtype);
  if (dtype_size(out.dtype) == 0) return unsupported(ctx, out.dtype);
  if (kind != kSum && out.dtype != x0.dtype)
    return fail(ctx, "%s on gpu: output dtype %s differs from the input's %s", ctx->op,
                dtype_name(out.dtype), dtype_name(x0.dtype));
  bool reduced[64];
  if (!reduce_axes(ctx, x0, reduced)) return OAR_STATUS_ERROR;

  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  if (x0.numel == 0 && kind != kSum)
    return fail(ctx, "%s on gpu: cannot reduce over a zero-size dimension (no identity)",
                ctx->op);

  // Input that does not accumulate into the output type: cast it to the output dtype first.
  OarTensor x = x0;
  void* cast_buf = nullptr;
  int64_t cast_strides[64];
  if (!accumulates_into(x0.dtype, out.dtype) && x0.numel > 0)
    if (OarStatus st = cast_to_scratch(ctx, stream, x0, out.dtype, &x, &cast_buf, cast_strides))
      return st;
  if (x.numel == 0) x.dtype = out.dtype;  // nothing to read: reduce as the output type

  ReduceArgs a;
  bool rows = false;
  OarStatus st = OAR_STATUS_OK;
  if (!plan_reduce(ctx, x, reduced, out.numel, &a, &rows)) st = OAR_STATUS_ERROR;
  if (st == OAR_STATUS_OK) {
    const Epilogue ep{out.data, out.dtype, mean && out.dtype != OAR_BOOL, a.count};
    const bool found = dispatch(AllTypes{}, x.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using Acc = acc_t<T>;
      const T* px = static_cast<const T*>(x.data);
      if (kind == kSum) st = launch_reduce(ctx, stream, px, a, rows, Reducer<kSum, Acc>{ep});
      else if (kind == kMax) st = launch_reduce(ctx, stream, px, a, rows, Reducer<kMax, Acc>{ep});
      else st = launch_reduce(ctx, stream, px, a, rows, Reducer<kMin, Acc>{ep});
    });
    if (!found) st = unsupported(ctx, x.dtype);
  }
  scratch_free(cast_buf, stream);
  return st;
}

}  // namespace

OarStatus k_sum(const OarKernelContext* ctx) { return reduce(ctx, kSum, false); }
OarStatus k_mean(const OarKernelContext* ctx) { return reduce(ctx, kSum, true); }
OarStatus k_max(const OarKernelContext* ctx) { return reduce(ctx, kMax, false); }
OarStatus k_min(const OarKernelContext* ctx) { return reduce(ctx, kMin, false); }

}  // namespace oar_cuda
