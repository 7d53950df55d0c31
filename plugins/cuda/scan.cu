// Scans and orders along one axis: cumsum_scan, cumprod_scan, logcumsumexp_scan,
// cum_extreme_scan (cummax / cummin with indices), argsort and topk_indices.
//
// Contract (plugins/custom_cpu/scan.cc and search.cc are the reference): x any strided view;
// outputs contiguous; attr axis (negative counts from the end; a 0-D x takes 0 / -1).
// - cumsum_scan / cumprod_scan: axis, reverse. Each element is converted to the output dtype
//   first (x is cast into scratch when the dtypes differ), then accumulated in double (float
//   outputs) or wrapping int64 (integer and bool outputs).
// - logcumsumexp_scan: float dtypes; log-space adds in double; NaN propagates, equal values add
//   log 2 (so -inf stays -inf).
// - cum_extreme_scan: axis, is_max -> values (x's dtype) and indices (int32 or int64): the running
//   max (min); the newest element wins ties, a NaN is taken when seen and kept until a newer NaN.
// - argsort: axis, descending -> int64; topk_indices: k, axis, largest -> int64 (the first k of
//   the order). The order: ascending with NaN last (descending: NaN first), -0 equal to +0, ties
//   by index (stable), as custom_cpu's keyed partial sort.
//
// How: a scan runs one warp per lane (the elements along the axis) in tiles of 32 with shuffles
// and a carried prefix when the axis is contiguous or lanes are few, else one thread per lane
// sequentially (coalesced across lanes). Sorting makes 64-bit keys whose unsigned order is the
// requested order and sorts (key, index) pairs with a bitonic network: in shared memory, one
// block per row, for rows up to 4096 elements; in global scratch, one launch per network stage,
// for longer rows.
#include <cmath>
#include <cstring>

#include "plugins/cuda/common.h"
#include "plugins/cuda/dtype.cuh"
#include "plugins/cuda/index.cuh"
#include "plugins/cuda/kernels.h"
#include "plugins/cuda/reduce.cuh"

