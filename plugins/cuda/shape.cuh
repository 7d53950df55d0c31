// Helpers shared by shape.cu, norm.cu and pool.cu: N-d index decomposition for kernels that walk
// a contiguous output and read strided inputs, a contiguous copy of a strided input in scratch
// memory, group (warp or block) reductions in double, and launch sizing.
//
// Contract: IndexSpace splits a linear index of a row-major shape (up to kNdMax dims) into
// coordinates; it uses 32-bit multiply-high division when the shape has fewer than 2^31 elements
// and 64-bit division otherwise. ContiguousInput holds a tensor in row-major order: the input
// itself when it already is, else a copy in stream-ordered scratch memory made by the assign
// kernel and freed (stream-ordered) when the holder dies, after the kernels that read it were
// enqueued.
#pragma once

#include <cstdint>

#include "plugins/cuda/common.h"
#include "plugins/cuda/dtype.cuh"
#include "plugins/cuda/elementwise.cuh"
#include "plugins/cuda/kernels.h"
#include "plugins/cuda/strided_plan.h"

namespace oar_cuda {

constexpr int kNdMax = 16;  // dims the shape kernels take

// A divisor for linear indices: multiply-high when `small` (index and divisor < 2^31).
struct Divider {
  int64_t d = 1;
  FastDivmod f;
  Divider() = default;
  explicit Divider(int64_t divisor)
      : d(divisor > 0 ? divisor : 1),
        f(static_cast<uint32_t>(divisor > 0 && divisor <= kMaxChunk ? divisor : 1)) {}
  OAR_HD int64_t div(int64_t n, bool small) const {
    return small ? static_cast<int64_t>(f.div(static_cast<uint32_t>(n))) : n / d;
  }
};

// Coordinates of linear indices over a row-major shape.
struct IndexSpace {
  int32_t nd = 0;
  bool small = true;
  Divider size[kNdMax];

  // false when the shape has more than kNdMax dims.
  bool init(const int64_t* shape, int n) {
    if (n > kNdMax) return false;
    nd = n;
    int64_t total = 1;
    for (int d = 0; d < n; ++d) {
      size[d] = Divider(shape[d]);
      total *= shape[d];
    }
    small = total <= kMaxChunk;
    return true;
  }
  // coord[d] for d < nd, the last dim fastest.
  OAR_HD void coords(int64_t k, int64_t* coord) const {
    for (int d = nd - 1; d >= 0; --d) {
      const int64_t q = size[d].div(k, small);
      coord[d] = k - q * size[d].d;
      k = q;
    }
  }
};

// Blocks of `threads` for a grid-stride loop over n items: enough to cover them, at most a few
// waves.
inline unsigned grid_for(int device, int64_t n, int threads = 256) {
  const int64_t need = (n + threads - 1) / threads;
  const int64_t cap = static_cast<int64_t>(sm_count(device)) * 16;
  return static_cast<unsigned>(need < 1 ? 1 : (need < cap ? need : cap));
}

// Row-major strides of `shape` into `strides`.
inline void contiguous_strides(const int64_t* shape, int n, int64_t* strides) {
  int64_t s = 1;
  for (int d = n - 1; d >= 0; --d) {
    strides[d] = s;
    s *= shape[d];
  }
}

// A tensor in row-major order (see the file comment).
struct ContiguousInput {
  OarTensor t{};
  int64_t strides[64];
  void* scratch = nullptr;
  cudaStream_t stream = nullptr;
  ContiguousInput() = default;
  ContiguousInput(const ContiguousInput&) = delete;
  ContiguousInput& operator=(const ContiguousInput&) = delete;
  ~ContiguousInput() {
    if (scratch) scratch_free(scratch, stream);
  }
  template <class T> const T* data() const { return static_cast<const T*>(t.data); }
};

// Fills `c` with x in row-major order; an absent tensor (ndim -1) stays absent.
inline OarStatus make_contiguous(const OarKernelContext* ctx, cudaStream_t stream,
                                 const OarTensor& x, ContiguousInput* c) {
  c->t = x;
  c->stream = stream;
  if (x.ndim < 0 || x.numel == 0 || is_contiguous(x)) return OAR_STATUS_OK;
  if (x.ndim > 64) return fail(ctx, "%s on gpu: too many dims (%d)", ctx->op, x.ndim);
  const size_t es = dtype_size(x.dtype);
  if (es == 0) return unsupported(ctx, x.dtype);
  cudaError_t err = scratch_alloc(ctx->device_id, &c->scratch, es * x.numel, stream);
  if (err != cudaSuccess) return cuda_fail(ctx, err, "cudaMallocAsync (contiguous copy)");
  contiguous_strides(x.shape, x.ndim, c->strides);
  c->t.data = c->scratch;
  c->t.strides = c->strides;
  OarKernelContext sub = *ctx;
  sub.num_inputs = 1;
  sub.inputs = &x;
  sub.num_outputs = 1;
  sub.outputs = &c->t;
  sub.num_attrs = 0;
  sub.attrs = nullptr;
  sub.stream = reinterpret_cast<OarStream>(stream);
  return k_assign(&sub);
}

// Sum of v over the Lanes threads of a group (threadIdx.x in [0, Lanes)); every lane gets the
// result. Lanes is 32 (a warp) or a multiple of 32 up to 1024 with blockDim.y == 1; `shared`
// holds Lanes / 32 values.
template <int Lanes, class Acc>
__device__ __forceinline__ Acc group_sum(Acc v, Acc* shared) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if constexpr (Lanes > 32) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    __syncthreads();  // shared may still be read from a previous call
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    v = lane < Lanes / 32 ? shared[lane] : Acc(0);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  }
  return v;
}

// The same with max (NaN is passed over: a NaN lane loses to any number).
template <int Lanes, class Acc>
__device__ __forceinline__ Acc group_max(Acc v, Acc* shared) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const Acc w = __shfl_xor_sync(0xffffffffu, v, o);
    v = w > v || v != v ? w : v;
  }
  if constexpr (Lanes > 32) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    __syncthreads();
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    v = shared[lane < Lanes / 32 ? lane : 0];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      const Acc w = __shfl_xor_sync(0xffffffffu, v, o);
      v = w > v || v != v ? w : v;
    }
  }
  return v;
}

}  // namespace oar_cuda
