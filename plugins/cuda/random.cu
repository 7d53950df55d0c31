// Random draws on the GPU with the bits of oar's host kernels: random_uniform, random_normal,
// random_randint, random_bernoulli, random_dropout_mask.
//
// Contract (plugins/custom_cpu/random.cc is the reference, oar/kernels/cpu/creation.cc and
// nn_common.cc the semantics): seed and offset are INT attributes (the uint64 bits of the
// generator's seed and of the counter the draw reserved); out is contiguous and element i uses
// the Philox block (offset + i, 0, seed) (the dropout mask: word i % 4 of block offset + i / 4),
// turned into a value by plugins/common/philox.h, the same header oar's host kernels use, so the
// numbers are bit-identical to the host's (the transforms use only IEEE-exact operations and
// explicit fused multiply-adds, which nvcc's --fmad cannot change).
// - random_uniform: low, high (FLOAT); out float16/bfloat16/float32/float64.
// - random_normal: mean, std (FLOAT); float dtypes.
// - random_randint: low, high (INT, low < high); out int8/uint8/int16/int32/int64.
// - random_bernoulli: inputs[0] = p (out's shape and dtype, any view: a strided one is compacted
//   into scratch first); 1 where a uniform double is below p (in p's compute type), else 0.
// - random_dropout_mask: p, keep_value (FLOAT): keep_value with probability 1 - p, else 0.
// One thread per element (per block of four for the mask), grid-stride, 64-bit indices.
#include <cstdint>
#include <type_traits>

#include "plugins/common/philox.h"
#include "plugins/cuda/common.h"
#include "plugins/cuda/compact.h"
#include "plugins/cuda/dtype.cuh"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

constexpr int kThreads = 256;

using RandomFloatTypes = Types<float, double, half, bf16>;
using RandomIntTypes = Types<int32_t, int64_t, int8_t, uint8_t, int16_t>;

unsigned random_blocks(int device, int64_t units) {
  const int64_t need = (units + kThreads - 1) / kThreads;
  const int64_t cap = static_cast<int64_t>(sm_count(device)) * 16;
  return static_cast<unsigned>(need < 1 ? 1 : (need < cap ? need : cap));
}

// A double as element type T, with oar's rounding: through float for the 16-bit floats, with the
// bit-exact conversions of philox.h (as oar/core/half.h, NaN included).
template <class T>
__host__ __device__ __forceinline__ T to_element(double v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(v);
  } else if constexpr (std::is_same_v<T, half>) {
    __half_raw r;
    r.x = oar_rng::float_to_half_bits(static_cast<float>(v));
    return half(r);
  } else {
    __nv_bfloat16_raw r;
    r.x = oar_rng::float_to_bf16_bits(static_cast<float>(v));
    return bf16(r);
  }
}

struct UniformFn {
  double low, high;
  __device__ double operator()(const oar_rng::Block& r) const { return oar_rng::uniform_value(low, high, r); }
};

struct NormalFn {
  double mean, std;
  __device__ double operator()(const oar_rng::Block& r) const { return oar_rng::normal_value(mean, std, r); }
};

template <class T, class F>
__global__ void fill_float_kernel(T* __restrict__ out, int64_t n, uint64_t seed, uint64_t offset, F f) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = to_element<T>(f(oar_rng::philox4x32(offset + static_cast<uint64_t>(i), 0, seed)));
}

template <class T>
__global__ void randint_kernel(T* __restrict__ out, int64_t n, int64_t low, uint64_t range, uint64_t seed,
                               uint64_t offset) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = static_cast<T>(
        oar_rng::randint_value(low, range, oar_rng::philox4x32(offset + static_cast<uint64_t>(i), 0, seed)));
}

template <class T>
__global__ void bernoulli_kernel(T* __restrict__ out, const T* __restrict__ p, int64_t n, uint64_t seed,
                                 uint64_t offset) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const double pv = static_cast<double>(to_compute(p[i]));  // float for the 16-bit floats, as the host
    const bool one = oar_rng::bernoulli_value(pv, oar_rng::philox4x32(offset + static_cast<uint64_t>(i), 0, seed));
    out[i] = to_element<T>(one ? 1.0 : 0.0);
  }
}

// One thread per Philox block: elements 4b .. 4b+3.
template <class T>
__global__ void dropout_mask_kernel(T* __restrict__ out, int64_t n, double p, T keep, T zero, uint64_t seed,
                                    uint64_t offset) {
  const int64_t blocks = (n + 3) / 4;
  for (int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; b < blocks;
       b += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const oar_rng::Block r = oar_rng::philox4x32(offset + static_cast<uint64_t>(b), 0, seed);
    const int64_t base = b * 4;
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (base + j < n) out[base + j] = oar_rng::dropout_drops(r.w[j], p) ? zero : keep;
  }
}

// seed / offset: required INT attributes, as uint64 bits.
bool bits_attr(const OarKernelContext* ctx, const char* name, uint64_t* v) {
  const OarAttr* a = oar_find_attr(ctx, name);
  if (!a || (a->kind != OAR_ATTR_INT && a->kind != OAR_ATTR_SCALAR_INT)) {
    fail(ctx, "%s on gpu: int attribute '%s' is missing", ctx->op, name);
    return false;
  }
  *v = static_cast<uint64_t>(a->i);
  return true;
}