namespace oar_cuda {
namespace {

// ---- scans ----------------------------------------------------------------------------------

struct ScanArgs {
  StridedPlan<2> lane;  // lane index -> offsets of its first element in x and out
  uint32_t lanes;
  int64_t len;          // elements along the axis
  int64_t x_step, o_step;
  bool reverse;
};

template <class A>
__device__ __forceinline__ A shfl_up_any(A v, int d) {
  if constexpr (std::is_arithmetic_v<A> && sizeof(A) >= 4) {
    return __shfl_up_sync(0xffffffffu, v, d);
  } else {
    static_assert(sizeof(A) % 4 == 0, "a scan accumulator must be a multiple of 4 bytes");
    constexpr int W = sizeof(A) / 4;
    int w[W];
    memcpy(w, &v, sizeof(A));
#pragma unroll
    for (int i = 0; i < W; ++i) w[i] = __shfl_up_sync(0xffffffffu, w[i], d);
    A r;
    memcpy(&r, w, sizeof(A));
    return r;
  }
}

template <class A>
__device__ __forceinline__ A shfl_any(A v, int src) {
  if constexpr (std::is_arithmetic_v<A> && sizeof(A) >= 4) {
    return __shfl_sync(0xffffffffu, v, src);
  } else {
    constexpr int W = sizeof(A) / 4;
    int w[W];
    memcpy(w, &v, sizeof(A));
#pragma unroll
    for (int i = 0; i < W; ++i) w[i] = __shfl_sync(0xffffffffu, w[i], src);
    A r;
    memcpy(&r, w, sizeof(A));
    return r;
  }
}

constexpr int kScanWarps = 8;

// One warp per lane: tiles of 32 elements, an inclusive warp scan each, the carry in between.
template <class P, class T>
__global__ void __launch_bounds__(kScanWarps * 32) scan_warp_kernel(const T* x, ScanArgs a, P p) {
  using Acc = typename P::Acc;
  const uint32_t lane_id = blockIdx.x * kScanWarps + threadIdx.x / 32;
  if (lane_id >= a.lanes) return;  // whole warps leave together
  const int l = threadIdx.x % 32;
  int64_t off[2];
  a.lane.offsets(lane_id, off);
  Acc carry = p.identity();
  for (int64_t t0 = 0; t0 < a.len; t0 += 32) {
    const int64_t k = t0 + l;
    const int64_t r = a.reverse ? a.len - 1 - k : k;
    Acc v = k < a.len ? p.load(x[off[0] + r * a.x_step], r) : p.identity();
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const Acc o = shfl_up_any(v, d);
      if (l >= d) v = p.combine(o, v);
    }
    v = p.combine(carry, v);
    if (k < a.len) p.store(off[1] + r * a.o_step, v);
    carry = shfl_any(v, 31);
  }
}

// One thread per lane, sequential along the axis.
template <class P, class T>
__global__ void __launch_bounds__(256) scan_thread_kernel(const T* x, ScanArgs a, P p) {
  using Acc = typename P::Acc;
  for (uint32_t lane_id = blockIdx.x * blockDim.x + threadIdx.x; lane_id < a.lanes;
       lane_id += gridDim.x * blockDim.x) {
    int64_t off[2];
    a.lane.offsets(lane_id, off);
    Acc acc = p.identity();
    for (int64_t k = 0; k < a.len; ++k) {
      const int64_t r = a.reverse ? a.len - 1 - k : k;
      acc = p.combine(acc, p.load(x[off[0] + r * a.x_step], r));
      p.store(off[1] + r * a.o_step, acc);
    }
  }
}

template <class T>
using scan_acc_t = std::conditional_t<is_float_v<T>, double, int64_t>;

template <class T, bool kProd>
struct CumPolicy {
  using Acc = scan_acc_t<T>;
  T* out;
  __device__ Acc identity() const { return Acc(kProd ? 1 : 0); }
  __device__ Acc combine(Acc a, Acc b) const {
    if constexpr (std::is_integral_v<Acc>) {  // wraps as two's complement
      const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
      return static_cast<Acc>(kProd ? ua * ub : ua + ub);
    } else {
      return kProd ? a * b : a + b;
    }
  }
  template <class U>
  __device__ Acc load(U v, int64_t) const { return static_cast<Acc>(to_compute(v)); }
  __device__ void store(int64_t o, Acc v) const { out[o] = convert<T>(v); }
};

template <class T>
struct LogCumPolicy {
  using Acc = double;
  T* out;
  __device__ Acc identity() const { return -INFINITY; }
  __device__ Acc combine(Acc a, Acc b) const {
    if (a != a || b != b) return NAN;
    if (a == b) return a + 0.6931471805599453;  // also both +-inf: -inf stays -inf
    const double hi = a > b ? a : b, lo = a > b ? b : a;
    return hi + log1p(exp(lo - hi));
  }
  template <class U>
  __device__ Acc load(U v, int64_t) const { return static_cast<double>(to_compute(v)); }
  __device__ void store(int64_t o, Acc v) const { out[o] = convert<T>(v); }
};

template <class C>
struct ExtremeAcc {
  C v;
  int64_t i;  // -1: empty
};

template <class T>
struct ExtremePolicy {
  using C = compute_t<T>;
  using Acc = ExtremeAcc<C>;
  T* values;
  void* indices;
  bool i64, is_max;
  __device__ Acc identity() const { return Acc{C(0), -1}; }
  // b is the later segment's result: it wins with a NaN, loses to an earlier NaN, and wins ties.
  __device__ Acc combine(Acc a, Acc b) const {
    if (b.i < 0) return a;
    if (a.i < 0) return b;
    if constexpr (is_float_v<T>) {
      if (b.v != b.v) return b;
      if (a.v != a.v) return a;
    }
    return (is_max ? b.v >= a.v : b.v <= a.v) ? b : a;
  }
  template <class U>
  __device__ Acc load(U v, int64_t pos) const { return Acc{to_compute(v), pos}; }
  __device__ void store(int64_t o, Acc v) const {
    values[o] = convert<T>(v.v);
    if (i64) static_cast<int64_t*>(indices)[o] = v.i;
    else static_cast<int32_t*>(indices)[o] = static_cast<int32_t>(v.i);
  }
};

// Checks the axis and fills the lanes of x (out contiguous with x's shape).
bool plan_scan(const OarKernelContext* ctx, const OarTensor& x, ScanArgs* a) {
  const int nd = x.ndim;
  if (nd > 64) return fail(ctx, "%s on gpu: too many dims (%d)", ctx->op, nd), false;
  int64_t axis = 0;
  const OarAttr* at = oar_find_attr(ctx, "axis");
  if (at && (at->kind == OAR_ATTR_INT || at->kind == OAR_ATTR_SCALAR_INT)) axis = at->i;
  if (nd == 0 ? (axis != 0 && axis != -1) : (axis < -nd || axis >= nd))
    return fail(ctx, "%s on gpu: axis %lld is out of range for %d dimensions", ctx->op,
                static_cast<long long>(axis), nd), false;
  int64_t lanes[64], out_strides[64];
  contiguous_strides(nd, x.shape, out_strides);
  a->len = 1;
  a->x_step = a->o_step = 0;
  int64_t count = 1;
  for (int d = 0; d < nd; ++d) lanes[d] = x.shape[d];
  if (nd > 0) {
    if (axis < 0) axis += nd;
    a->len = x.shape[axis];
    a->x_step = x.strides[axis];
    a->o_step = out_strides[axis];
    lanes[axis] = 1;
  }
  for (int d = 0; d < nd; ++d) count *= lanes[d];
  if (count > kMaxChunk)
    return fail(ctx, "%s on gpu: more than 2^31-1 lanes", ctx->op), false;
  a->lanes = static_cast<uint32_t>(count);
  if (count == 0 || a->len == 0) return true;
  const OarTensor tx{nullptr, x.dtype, nd, lanes, x.strides, count};
  const OarTensor to{nullptr, x.dtype, nd, lanes, out_strides, count};
  const OarTensor* ptrs[2] = {&tx, &to};
  HostPlan plan;
  if (!make_plan(ctx, ptrs, 2, &plan)) return false;
  a->lane = device_plan<2>(plan);
  return true;
}

template <class P, class T>
OarStatus launch_scan(const OarKernelContext* ctx, cudaStream_t stream, const T* x,
                      const ScanArgs& a, const P& p) {
  if (a.lanes == 0 || a.len == 0) return OAR_STATUS_OK;
  const bool warp = a.x_step == 1 || a.lanes < 4096u;
  if (warp) {
    const unsigned blocks = (a.lanes + kScanWarps - 1) / kScanWarps;
    scan_warp_kernel<P, T><<<blocks, kScanWarps * 32, 0, stream>>>(x, a, p);
  } else {
    scan_thread_kernel<P, T><<<ew_blocks(ctx->device_id, a.lanes), 256, 0, stream>>>(x, a, p);
  }
  return check_launch(ctx, ctx->op);
}

template <bool kProd>
OarStatus cum_scan(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x0 = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (dtype_size(x0.dtype) == 0) return unsupported(ctx, x0.dtype);
  if (dtype_size(out.dtype) == 0) return unsupported(ctx, out.dtype);
  if (out.numel != x0.numel || !is_contiguous(out))
    return fail(ctx, "%s on gpu: out must be contiguous with x's shape", ctx->op);
  ScanArgs a;
  if (!plan_scan(ctx, x0, &a)) return OAR_STATUS_ERROR;
  a.reverse = attr_bool(ctx, "reverse", false);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  // Each element goes to the output dtype first: cast x when the dtypes differ.
  OarTensor x = x0;
  void* cast_buf = nullptr;
  int64_t cast_strides[64];
  if (x0.dtype != out.dtype) {
    if (OarStatus st = cast_to_scratch(ctx, stream, x0, out.dtype, &x, &cast_buf, cast_strides))
      return st;
    if (!plan_scan(ctx, x, &a)) {
      scratch_free(cast_buf, stream);
      return OAR_STATUS_ERROR;
    }
    a.reverse = attr_bool(ctx, "reverse", false);
  }
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(AllTypes{}, out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = launch_scan(ctx, stream, static_cast<const T*>(x.data), a,
                     CumPolicy<T, kProd>{static_cast<T*>(out.data)});
  });
  scratch_free(cast_buf, stream);
  return found ? st : unsupported(ctx, out.dtype);
}

