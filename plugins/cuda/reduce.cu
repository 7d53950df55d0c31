// Reductions: sum, mean, max and min over a set of axes.
//
// Contract: attrs axis (INT_ARRAY; empty or absent = all axes, negative entries count from the
// end) and keepdim (only changes the output's shape, which oar already computed: the output is
// contiguous, its elements in row-major order of the kept dims); sum's dtype attr is reflected in
// outputs[0].dtype. Accumulation: float for 16-bit floats and float32, double for float64, int64
// (wrapping) for integers and bool. Where the input type does not accumulate into the output's
// (an integer sum into a float output, float32 into float64, ...) the input is first cast to the
// output dtype, as oar's CPU kernels do. As there: mean of integers truncates, mean of bool is
// any(), max/min propagate NaN, an empty reduction gives 0 (sum), NaN (float mean) or 0 (integer
// mean), and max/min over an empty set are an error.
//
// How: dims are split into kept and reduced (each set coalesced), the reduced ones logically
// innermost. When the reduced part is one contiguous run (the common last-axis case) a group of
// lanes (a warp up to a 512-thread block) reduces each output with vectorised loads and warp
// shuffles; otherwise one thread per output walks its reduced elements (coalesced across threads
// when the kept dims are the contiguous ones, e.g. a sum over the batch axis). When there are too
// few outputs to fill the GPU the reduced range is split across blocks, which write partials that
// a second kernel combines.
#include <cmath>
#include <cstring>
#include <limits>

#include "plugins/cuda/common.h"
#include "plugins/cuda/dtype.cuh"
#include "plugins/cuda/kernels.h"
#include "plugins/cuda/strided_plan.h"

namespace oar_cuda {
namespace {

enum Kind { kSum = 0, kMax = 1, kMin = 2 };

template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double,
                                 std::conditional_t<is_float_v<T>, float, int64_t>>;

template <int K, class Acc>
struct Reducer {
  __device__ static Acc identity() {
    if constexpr (K == kSum) return Acc(0);
    else if constexpr (std::is_floating_point_v<Acc>)
      return K == kMax ? -std::numeric_limits<Acc>::infinity()
                       : std::numeric_limits<Acc>::infinity();
    else return K == kMax ? std::numeric_limits<Acc>::lowest() : std::numeric_limits<Acc>::max();
  }
  __device__ static Acc combine(Acc a, Acc b) {
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
};

template <class Acc, class T>
__device__ __forceinline__ Acc load_acc(T v) {
  return static_cast<Acc>(to_compute(v));
}

template <int K, class Acc>
__device__ __forceinline__ Acc warp_reduce(Acc v) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1)
    v = Reducer<K, Acc>::combine(v, __shfl_xor_sync(0xffffffffu, v, m));
  return v;
}

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
    switch (dtype) {
      case OAR_BOOL: static_cast<bool*>(out)[i] = convert<bool>(v); break;
      case OAR_INT32: static_cast<int32_t*>(out)[i] = convert<int32_t>(v); break;
      case OAR_INT64: static_cast<int64_t*>(out)[i] = convert<int64_t>(v); break;
      case OAR_FLOAT16: static_cast<half*>(out)[i] = convert<half>(v); break;
      case OAR_BFLOAT16: static_cast<bf16*>(out)[i] = convert<bf16>(v); break;
      case OAR_FLOAT32: static_cast<float*>(out)[i] = convert<float>(v); break;
      case OAR_FLOAT64: static_cast<double*>(out)[i] = convert<double>(v); break;
      default: break;
    }
  }
};

// The reduced dims (innermost first), walked odometer-style: no division per element.
struct ReducedDims {
  int32_t ndim;
  int64_t size[kMaxDims];
  int64_t stride[kMaxDims];
};

struct ReduceArgs {
  StridedPlan<1> kept;  // output index -> input offset of its first reduced element
  ReducedDims red;
  uint32_t outputs;
  int64_t count;        // reduced elements per output
  int64_t chunk;        // reduced elements per split
  int32_t splits;       // > 1: write partials[o * splits + split]
  void* partials;
  Epilogue ep;
};

template <int K, class Acc>
__device__ __forceinline__ void finish(const ReduceArgs& a, uint32_t o, Acc acc) {
  if (a.splits > 1)
    static_cast<Acc*>(a.partials)[static_cast<int64_t>(o) * a.splits + blockIdx.y] = acc;
  else
    a.ep.store(o, acc);
}

