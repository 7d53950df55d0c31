// The reduction engine shared by reduce.cu (sum, mean, max, min) and reduce2.cu (prod, all, any,
// logsumexp, p_norm, argmax, argmin): every output element folds the elements of its reduced
// set with a policy object.
//
// Contract: a policy R is a small by-value struct (it travels as a kernel argument) with
//   using Acc = ...;                                  // trivially constructible (shared memory)
//   __device__ Acc identity() const;                  // combine(identity, a) == a
//   __device__ Acc combine(Acc a, Acc b) const;       // associative; a holds earlier positions
//   template <class T> __device__ Acc load(T v, int64_t pos) const;  // one element and its
//       // position: the row-major index over the reduced dims (argmax's answer)
//   __device__ void store(uint32_t o, Acc a) const;   // writes output element o
// combine may see its operands in any grouping but always with earlier positions on the left
// for adjacent ranges; a policy whose result depends on order must carry positions in Acc.
// Acc values are moved between lanes by warp shuffles of their 32-bit words (any size that is a
// multiple of 4, or a plain arithmetic type).
//
// How: dims are split into kept and reduced (each set coalesced), the reduced ones logically
// innermost. When the reduced part is one contiguous run (the common last-axis case) a group of
// lanes (a warp up to a 512-thread block) reduces each output with vectorised loads and warp
// shuffles; otherwise one thread per output walks its reduced elements (coalesced across threads
// when the kept dims are the contiguous ones, e.g. a sum over the batch axis). When there are too
// few outputs to fill the GPU the reduced range is split across blocks, which write partials that
// a second kernel combines.
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "plugins/cuda/common.h"
#include "plugins/cuda/dtype.cuh"
#include "plugins/cuda/strided_plan.h"

namespace oar_cuda {

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
};

// Host side (reduce.cu).
// Which of x's dims the "axis" attribute reduces (INT_ARRAY or INT; empty, absent or NONE: all;
// negative entries count from the end; a 0-D x accepts 0 and -1). False with a message in ctx.
bool reduce_axes(const OarKernelContext* ctx, const OarTensor& x, bool (&reduced)[64]);
// Fills `a` (all but chunk/splits/partials) for x and the reduced dims; *rows tells whether the
// reduced part is one contiguous run (the lane-group kernel applies). out_numel: outputs.
bool plan_reduce(const OarKernelContext* ctx, const OarTensor& x, const bool (&reduced)[64],
                 int64_t out_numel, ReduceArgs* a, bool* rows);
// x0 cast to `dtype` into contiguous scratch (*buf, freed by the caller with scratch_free);
// *x describes it, its strides in `strides`.
OarStatus cast_to_scratch(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& x0,
                          int32_t dtype, OarTensor* x, void** buf, int64_t (&strides)[64]);

namespace {

// Any Acc across lanes: arithmetic types directly, other types word by word.
template <class A>
__device__ __forceinline__ A shfl_xor_any(A v, int m) {
  if constexpr (std::is_arithmetic_v<A> && sizeof(A) >= 4) {
    return __shfl_xor_sync(0xffffffffu, v, m);
  } else {
    static_assert(sizeof(A) % 4 == 0, "a reduction accumulator must be a multiple of 4 bytes");
    constexpr int W = sizeof(A) / 4;
    int w[W];
    memcpy(w, &v, sizeof(A));
#pragma unroll
    for (int i = 0; i < W; ++i) w[i] = __shfl_xor_sync(0xffffffffu, w[i], m);
    A r;
    memcpy(&r, w, sizeof(A));
    return r;
  }
}

// Butterfly over a warp; lane l's partner holds l ^ m, so the earlier positions are in the lower
// lane: combine(lower, upper) keeps positions ordered.
template <class R>
__device__ __forceinline__ typename R::Acc warp_fold(const R& r, typename R::Acc v) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int m = 1; m < 32; m <<= 1) {
    const typename R::Acc o = shfl_xor_any(v, m);
    v = (lane & m) ? r.combine(o, v) : r.combine(v, o);
  }
  return v;
}

template <class R>
__device__ __forceinline__ void finish(const R& r, const ReduceArgs& a, uint32_t o,
                                       typename R::Acc acc) {
  if (a.splits > 1)
    static_cast<typename R::Acc*>(a.partials)[static_cast<int64_t>(o) * a.splits + blockIdx.y] =
        acc;
  else
    r.store(o, acc);
}

constexpr int kRowMaxThreads = 512;