// ---- ordering -------------------------------------------------------------------------------

// A key whose unsigned order is the value order: NaN above +inf, -0 equal to +0.
template <class T>
__device__ __forceinline__ uint64_t order_key(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? 1u : 0u;
  } else if constexpr (is_float_v<T>) {
    double d = static_cast<double>(to_compute(v));
    if (d != d) return ~0ull;
    if (d == 0) d = 0.0;
    const uint64_t b = static_cast<uint64_t>(__double_as_longlong(d));
    return (b >> 63) ? ~b : b | (1ull << 63);
  } else {
    return static_cast<uint64_t>(static_cast<int64_t>(v)) ^ (1ull << 63);
  }
}

struct SortArgs {
  StridedPlan<2> row;  // row index -> offsets of its first element in x and out
  int64_t rows, n, k;  // rows, elements per row, indices written per row
  int64_t x_step, o_step;
  uint64_t flip;       // ~0 for descending
  int64_t p;           // padded row length (a power of 2)
};

__device__ __forceinline__ bool pair_greater(uint64_t ka, int32_t ia, uint64_t kb, int32_t ib) {
  return ka > kb || (ka == kb && ia > ib);
}

constexpr int kSharedSortMax = 4096;

// One block per row; the row padded to p (a power of 2 up to 4096) in shared memory.
template <class T>
__global__ void __launch_bounds__(1024) sort_shared_kernel(const T* x, int64_t* out, SortArgs a) {
  extern __shared__ uint64_t smem[];
  uint64_t* keys = smem;
  int32_t* idx = reinterpret_cast<int32_t*>(smem + a.p);
  const int p = static_cast<int>(a.p);
  int64_t off[2];
  a.row.offsets(blockIdx.x, off);
  for (int j = threadIdx.x; j < p; j += blockDim.x) {
    keys[j] = j < a.n ? order_key(x[off[0] + j * a.x_step]) ^ a.flip : ~0ull;
    idx[j] = j;
  }
  __syncthreads();
  for (int k = 2; k <= p; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int t = threadIdx.x; t < p / 2; t += blockDim.x) {
        const int i = 2 * j * (t / j) + (t % j);
        const int l = i + j;
        const bool up = (i & k) == 0;
        if (pair_greater(keys[i], idx[i], keys[l], idx[l]) == up) {
          const uint64_t tk = keys[i];
          keys[i] = keys[l];
          keys[l] = tk;
          const int32_t ti = idx[i];
          idx[i] = idx[l];
          idx[l] = ti;
        }
      }
      __syncthreads();
    }
  }
  for (int j = threadIdx.x; j < a.k; j += blockDim.x) out[off[1] + j * a.o_step] = idx[j];
}