constexpr int kRowMaxThreads = 512;

// One group of blockDim.x lanes per output; the reduced run is contiguous (stride 1).
template <int K, class T, class Acc>
__global__ void __launch_bounds__(kRowMaxThreads) reduce_rows_kernel(const T* x, ReduceArgs a) {
  using R = Reducer<K, Acc>;
  constexpr int V = 16 / sizeof(T);
  const int tx = threadIdx.x, lanes = blockDim.x;
  const uint32_t o = blockIdx.x * blockDim.y + threadIdx.y;
  const bool valid = o < a.outputs;
  Acc acc = R::identity();
  if (valid) {
    int64_t off[1];
    a.kept.offsets(o, off);
    const int64_t r0 = static_cast<int64_t>(blockIdx.y) * a.chunk;
    const int64_t len = r0 + a.chunk < a.count ? a.chunk : a.count - r0;
    const T* p = x + off[0] + r0;
    // Scalar head up to a 16-byte boundary, vector body, scalar tail.
    const uintptr_t misalign = reinterpret_cast<uintptr_t>(p) % 16;
    int64_t head = static_cast<int64_t>((16 - misalign) % 16 / sizeof(T));
    if (head > len) head = len;
    for (int64_t i = tx; i < head; i += lanes) acc = R::combine(acc, load_acc<Acc>(p[i]));
    struct alignas(16) Vec { T v[V]; };
    const Vec* pv = reinterpret_cast<const Vec*>(p + head);
    const int64_t nv = (len - head) / V;
#pragma unroll 4
    for (int64_t i = tx; i < nv; i += lanes) {
      const Vec v = pv[i];
#pragma unroll
      for (int j = 0; j < V; ++j) acc = R::combine(acc, load_acc<Acc>(v.v[j]));
    }
    for (int64_t i = head + nv * V + tx; i < len; i += lanes)
      acc = R::combine(acc, load_acc<Acc>(p[i]));
  }
  acc = warp_reduce<K>(acc);
  if (lanes > 32) {  // several warps per output: combine their results through shared memory
    __shared__ Acc warp_acc[kRowMaxThreads / 32];
    const int warps = lanes / 32;
    if (tx % 32 == 0) warp_acc[threadIdx.y * warps + tx / 32] = acc;
    __syncthreads();
    if (tx < 32) {
      acc = tx < warps ? warp_acc[threadIdx.y * warps + tx] : R::identity();
      acc = warp_reduce<K>(acc);
    }
  }
  if (valid && tx == 0) finish<K>(a, o, acc);
}

// One thread per output, any strides.
template <int K, class T, class Acc>
__global__ void __launch_bounds__(256) reduce_general_kernel(const T* x, ReduceArgs a) {
  using R = Reducer<K, Acc>;
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * a.chunk;
  const int64_t len = r0 + a.chunk < a.count ? a.chunk : a.count - r0;
  for (uint32_t o = blockIdx.x * blockDim.x + threadIdx.x; o < a.outputs;
       o += gridDim.x * blockDim.x) {
    int64_t off[1];
    a.kept.offsets(o, off);
    Acc acc = R::identity();
    if (a.red.ndim <= 1) {
      const int64_t s = a.red.ndim == 1 ? a.red.stride[0] : 0;
      const T* p = x + off[0] + r0 * s;
      for (int64_t r = 0; r < len; ++r) acc = R::combine(acc, load_acc<Acc>(p[r * s]));
    } else {
      int64_t coord[kMaxDims];
      int64_t pos = off[0], rest = r0;
#pragma unroll
      for (int d = 0; d < kMaxDims; ++d) {
        if (d < a.red.ndim) {
          coord[d] = rest % a.red.size[d];
          rest /= a.red.size[d];
          pos += coord[d] * a.red.stride[d];
        }
      }
      for (int64_t r = 0; r < len; ++r) {
        acc = R::combine(acc, load_acc<Acc>(x[pos]));
#pragma unroll
        for (int d = 0; d < kMaxDims; ++d) {  // advance the odometer
          if (d >= a.red.ndim) break;
          pos += a.red.stride[d];
          if (++coord[d] < a.red.size[d]) break;
          pos -= a.red.size[d] * a.red.stride[d];
          coord[d] = 0;
        }
      }
    }
    finish<K>(a, o, acc);
  }
}

