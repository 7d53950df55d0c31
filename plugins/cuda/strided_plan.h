// How an elementwise kernel walks strided tensors: the output's shape with, per tensor, the
// stride of each dim (0 where an input is broadcast), dims innermost first and coalesced, plus
// division by the dim sizes done with multiply-high (32-bit integer division is slow on GPUs).
//
// Contract: make_plan describes tensor 0 (the output, any strides) and the inputs broadcast to its
// shape (inputs may have fewer dims: aligned right); it fails on shapes that do not broadcast or
// more than kMaxDims dims left after coalescing. Device-side index math is 32-bit: the launcher
// splits plans of 2^31 elements or more into chunks (split_plan).
#pragma once

#include <algorithm>
#include <cstdint>

#include "plugins/cuda/common.h"

#ifdef __CUDA_ARCH__  // device pass only: the host compiler warns about "#pragma unroll"
#define OAR_UNROLL_DEVICE _Pragma("unroll")
#else
#define OAR_UNROLL_DEVICE
#endif
#ifdef __CUDACC__
#define OAR_HD __host__ __device__ __forceinline__
#define OAR_UNROLL OAR_UNROLL_DEVICE
#else
#define OAR_HD inline
#define OAR_UNROLL
#endif

namespace oar_cuda {

constexpr int kMaxTensors = 4;  // output + up to 3 inputs (where)
constexpr int64_t kMaxChunk = (int64_t{1} << 31) - 1;

// n / d and n % d for 0 <= n < 2^31, 1 <= d < 2^31: q = (umulhi(n, m) + n) >> s, with s the
// smallest shift where 2^s >= d and m = floor(2^32 (2^s - d) / d) + 1 (round-up magic number).
struct FastDivmod {
  uint32_t d = 1, m = 1, s = 0;
  FastDivmod() = default;
  explicit FastDivmod(uint32_t divisor) : d(divisor) {
    s = 0;
    while ((uint64_t{1} << s) < d) ++s;
    m = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << s) - d)) / d + 1);
  }
  OAR_HD uint32_t div(uint32_t n) const {
#ifdef __CUDA_ARCH__
    const uint32_t hi = __umulhi(n, m);
#else
    const uint32_t hi = static_cast<uint32_t>((uint64_t{n} * m) >> 32);
#endif
    return (hi + n) >> s;
  }
};

// Host-side description, built by make_plan.
struct HostPlan {
  int ndim = 0;  // >= 1 after make_plan
  int ntensors = 0;
  int64_t size[kMaxDims] = {};
  int64_t stride[kMaxTensors][kMaxDims] = {};
  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= size[d];
    return n;
  }
  // One dim, every tensor contiguous: the vectorised path applies.
  bool contiguous() const {
    if (ndim != 1) return false;
    for (int t = 0; t < ntensors; ++t)
      if (stride[t][0] != 1 && size[0] != 1) return false;
    return true;
  }
};

// Fills `plan` for tensors[0] (output) and tensors[1..n) broadcast to it; false and a message in
// ctx on failure.
bool make_plan(const OarKernelContext* ctx, const OarTensor* const* tensors, int ntensors,
               HostPlan* plan);

// Kernel-side plan for N tensors: a by-value kernel argument (a few hundred bytes).
template <int N>
struct StridedPlan {
  int32_t ndim;
  FastDivmod div[kMaxDims];
  int64_t stride[N][kMaxDims];

  // Offsets (elements) of linear output index i in every tensor.
  OAR_HD void offsets(uint32_t i, int64_t (&off)[N]) const {
OAR_UNROLL
    for (int t = 0; t < N; ++t) off[t] = 0;
OAR_UNROLL
    for (int d = 0; d < kMaxDims; ++d) {
      if (d == ndim - 1) {  // outermost dim: what is left of i is its coordinate
OAR_UNROLL
        for (int t = 0; t < N; ++t) off[t] += static_cast<int64_t>(i) * stride[t][d];
        break;
      }
      const uint32_t q = div[d].div(i);
      const uint32_t r = i - q * div[d].d;
OAR_UNROLL
      for (int t = 0; t < N; ++t) off[t] += static_cast<int64_t>(r) * stride[t][d];
      i = q;
    }
  }
};

template <int N>
StridedPlan<N> device_plan(const HostPlan& p) {
  StridedPlan<N> k;
  k.ndim = p.ndim;
  for (int d = 0; d < kMaxDims; ++d) {
    k.div[d] = FastDivmod(d < p.ndim ? static_cast<uint32_t>(p.size[d]) : 1u);
    for (int t = 0; t < N; ++t) k.stride[t][d] = d < p.ndim ? p.stride[t][d] : 0;
  }
  return k;
}

// Calls launch(sub_plan, byte_offsets) for pieces of `plan` with fewer than 2^31 elements each;
// byte_offsets[t] is where tensor t's piece starts relative to its base pointer. Returns the
// first non-OK status.
template <class F>
OarStatus split_plan(const HostPlan& plan, const int64_t* elem_size, int64_t* base, F&& launch) {
  if (plan.numel() <= kMaxChunk) return launch(plan, base);
  const int outer = plan.ndim - 1;
  const int64_t inner = plan.numel() / plan.size[outer];
  HostPlan sub = plan;
  int64_t step = 1;
  if (inner <= kMaxChunk) {
    step = kMaxChunk / inner;
  } else {
    sub.ndim = outer;  // one index of the outer dim at a time, recursing into the rest
  }
  for (int64_t start = 0; start < plan.size[outer]; start += step) {
    int64_t offs[kMaxTensors];
    for (int t = 0; t < plan.ntensors; ++t)
      offs[t] = base[t] + start * plan.stride[t][outer] * elem_size[t];
    if (inner <= kMaxChunk) sub.size[outer] = std::min(step, plan.size[outer] - start);
    const OarStatus st = inner <= kMaxChunk ? launch(sub, offs)
                                            : split_plan(sub, elem_size, offs, launch);
    if (st != OAR_STATUS_OK) return st;
  }
  return OAR_STATUS_OK;
}

}  // namespace oar_cuda