// Global path: keys/idx hold rows * p entries.
template <class T>
__global__ void sort_init_kernel(const T* x, uint64_t* keys, int32_t* idx, SortArgs a) {
  const int64_t total = a.rows * a.p;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    const int64_t row = e / a.p, j = e % a.p;
    int64_t off[2];
    a.row.offsets(static_cast<uint32_t>(row), off);
    keys[e] = j < a.n ? order_key(x[off[0] + j * a.x_step]) ^ a.flip : ~0ull;
    idx[e] = static_cast<int32_t>(j);
  }
}

__global__ void sort_step_kernel(uint64_t* keys, int32_t* idx, SortArgs a, int64_t k, int64_t j) {
  const int64_t half = a.p / 2, total = a.rows * half;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    const int64_t row = e / half, t = e % half;
    const int64_t i = 2 * j * (t / j) + (t % j), l = i + j;
    const bool up = (i & k) == 0;
    uint64_t* kr = keys + row * a.p;
    int32_t* ir = idx + row * a.p;
    if (pair_greater(kr[i], ir[i], kr[l], ir[l]) == up) {
      const uint64_t tk = kr[i];
      kr[i] = kr[l];
      kr[l] = tk;
      const int32_t ti = ir[i];
      ir[i] = ir[l];
      ir[l] = ti;
    }
  }
}

__global__ void sort_write_kernel(const int32_t* idx, int64_t* out, SortArgs a) {
  const int64_t total = a.rows * a.k;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    const int64_t row = e / a.k, j = e % a.k;
    int64_t off[2];
    a.row.offsets(static_cast<uint32_t>(row), off);
    out[off[1] + j * a.o_step] = idx[row * a.p + j];
  }
}

unsigned grid_for(const OarKernelContext* ctx, int64_t units) {
  const int64_t need = (units + 255) / 256;
  const int64_t cap = static_cast<int64_t>(sm_count(ctx->device_id)) * 32;
  return static_cast<unsigned>(need < 1 ? 1 : (need < cap ? need : cap));
}