bool int_attr(const OarKernelContext* ctx, const char* name, int64_t* v) {
  const OarAttr* a = oar_find_attr(ctx, name);
  if (!a || (a->kind != OAR_ATTR_INT && a->kind != OAR_ATTR_SCALAR_INT)) {
    fail(ctx, "%s on gpu: int attribute '%s' is missing", ctx->op, name);
    return false;
  }
  *v = a->i;
  return true;
}

double float_attr(const OarKernelContext* ctx, const char* name, double fallback) {
  double v = fallback;
  return attr_scalar(ctx, name, &v) ? v : fallback;
}

// The checks every draw starts with: one contiguous output (and `inputs` inputs), seed, offset.
OarStatus begin_draw(const OarKernelContext* ctx, int inputs, uint64_t* seed, uint64_t* offset) {
  if (!expect_io(ctx, inputs, 1)) return OAR_STATUS_ERROR;
  if (!is_contiguous(ctx->outputs[0])) return fail(ctx, "%s on gpu: out must be contiguous", ctx->op);
  if (!bits_attr(ctx, "seed", seed) || !bits_attr(ctx, "offset", offset)) return OAR_STATUS_ERROR;
  return OAR_STATUS_OK;
}

template <class F>
OarStatus fill_float(const OarKernelContext* ctx, uint64_t seed, uint64_t offset, const F& f) {
  const OarTensor& out = ctx->outputs[0];
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const unsigned blocks = random_blocks(ctx->device_id, out.numel);
  const bool found = dispatch(RandomFloatTypes{}, out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill_float_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<T*>(out.data), out.numel, seed, offset, f);
  });
  if (!found) return unsupported(ctx, out.dtype);
  return check_launch(ctx, ctx->op);
}

}  // namespace

OarStatus k_random_uniform(const OarKernelContext* ctx) {
  uint64_t seed, offset;
  if (OarStatus st = begin_draw(ctx, 0, &seed, &offset)) return st;
  return fill_float(ctx, seed, offset, UniformFn{float_attr(ctx, "low", 0.0), float_attr(ctx, "high", 1.0)});
}

OarStatus k_random_normal(const OarKernelContext* ctx) {
  uint64_t seed, offset;
  if (OarStatus st = begin_draw(ctx, 0, &seed, &offset)) return st;
  return fill_float(ctx, seed, offset, NormalFn{float_attr(ctx, "mean", 0.0), float_attr(ctx, "std", 1.0)});
}

OarStatus k_random_randint(const OarKernelContext* ctx) {
  uint64_t seed, offset;
  if (OarStatus st = begin_draw(ctx, 0, &seed, &offset)) return st;
  int64_t low, high;
  if (!int_attr(ctx, "low", &low) || !int_attr(ctx, "high", &high)) return OAR_STATUS_ERROR;
  if (low >= high)
    return fail(ctx, "random_randint on gpu: low (%lld) must be less than high (%lld)", static_cast<long long>(low),
                static_cast<long long>(high));
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  const OarTensor& out = ctx->outputs[0];
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const unsigned blocks = random_blocks(ctx->device_id, out.numel);
  const bool found = dispatch(RandomIntTypes{}, out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    randint_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<T*>(out.data), out.numel, low, range, seed,
                                                      offset);
  });
  if (!found) return unsupported(ctx, out.dtype);
  return check_launch(ctx, ctx->op);
}

OarStatus k_random_bernoulli(const OarKernelContext* ctx) {
  uint64_t seed, offset;
  if (OarStatus st = begin_draw(ctx, 1, &seed, &offset)) return st;
  const OarTensor& out = ctx->outputs[0];
  OarTensor p = ctx->inputs[0];
  if (p.dtype != out.dtype)
    return fail(ctx, "random_bernoulli on gpu: out has dtype %s, p %s", dtype_name(out.dtype), dtype_name(p.dtype));
  if (p.ndim != out.ndim || p.numel != out.numel)
    return fail(ctx, "random_bernoulli on gpu: out must have p's shape");
  for (int32_t d = 0; d < p.ndim; ++d)
    if (p.shape[d] != out.shape[d]) return fail(ctx, "random_bernoulli on gpu: out must have p's shape");
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  CompactView compact;  // a strided p is copied to contiguous scratch (freed after the launch)
  if (!is_contiguous(p))
    if (OarStatus st = compact.make(ctx, stream, ctx->inputs[0], &p)) return st;
  const unsigned blocks = random_blocks(ctx->device_id, out.numel);
  const bool found = dispatch(RandomFloatTypes{}, out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    bernoulli_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<T*>(out.data), static_cast<const T*>(p.data),
                                                        out.numel, seed, offset);
  });
  if (!found) return unsupported(ctx, out.dtype);
  return check_launch(ctx, ctx->op);
}

OarStatus k_random_dropout_mask(const OarKernelContext* ctx) {
  uint64_t seed, offset;
  if (OarStatus st = begin_draw(ctx, 0, &seed, &offset)) return st;
  const double prob = float_attr(ctx, "p", 0.5), keep_value = float_attr(ctx, "keep_value", 1.0);
  const OarTensor& out = ctx->outputs[0];
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const unsigned blocks = random_blocks(ctx->device_id, (out.numel + 3) / 4);
  const bool found = dispatch(RandomFloatTypes{}, out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dropout_mask_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<T*>(out.data), out.numel, prob,
                                                           to_element<T>(keep_value), to_element<T>(0.0), seed,
                                                           offset);
  });
  if (!found) return unsupported(ctx, out.dtype);
  return check_launch(ctx, ctx->op);
}

}  // namespace oar_cuda
