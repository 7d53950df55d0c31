// softmax_base and log_softmax_base: softmax of x along one axis (oar's softmax, log_softmax and
// cross-entropy composites call them).
//
// Contract: input x of a float dtype, any strided view (up to 8 dims); attr axis (negative
// counts from the end); out contiguous with x's shape and dtype. Accumulation is float (double
// for float64); each row is shifted by its maximum, so large inputs do not overflow exp.
//
// How: one warp per row (the elements along the axis); the row's start comes from its index
// decomposed over the other dims. Three passes over the row: max, sum of exp, write.
#include <cfloat>
#include <cstring>

#include "plugins/cuda/common.h"
#include "plugins/cuda/dtype.cuh"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

struct RowPlan {
  int nd = 0;                  // dims other than the axis
  int64_t shape[kMaxDims];
  int64_t in_stride[kMaxDims];
  int64_t out_stride[kMaxDims];
  int64_t len = 1;             // elements along the axis
  int64_t in_step = 0, out_step = 0;
  int64_t rows = 1;
};

template <class Acc>
__device__ __forceinline__ Acc warp_max(Acc v) {
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

template <class Acc>
__device__ __forceinline__ Acc warp_sum(Acc v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <class T, bool kLog>
__global__ void softmax_rows(const T* __restrict__ x, T* __restrict__ y, RowPlan p) {
  using Acc = compute_t<T>;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= p.rows) return;
  int64_t in = 0, out = 0, r = row;
  for (int d = p.nd - 1; d >= 0; --d) {
    const int64_t i = r % p.shape[d];
    r /= p.shape[d];
    in += i * p.in_stride[d];
    out += i * p.out_stride[d];
  }
  Acc hi = -INFINITY;
  for (int64_t i = lane; i < p.len; i += 32) hi = max(hi, to_compute(x[in + i * p.in_step]));
  hi = warp_max(hi);
  Acc total = 0;
  for (int64_t i = lane; i < p.len; i += 32) total += exp(to_compute(x[in + i * p.in_step]) - hi);
  total = warp_sum(total);
  const Acc log_total = log(total);
  for (int64_t i = lane; i < p.len; i += 32) {
    const Acc v = to_compute(x[in + i * p.in_step]) - hi;
    y[out + i * p.out_step] = convert<T>(kLog ? v - log_total : exp(v) / total);
  }
}

template <bool kLog>
OarStatus softmax_impl(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (x.ndim > kMaxDims + 1) return fail(ctx, "%s on gpu: at most %d dims", ctx->op, kMaxDims + 1);
  if (!is_contiguous(out)) return fail(ctx, "%s on gpu: out must be contiguous", ctx->op);
  int64_t axis = -1;
  for (int32_t i = 0; i < ctx->num_attrs; ++i)
    if (std::strcmp(ctx->attrs[i].name, "axis") == 0 && ctx->attrs[i].kind == OAR_ATTR_INT) axis = ctx->attrs[i].i;
  const int nd = x.ndim;
  if (nd == 0 ? (axis != 0 && axis != -1) : (axis < -nd || axis >= nd))
    return fail(ctx, "%s on gpu: axis %lld is out of range for %d dims", ctx->op,
                static_cast<long long>(axis), nd);
  if (axis < 0) axis += nd == 0 ? 1 : nd;
  RowPlan p;
  int64_t out_strides[kMaxDims + 1];
  for (int d = nd - 1, s = 1; d >= 0; --d) {
    out_strides[d] = s;
    s *= x.shape[d];
  }
  for (int d = 0; d < nd; ++d) {
    if (d == axis) {
      p.len = x.shape[d];
      p.in_step = x.strides[d];
      p.out_step = out_strides[d];
      continue;
    }
    p.shape[p.nd] = x.shape[d];
    p.in_stride[p.nd] = x.strides[d];
    p.out_stride[p.nd] = out_strides[d];
    p.rows *= x.shape[d];
    ++p.nd;
  }
  if (x.numel == 0) return OAR_STATUS_OK;
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  const int warps_per_block = 8;
  const int64_t blocks = (p.rows + warps_per_block - 1) / warps_per_block;
  bool ok = dispatch(FloatTypes{}, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    softmax_rows<T, kLog><<<static_cast<unsigned>(blocks), warps_per_block * 32, 0, stream>>>(
        static_cast<const T*>(x.data), static_cast<T*>(out.data), p);
  });
  if (!ok) return unsupported(ctx, x.dtype);
  return check_launch(ctx, ctx->op);
}

}  // namespace

OarStatus k_softmax(const OarKernelContext* ctx) { return softmax_impl<false>(ctx); }
OarStatus k_log_softmax(const OarKernelContext* ctx) { return softmax_impl<true>(ctx); }

}  // namespace oar_cuda