// The first k indices of each row's order along `axis` into out (int64, x's shape with the axis
// holding k).
OarStatus order_rows(const OarKernelContext* ctx, int64_t axis_attr, int64_t k, bool descending) {
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (out.dtype != OAR_INT64)
    return fail(ctx, "%s on gpu: out must be int64, got %s", ctx->op, dtype_name(out.dtype));
  if (!is_contiguous(out)) return fail(ctx, "%s on gpu: out must be contiguous", ctx->op);
  const int nd = x.ndim;
  if (nd > 64) return fail(ctx, "%s on gpu: too many dims (%d)", ctx->op, nd);
  int axis = 0;
  if (!(nd == 0 && (axis_attr == 0 || axis_attr == -1))) {
    if (axis_attr < -nd || axis_attr >= nd)
      return fail(ctx, "%s on gpu: axis %lld is out of range for %d dimensions", ctx->op,
                  static_cast<long long>(axis_attr), nd);
    axis = static_cast<int>(axis_attr < 0 ? axis_attr + nd : axis_attr);
  }
  SortArgs a{};
  a.n = nd == 0 ? 1 : x.shape[axis];
  if (k < 0 || k > a.n)
    return fail(ctx, "%s on gpu: k = %lld is out of range for %lld elements", ctx->op,
                static_cast<long long>(k), static_cast<long long>(a.n));
  a.k = k;
  int64_t want[64], out_strides[64], rows_shape[64];
  for (int d = 0; d < nd; ++d) {
    want[d] = d == axis ? k : x.shape[d];
    rows_shape[d] = d == axis ? 1 : x.shape[d];
  }
  contiguous_strides(nd, want, out_strides);
  int64_t out_numel = 1, rows = 1;
  for (int d = 0; d < nd; ++d) {
    out_numel *= want[d];
    rows *= rows_shape[d];
  }
  if (out.numel != out_numel)
    return fail(ctx, "%s on gpu: out has %lld elements, expected %lld", ctx->op,
                static_cast<long long>(out.numel), static_cast<long long>(out_numel));
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out_numel == 0) return OAR_STATUS_OK;
  if (rows > kMaxChunk) return fail(ctx, "%s on gpu: more than 2^31-1 rows", ctx->op);
  if (a.n > (int64_t{1} << 30))
    return fail(ctx, "%s on gpu: rows of more than 2^30 elements", ctx->op);
  a.rows = rows;
  a.x_step = nd == 0 ? 0 : x.strides[axis];
  a.o_step = nd == 0 ? 0 : out_strides[axis];
  a.flip = descending ? ~0ull : 0ull;
  a.p = 1;
  while (a.p < a.n) a.p <<= 1;
  if (a.p < 2) a.p = 2;
  {
    const OarTensor tx{nullptr, x.dtype, nd, rows_shape, x.strides, rows};
    const OarTensor to{nullptr, out.dtype, nd, rows_shape, out_strides, rows};
    const OarTensor* ptrs[2] = {&tx, &to};
    HostPlan plan;
    if (!make_plan(ctx, ptrs, 2, &plan)) return OAR_STATUS_ERROR;
    a.row = device_plan<2>(plan);
  }
  int64_t* po = static_cast<int64_t*>(out.data);
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(AllTypes{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* px = static_cast<const T*>(x.data);
    if (a.p <= kSharedSortMax) {
      const int threads = static_cast<int>(std::min<int64_t>(1024, std::max<int64_t>(32, a.p / 2)));
      const size_t shared = static_cast<size_t>(a.p) * (sizeof(uint64_t) + sizeof(int32_t));
      sort_shared_kernel<T><<<static_cast<unsigned>(rows), threads, shared, stream>>>(px, po, a);
      st = check_launch(ctx, ctx->op);
      return;
    }
    void* buf = nullptr;
    const size_t nkeys = static_cast<size_t>(rows) * static_cast<size_t>(a.p);
    cudaError_t err = scratch_alloc(ctx->device_id, &buf,
                                    nkeys * (sizeof(uint64_t) + sizeof(int32_t)), stream);
    if (err != cudaSuccess) {
      st = cuda_fail(ctx, err, "cudaMallocAsync (sort)");
      return;
    }
    uint64_t* keys = static_cast<uint64_t*>(buf);
    int32_t* idx = reinterpret_cast<int32_t*>(keys + nkeys);
    sort_init_kernel<T><<<grid_for(ctx, rows * a.p), 256, 0, stream>>>(px, keys, idx, a);
    st = check_launch(ctx, ctx->op);
    for (int64_t kk = 2; st == OAR_STATUS_OK && kk <= a.p; kk <<= 1)
      for (int64_t j = kk >> 1; st == OAR_STATUS_OK && j > 0; j >>= 1) {
        sort_step_kernel<<<grid_for(ctx, rows * (a.p / 2)), 256, 0, stream>>>(keys, idx, a, kk, j);
        st = check_launch(ctx, ctx->op);
      }
    if (st == OAR_STATUS_OK) {
      sort_write_kernel<<<grid_for(ctx, rows * a.k), 256, 0, stream>>>(idx, po, a);
      st = check_launch(ctx, ctx->op);
    }
    scratch_free(buf, stream);
  });
  return found ? st : unsupported(ctx, x.dtype);
}