// partials[o][0..splits) -> out[o]; one warp per output.
template <int K, class Acc>
__global__ void __launch_bounds__(256) reduce_partials_kernel(const Acc* partials, ReduceArgs a) {
  using R = Reducer<K, Acc>;
  const uint32_t o = blockIdx.x * blockDim.y + threadIdx.y;
  if (o >= a.outputs) return;  // whole warps leave together: the shuffles below stay full
  Acc acc = R::identity();
  const Acc* p = partials + static_cast<int64_t>(o) * a.splits;
  for (int i = threadIdx.x; i < a.splits; i += 32) acc = R::combine(acc, p[i]);
  acc = warp_reduce<K>(acc);
  if (threadIdx.x == 0) a.ep.store(o, acc);
}

// Coalesces (size, stride) pairs given innermost first; drops size-1 dims.
int coalesce(const int64_t* size, const int64_t* stride, int n, int64_t* out_size,
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

template <int K, class T>
OarStatus launch_reduce(const OarKernelContext* ctx, cudaStream_t stream, const T* x,
                        ReduceArgs& a, bool rows) {
  using Acc = acc_t<T>;
  const int sms = sm_count(ctx->device_id);
  const int64_t want_blocks = 8LL * sms;
  const int64_t outputs = a.outputs;
  dim3 grid, block;
  int64_t splits = 1;
  if (rows) {
    int lanes = 32;
    while (lanes < kRowMaxThreads && lanes * 32 <= a.count) lanes *= 2;  // >= 16 elements per lane
    const int per_block = lanes >= 256 ? 1 : 256 / lanes;
    block = dim3(lanes, per_block);
    const int64_t blocks = (outputs + per_block - 1) / per_block;
    if (blocks < want_blocks) {
      const int64_t by_size = (a.count + lanes * 32LL - 1) / (lanes * 32LL);
      splits = std::min<int64_t>({(want_blocks + blocks - 1) / blocks, by_size, 65535});
    }
    grid = dim3(static_cast<unsigned>(blocks), 1);
  } else {
    block = dim3(256);
    const int64_t blocks = std::min<int64_t>((outputs + 255) / 256, 16LL * sms);
    if (blocks < want_blocks) {
      const int64_t by_size = (a.count + 63) / 64;
      splits = std::min<int64_t>({(want_blocks + blocks - 1) / blocks, by_size, 65535});
    }
    grid = dim3(static_cast<unsigned>(blocks), 1);
  }
  if (splits < 1) splits = 1;
  a.chunk = (a.count + splits - 1) / splits;
  if (rows) a.chunk = (a.chunk + 15) / 16 * 16;  // chunk starts stay 16-element aligned
  if (a.chunk < 1) a.chunk = 1;
  splits = (a.count + a.chunk - 1) / a.chunk;
  if (splits < 1) splits = 1;
  a.splits = static_cast<int32_t>(splits);
  grid.y = static_cast<unsigned>(splits);
  a.partials = nullptr;
  if (splits > 1) {
    const cudaError_t err =
        scratch_alloc(ctx->device_id, &a.partials, sizeof(Acc) * outputs * splits, stream);
    if (err != cudaSuccess) return cuda_fail(ctx, err, "cudaMallocAsync (reduce partials)");
  }
  if (rows) reduce_rows_kernel<K, T, Acc><<<grid, block, 0, stream>>>(x, a);
  else reduce_general_kernel<K, T, Acc><<<grid, block, 0, stream>>>(x, a);
  OarStatus st = check_launch(ctx, ctx->op);
  if (st == OAR_STATUS_OK && splits > 1) {
    const dim3 fblock(32, 8);
    const unsigned fgrid = static_cast<unsigned>((outputs + 7) / 8);
    reduce_partials_kernel<K, Acc><<<fgrid, fblock, 0, stream>>>(static_cast<Acc*>(a.partials), a);
    st = check_launch(ctx, ctx->op);
  }
  scratch_free(a.partials, stream);
  return st;
}

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

  // Which axes reduce.
  bool reduced[64] = {};
  const OarAttr* axis = oar_find_attr(ctx, "axis");
  const bool all = !axis || axis->kind == OAR_ATTR_NONE ||
                   (axis->kind == OAR_ATTR_INT_ARRAY && axis->count == 0);
  if (all) {
    for (int d = 0; d < x0.ndim; ++d) reduced[d] = true;
  } else {
    const int64_t* axes = axis->kind == OAR_ATTR_INT_ARRAY ? axis->ints : &axis->i;
    const int64_t naxes = axis->kind == OAR_ATTR_INT_ARRAY ? axis->count : 1;
    if (axis->kind != OAR_ATTR_INT_ARRAY && axis->kind != OAR_ATTR_INT)
      return fail(ctx, "%s on gpu: axis must be a list of ints", ctx->op);
    for (int64_t i = 0; i < naxes; ++i) {
      int64_t d = axes[i];
      const int64_t rank = x0.ndim > 0 ? x0.ndim : 1;  // a 0-D tensor accepts axis 0 / -1
      if (d < -rank || d >= rank)
        return fail(ctx, "%s on gpu: axis %lld out of range for %d dims", ctx->op,
                    static_cast<long long>(d), x0.ndim);
      if (d < 0) d += rank;
      if (d < x0.ndim) reduced[d] = true;
    }
  }

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
  if (!accumulates_into(x0.dtype, out.dtype) && x0.numel > 0) {
    const size_t bytes = static_cast<size_t>(x0.numel) * dtype_size(out.dtype);
    cudaError_t err = scratch_alloc(ctx->device_id, &cast_buf, bytes, stream);
    if (err != cudaSuccess) return cuda_fail(ctx, err, "cudaMallocAsync (reduce cast)");
    int64_t s = 1;
    for (int d = x0.ndim - 1; d >= 0; --d) {
      cast_strides[d] = s;
      s *= x0.shape[d];
    }
    x.data = cast_buf;
    x.dtype = out.dtype;
    x.strides = cast_strides;
    OarKernelContext sub = *ctx;
    sub.op = "cast";
    sub.num_inputs = 1;
    sub.inputs = &x0;
    sub.num_outputs = 1;
    sub.outputs = &x;
    sub.num_attrs = 0;
    sub.attrs = nullptr;
    sub.stream = reinterpret_cast<OarStream>(stream);
    if (OarStatus st = k_cast(&sub)) {
      scratch_free(cast_buf, stream);
      return st;
    }
  }
  if (x.numel == 0) x.dtype = out.dtype;  // nothing to read: reduce as the output type

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
  ReduceArgs a{};
  HostPlan kp;
  kp.ntensors = 1;
  kp.ndim = coalesce(ks, kst, nk, kp.size, kp.stride[0]);
  int64_t red_size[64], red_stride[64];
  a.red.ndim = coalesce(rs, rst, nr, red_size, red_stride);
  OarStatus st = OAR_STATUS_OK;
  if (kp.ndim > kMaxDims || a.red.ndim > kMaxDims) {
    st = fail(ctx, "%s on gpu: more than %d kept or reduced dims after merging", ctx->op,
              kMaxDims);
  } else if (out.numel > kMaxChunk) {
    st = fail(ctx, "%s on gpu: %lld outputs are more than 2^31-1", ctx->op,
              static_cast<long long>(out.numel));
  }
  if (st == OAR_STATUS_OK) {
    if (kp.ndim == 0) {
      kp.ndim = 1;
      kp.size[0] = 1;
      kp.stride[0][0] = 0;
    }
    a.kept = device_plan<1>(kp);
    for (int d = 0; d < a.red.ndim; ++d) {
      a.red.size[d] = red_size[d];
      a.red.stride[d] = red_stride[d];
    }
    a.count = 1;
    for (int d = 0; d < a.red.ndim; ++d) a.count *= red_size[d];
    if (x.numel == 0) a.count = 0;
    a.outputs = static_cast<uint32_t>(out.numel);
    a.ep = Epilogue{out.data, out.dtype, mean && out.dtype != OAR_BOOL, a.count};
    const bool rows = a.red.ndim == 1 && red_stride[0] == 1 && a.count >= 32;
    const bool found = dispatch(AllTypes{}, x.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* px = static_cast<const T*>(x.data);
      if (kind == kSum) st = launch_reduce<kSum>(ctx, stream, px, a, rows);
      else if (kind == kMax) st = launch_reduce<kMax>(ctx, stream, px, a, rows);
      else st = launch_reduce<kMin>(ctx, stream, px, a, rows);
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
