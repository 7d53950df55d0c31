// Same-dtype copies whose source and destination are contiguous along different dims (making a
// transposed or permuted view contiguous, or writing into one): a tiled transpose through shared
// memory, so that both the reads and the writes are coalesced. The generic strided path would
// read (or write) one element per 32-byte sector here, at about a quarter of the bandwidth.
//
// Contract: try_transpose_copy copies x (broadcast to out's shape) into out when the layout is
// such a transpose: after coalescing, out has stride 1 on some dim p and x on another dim q, both
// at least 16 long. It returns false (nothing launched, *status untouched) for any other layout
// so the caller falls back to the elementwise path. Elements are moved as raw bits.
#include "plugins/cuda/strided_plan.h"
#include "plugins/cuda/transpose.h"

namespace oar_cuda {
namespace {

constexpr int kTile = 32, kRows = 8;

struct TransposeArgs {
  int64_t A, B;             // sizes of dim p (out-contiguous) and dim q (in-contiguous)
  int64_t out_p, out_q;     // out strides along p (1) and q
  int64_t in_p, in_q;       // in strides along p and q (1)
  StridedPlan<2> batch;     // the other dims: batch index -> offsets in out (0) and in (1)
  uint32_t nbatch;
};

template <class E>
__global__ void __launch_bounds__(kTile * kRows)
    transpose_kernel(const E* in, E* out, TransposeArgs a) {
  __shared__ E tile[kTile][kTile + 1];  // +1: column reads hit distinct banks
  const int64_t p0 = static_cast<int64_t>(blockIdx.x) * kTile;
  const int64_t q0 = static_cast<int64_t>(blockIdx.y) * kTile;
  const int tx = threadIdx.x;
  for (uint32_t b = blockIdx.z; b < a.nbatch; b += gridDim.z) {
    int64_t off[2];
    a.batch.offsets(b, off);
    // Read along q (x's contiguous dim): consecutive lanes, consecutive addresses.
    for (int j = threadIdx.y; j < kTile; j += kRows) {
      const int64_t p = p0 + j, q = q0 + tx;
      if (p < a.A && q < a.B) tile[j][tx] = in[off[1] + p * a.in_p + q * a.in_q];
    }
    __syncthreads();
    // Write along p (out's contiguous dim).
    for (int j = threadIdx.y; j < kTile; j += kRows) {
      const int64_t p = p0 + tx, q = q0 + j;
      if (p < a.A && q < a.B) out[off[0] + p * a.out_p + q * a.out_q] = tile[tx][j];
    }
    __syncthreads();
  }
}

}  // namespace

bool try_transpose_copy(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& x,
                        const OarTensor& out, OarStatus* status) {
  const size_t es = dtype_size(out.dtype);
  if (x.dtype != out.dtype || es == 0 || out.numel == 0) return false;
  const OarTensor* tensors[2] = {&out, &x};
  HostPlan plan;
  char scratch[8];
  OarKernelContext quiet = *ctx;  // a plan failure is reported by the fallback path, not here
  quiet.error = scratch;
  quiet.error_size = sizeof scratch;
  if (!make_plan(&quiet, tensors, 2, &plan) || plan.ndim < 2) return false;
  int p = -1, q = -1;
  for (int d = 0; d < plan.ndim; ++d) {
    if (p < 0 && plan.stride[0][d] == 1) p = d;
    if (q < 0 && plan.stride[1][d] == 1) q = d;
  }
  if (p < 0 || q < 0 || p == q || plan.size[p] < 16 || plan.size[q] < 16) return false;
  const int64_t tiles_q = (plan.size[q] + kTile - 1) / kTile;
  if (tiles_q > 65535 || plan.size[p] > kMaxChunk) return false;

  TransposeArgs a;
  a.A = plan.size[p];
  a.B = plan.size[q];
  a.out_p = plan.stride[0][p];
  a.out_q = plan.stride[0][q];
  a.in_p = plan.stride[1][p];
  a.in_q = plan.stride[1][q];
  HostPlan rest;
  rest.ntensors = 2;
  rest.ndim = 0;
  for (int d = 0; d < plan.ndim; ++d) {
    if (d == p || d == q) continue;
    rest.size[rest.ndim] = plan.size[d];
    rest.stride[0][rest.ndim] = plan.stride[0][d];
    rest.stride[1][rest.ndim] = plan.stride[1][d];
    ++rest.ndim;
  }
  if (rest.ndim == 0) {
    rest.ndim = 1;
    rest.size[0] = 1;
  }
  if (rest.numel() > kMaxChunk) return false;
  a.batch = device_plan<2>(rest);
  a.nbatch = static_cast<uint32_t>(rest.numel());

  const dim3 block(kTile, kRows);
  const dim3 grid(static_cast<unsigned>((a.A + kTile - 1) / kTile), static_cast<unsigned>(tiles_q),
                  static_cast<unsigned>(a.nbatch < 65535 ? a.nbatch : 65535));
  auto launch = [&](auto bits) {  // moved as raw bits of the element's size
    using E = decltype(bits);
    transpose_kernel<<<grid, block, 0, stream>>>(static_cast<const E*>(x.data),
                                                 static_cast<E*>(out.data), a);
  };
  switch (es) {
    case 1: launch(uint8_t{}); break;
    case 2: launch(uint16_t{}); break;
    case 4: launch(uint32_t{}); break;
    default: launch(uint64_t{}); break;
  }
  *status = check_launch(ctx, ctx->op);
  return true;
}

}  // namespace oar_cuda