int64_t int_attr(const OarKernelContext* ctx, const char* name, int64_t fallback) {
  const OarAttr* a = oar_find_attr(ctx, name);
  if (!a || (a->kind != OAR_ATTR_INT && a->kind != OAR_ATTR_SCALAR_INT)) return fallback;
  return a->i;
}

}  // namespace

OarStatus k_cumsum(const OarKernelContext* ctx) { return cum_scan<false>(ctx); }
OarStatus k_cumprod(const OarKernelContext* ctx) { return cum_scan<true>(ctx); }

OarStatus k_logcumsumexp(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (out.dtype != x.dtype)
    return fail(ctx, "%s on gpu: output dtype %s differs from the input's %s", ctx->op,
                dtype_name(out.dtype), dtype_name(x.dtype));
  if (out.numel != x.numel || !is_contiguous(out))
    return fail(ctx, "%s on gpu: out must be contiguous with x's shape", ctx->op);
  ScanArgs a;
  if (!plan_scan(ctx, x, &a)) return OAR_STATUS_ERROR;
  a.reverse = attr_bool(ctx, "reverse", false);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(FloatTypes{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = launch_scan(ctx, stream, static_cast<const T*>(x.data), a,
                     LogCumPolicy<T>{static_cast<T*>(out.data)});
  });
  return found ? st : unsupported(ctx, x.dtype);
}

OarStatus k_cum_extreme(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 2)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& values = ctx->outputs[0];
  const OarTensor& indices = ctx->outputs[1];
  if (values.dtype != x.dtype)
    return fail(ctx, "%s on gpu: values dtype %s differs from the input's %s", ctx->op,
                dtype_name(values.dtype), dtype_name(x.dtype));
  if (indices.dtype != OAR_INT32 && indices.dtype != OAR_INT64)
    return fail(ctx, "%s on gpu: indices must be int32 or int64", ctx->op);
  if (values.numel != x.numel || indices.numel != x.numel || !is_contiguous(values) ||
      !is_contiguous(indices))
    return fail(ctx, "%s on gpu: values and indices must be contiguous with x's shape", ctx->op);
  ScanArgs a;
  if (!plan_scan(ctx, x, &a)) return OAR_STATUS_ERROR;
  a.reverse = false;
  const bool is_max = attr_bool(ctx, "is_max", true);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(NumericTypes{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const ExtremePolicy<T> p{static_cast<T*>(values.data), indices.data,
                             indices.dtype == OAR_INT64, is_max};
    st = launch_scan(ctx, stream, static_cast<const T*>(x.data), a, p);
  });
  return found ? st : unsupported(ctx, x.dtype);
}

OarStatus k_argsort(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const int64_t axis = int_attr(ctx, "axis", -1);
  int64_t n = 1;
  if (x.ndim > 0) {
    const int64_t a = axis < 0 ? axis + x.ndim : axis;
    if (a >= 0 && a < x.ndim) n = x.shape[a];
  }
  return order_rows(ctx, axis, n, attr_bool(ctx, "descending", false));
}

OarStatus k_topk_indices(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  return order_rows(ctx, int_attr(ctx, "axis", -1), int_attr(ctx, "k", 1),
                    attr_bool(ctx, "largest", true));
}

}  // namespace oar_cuda
