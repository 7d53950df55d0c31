// Helpers of index.cu and scan.cu: a strided walk that hands a device functor the offsets of up to
// four operands for every element of a shape, element types by byte size, and accumulating
// atomics.
//
// Contract: run_walk<N>(ctx, stream, ndim, shape, {strides_0, ..., strides_{N-1}}, f) calls
// f(const int64_t* off) on the device once per element of `shape` (any order, in parallel), with
// off[t] = sum over dims of coordinate * strides_t[dim] (elements; strides may be 0 or negative).
// Dims are coalesced on the host (make_plan), at most kMaxDims may remain; walks of 2^31 or more
// elements are split into several launches. A 0-size shape launches nothing.
#pragma once

#include <cstdint>

#include "plugins/cuda/common.h"
#include "plugins/cuda/dtype.cuh"
#include "plugins/cuda/elementwise.cuh"
#include "plugins/cuda/strided_plan.h"

namespace oar_cuda {
namespace {

template <int N>
struct WalkBase {
  int64_t v[N];
};

template <int N, class F>
__global__ void __launch_bounds__(kEwThreads)
    walk_kernel(F f, uint32_t n, StridedPlan<N> plan, WalkBase<N> base) {
  const uint32_t step = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[N];
    plan.offsets(i, off);
#pragma unroll
    for (int t = 0; t < N; ++t) off[t] += base.v[t];
    f(static_cast<const int64_t*>(off));
  }
}

template <int N, class F>
OarStatus run_walk(const OarKernelContext* ctx, cudaStream_t stream, int ndim,
                   const int64_t* shape, const int64_t* const (&strides)[N], const F& f) {
  static_assert(N >= 1 && N <= kMaxTensors, "run_walk takes 1 to 4 operands");
  int64_t numel = 1;
  for (int d = 0; d < ndim; ++d) numel *= shape[d];
  if (numel == 0) return OAR_STATUS_OK;
  OarTensor t[N];
  const OarTensor* ptrs[N];
  for (int i = 0; i < N; ++i) {
    t[i] = OarTensor{nullptr, OAR_FLOAT32, ndim, shape, strides[i], numel};
    ptrs[i] = &t[i];
  }
  HostPlan plan;
  if (!make_plan(ctx, ptrs, N, &plan)) return OAR_STATUS_ERROR;
  int64_t elem[N];
  for (int i = 0; i < N; ++i) elem[i] = 1;  // split_plan's offsets come back in elements
  int64_t base[kMaxTensors] = {};
  return split_plan(plan, elem, base, [&](const HostPlan& p, const int64_t* offs) {
    WalkBase<N> b;
    for (int i = 0; i < N; ++i) b.v[i] = offs[i];
    const uint32_t n = static_cast<uint32_t>(p.numel());
    walk_kernel<N><<<ew_blocks(ctx->device_id, n), kEwThreads, 0, stream>>>(
        f, n, device_plan<N>(p), b);
    return check_launch(ctx, ctx->op);
  });
}

// Row-major strides of a contiguous tensor of `shape`.
inline void contiguous_strides(int ndim, const int64_t* shape, int64_t* strides) {
  int64_t s = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    strides[d] = s;
    s *= shape[d];
  }
}

// An unsigned type of each element size: ops that only move elements work for every dtype.
template <class F>
bool dispatch_bytes(int32_t dtype, F&& f) {
  switch (dtype_size(dtype)) {
    case 1: f(Tag<uint8_t>{}); return true;
    case 2: f(Tag<uint16_t>{}); return true;
    case 4: f(Tag<uint32_t>{}); return true;
    case 8: f(Tag<unsigned long long>{}); return true;
    default: return false;
  }
}

// *p += v on the device, atomically: wrapping for the integers, or for bool; floats add in
// their own type (16-bit floats round at every add).
template <class T>
__device__ __forceinline__ void atomic_accumulate(T* p, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    if (v) *p = true;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else {
    atomicAdd(p, v);  // int32, float, double, __half (sm_70+), __nv_bfloat16 (sm_80+)
  }
}

// An index value wrapped into [0, n), or -1 when outside [-n, n).
__device__ __forceinline__ int64_t wrap_index(int64_t v, int64_t n) {
  return v < -n || v >= n ? -1 : (v < 0 ? v + n : v);
}

}  // namespace
}  // namespace oar_cuda