// One group of blockDim.x lanes per output; the reduced run is contiguous (stride 1). Lane tx
// folds positions tx, tx + lanes, ... of each part (head, vector body, tail) in order; the lanes
// are then folded in lane order, which interleaves positions: policies that care about order
// carry positions (argmax) and resolve ties by them, so the grouping does not change the result.
template <class R, class T>
__global__ void __launch_bounds__(kRowMaxThreads)
    reduce_rows_kernel(const T* x, ReduceArgs a, R r) {
  using Acc = typename R::Acc;
  constexpr int V = 16 / sizeof(T);
  const int tx = threadIdx.x, lanes = blockDim.x;
  const uint32_t o = blockIdx.x * blockDim.y + threadIdx.y;
  const bool valid = o < a.outputs;
  Acc acc = r.identity();
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
    for (int64_t i = tx; i < head; i += lanes) acc = r.combine(acc, r.load(p[i], r0 + i));
    struct alignas(16) Vec { T v[V]; };
    const Vec* pv = reinterpret_cast<const Vec*>(p + head);
    const int64_t nv = (len - head) / V;
#pragma unroll 4
    for (int64_t i = tx; i < nv; i += lanes) {
      const Vec v = pv[i];
#pragma unroll
      for (int j = 0; j < V; ++j) acc = r.combine(acc, r.load(v.v[j], r0 + head + i * V + j));
    }
    for (int64_t i = head + nv * V + tx; i < len; i += lanes)
      acc = r.combine(acc, r.load(p[i], r0 + i));
  }
  acc = warp_fold(r, acc);
  if (lanes > 32) {  // several warps per output: combine their results through shared memory
    __shared__ Acc warp_acc[kRowMaxThreads / 32];
    const int warps = lanes / 32;
    if (tx % 32 == 0) warp_acc[threadIdx.y * warps + tx / 32] = acc;
    __syncthreads();
    if (tx < 32) {
      acc = tx < warps ? warp_acc[threadIdx.y * warps + tx] : r.identity();
      acc = warp_fold(r, acc);
    }
  }
  if (valid && tx == 0) finish(r, a, o, acc);
}

// One thread per output, any strides.
template <class R, class T>
__global__ void __launch_bounds__(256) reduce_general_kernel(const T* x, ReduceArgs a, R r) {
  using Acc = typename R::Acc;
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * a.chunk;
  const int64_t len = r0 + a.chunk < a.count ? a.chunk : a.count - r0;
  for (uint32_t o = blockIdx.x * blockDim.x + threadIdx.x; o < a.outputs;
       o += gridDim.x * blockDim.x) {
    int64_t off[1];
    a.kept.offsets(o, off);
    Acc acc = r.identity();
    if (a.red.ndim <= 1) {
      const int64_t s = a.red.ndim == 1 ? a.red.stride[0] : 0;
      const T* p = x + off[0] + r0 * s;
      for (int64_t i = 0; i < len; ++i) acc = r.combine(acc, r.load(p[i * s], r0 + i));
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
      for (int64_t i = 0; i < len; ++i) {
        acc = r.combine(acc, r.load(x[pos], r0 + i));
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
    finish(r, a, o, acc);
  }
}

// partials[o][0..splits) -> out[o]; one warp per output (lane i folds splits i, i + 32, ...).
template <class R>
__global__ void __launch_bounds__(256)
    reduce_partials_kernel(const typename R::Acc* partials, ReduceArgs a, R r) {
  using Acc = typename R::Acc;
  const uint32_t o = blockIdx.x * blockDim.y + threadIdx.y;
  if (o >= a.outputs) return;  // whole warps leave together: the shuffles below stay full
  Acc acc = r.identity();
  const Acc* p = partials + static_cast<int64_t>(o) * a.splits;
  for (int i = threadIdx.x; i < a.splits; i += 32) acc = r.combine(acc, p[i]);
  acc = warp_fold(r, acc);
  if (threadIdx.x == 0) r.store(o, acc);
}

// Launches the reduction of x (element type T) described by `a` with policy r.
template <class R, class T>
OarStatus launch_reduce(const OarKernelContext* ctx, cudaStream_t stream, const T* x,
                        ReduceArgs& a, bool rows, const R& r) {
  using Acc = typename R::Acc;
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
  if (rows) reduce_rows_kernel<R, T><<<grid, block, 0, stream>>>(x, a, r);
  else reduce_general_kernel<R, T><<<grid, block, 0, stream>>>(x, a, r);
  OarStatus st = check_launch(ctx, ctx->op);
  if (st == OAR_STATUS_OK && splits > 1) {
    const dim3 fblock(32, 8);
    const unsigned fgrid = static_cast<unsigned>((outputs + 7) / 8);
    reduce_partials_kernel<R><<<fgrid, fblock, 0, stream>>>(static_cast<Acc*>(a.partials), a, r);
    st = check_launch(ctx, ctx->op);
  }
  scratch_free(a.partials, stream);
  return st;
}

// Stores a value in the output dtype (oar's conversion rules).
template <class V>
__device__ __forceinline__ void store_as(void* out, int32_t dtype, int64_t i, V v) {
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

}  // namespace
}  // namespace oar_cuda
