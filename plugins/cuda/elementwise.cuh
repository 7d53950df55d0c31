// The generic elementwise launcher: out[i] = f(in_0[i'], in_1[i''], ...) for every element of the
// output, where each input is broadcast to the output's shape through its strides.
//
// Contract: run_elementwise<Out, In...>(ctx, stream, f, out, {&in...}) with f a functor
// `Out operator()(In...) const` usable on the device. Two paths:
// - every tensor contiguous with the output's shape: vectorised 16-byte loads/stores when all
//   pointers are aligned, grid-stride loop, 64-bit indices;
// - otherwise a strided plan (strided_plan.h): offsets from the output index, dims coalesced on the
//   host, 32-bit index math with the host splitting plans of 2^31+ elements.
// The output may itself be a strided view (copy_). 0-size outputs launch nothing.
#pragma once

#include <cstdint>
#include <utility>

#include "plugins/cuda/common.h"
#include "plugins/cuda/dtype.cuh"
#include "plugins/cuda/strided_plan.h"

namespace oar_cuda {

constexpr int kEwThreads = 256;

template <class T, int V>
struct alignas(sizeof(T) * V) AlignedVec {
  T v[V];
};

// Elements per thread step so that the widest tensor moves 16 bytes.
template <class Out, class... In>
constexpr int vec_width() {
  size_t widest = sizeof(Out);
  ((widest = sizeof(In) > widest ? sizeof(In) : widest), ...);
  return static_cast<int>(16 / widest);
}

template <int V, class F, class Out, class... VIn>
__device__ __forceinline__ void apply_vec(const F& f, AlignedVec<Out, V>& o, const VIn&... vin) {
#pragma unroll
  for (int j = 0; j < V; ++j) o.v[j] = f(vin.v[j]...);
}

template <class F, class Out, class... In>
__global__ void __launch_bounds__(kEwThreads)
    ew_contiguous_kernel(F f, int64_t n, Out* out, const In*... in) {
  constexpr int V = vec_width<Out, In...>();
  const int64_t nvec = n / V;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t i = tid; i < nvec; i += step) {
    AlignedVec<Out, V> o;
    apply_vec<V>(f, o, reinterpret_cast<const AlignedVec<In, V>*>(in)[i]...);
    reinterpret_cast<AlignedVec<Out, V>*>(out)[i] = o;
  }
  const int64_t tail = nvec * V + tid;  // the last n % V elements, one per thread
  if (tail < n) out[tail] = f(in[tail]...);
}

template <class F, int N, class Out, class... In, size_t... I>
__device__ __forceinline__ void strided_step(const F& f, uint32_t i, const StridedPlan<N>& plan,
                                             Out* out, std::index_sequence<I...>,
                                             const In*... in) {
  int64_t off[N];
  plan.offsets(i, off);
  out[off[0]] = f(in[off[I + 1]]...);
}

template <class F, int N, class Out, class... In>
__global__ void __launch_bounds__(kEwThreads)
    ew_strided_kernel(F f, uint32_t n, StridedPlan<N> plan, Out* out, const In*... in) {
  const uint32_t step = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    strided_step(f, i, plan, out, std::index_sequence_for<In...>{}, in...);
}

// Blocks for `units` thread-steps: enough to cover them, at most a few waves (grid-stride).
inline unsigned ew_blocks(int device, int64_t units) {
  const int64_t need = (units + kEwThreads - 1) / kEwThreads;
  const int64_t cap = static_cast<int64_t>(sm_count(device)) * 16;
  return static_cast<unsigned>(need < 1 ? 1 : (need < cap ? need : cap));
}

template <class T>
inline bool aligned_to(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % sizeof(T) == 0;
}

// `ins` holds the inputs (one unused slot when there are none, e.g. for full).
template <class Out, class... In, class F>
OarStatus run_elementwise(const OarKernelContext* ctx, cudaStream_t stream, const F& f,
                          const OarTensor& out, const OarTensor* const (&ins)[sizeof...(In) + 1]) {
  constexpr int N = static_cast<int>(sizeof...(In)) + 1;
  using Seq = std::index_sequence_for<In...>;
  if (out.numel == 0) return OAR_STATUS_OK;
  const OarTensor* tensors[N];
  tensors[0] = &out;
  for (int t = 1; t < N; ++t) tensors[t] = ins[t - 1];
  HostPlan plan;
  if (!make_plan(ctx, tensors, N, &plan)) return OAR_STATUS_ERROR;

  if (plan.contiguous()) {
    constexpr int V = vec_width<Out, In...>();
    const bool aligned = [&]<size_t... I>(std::index_sequence<I...>) {
      return aligned_to<AlignedVec<Out, V>>(out.data) &&
             (aligned_to<AlignedVec<In, V>>(ins[I]->data) && ...);
    }(Seq{});
    if (aligned) {
      const int64_t n = plan.size[0];
      [&]<size_t... I>(std::index_sequence<I...>) {
        ew_contiguous_kernel<<<ew_blocks(ctx->device_id, n / V > 0 ? n / V : 1), kEwThreads, 0,
                               stream>>>(f, n, static_cast<Out*>(out.data),
                                         static_cast<const In*>(ins[I]->data)...);
      }(Seq{});
      return check_launch(ctx, ctx->op);
    }
  }
  // Strided (or misaligned) path.
  const int64_t elem_size[N] = {static_cast<int64_t>(sizeof(Out)),
                                static_cast<int64_t>(sizeof(In))...};
  int64_t base[kMaxTensors] = {};
  return split_plan(plan, elem_size, base, [&](const HostPlan& p, const int64_t* offs) {
    const StridedPlan<N> kp = device_plan<N>(p);
    const uint32_t n = static_cast<uint32_t>(p.numel());
    [&]<size_t... I>(std::index_sequence<I...>) {
      ew_strided_kernel<<<ew_blocks(ctx->device_id, n), kEwThreads, 0, stream>>>(
          f, n, kp, reinterpret_cast<Out*>(static_cast<char*>(out.data) + offs[0]),
          reinterpret_cast<const In*>(static_cast<const char*>(ins[I]->data) + offs[I + 1])...);
    }(Seq{});
    return check_launch(ctx, ctx->op);
  });
}

}  // namespace oar_cuda
