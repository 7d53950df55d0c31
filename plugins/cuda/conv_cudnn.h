// Convolution through cuDNN's legacy API (host only, conv_cudnn.cc), the fast path of conv.cu's
// three kernels when cuDNN could be loaded (cudnn_loader.h). No cuDNN type appears here, so
// conv.cu never includes cuDNN's headers.
//
// Contract: each cudnn_conv_* either enqueues the whole operation on `stream` and returns true,
// or returns false, in which case the caller computes the result itself (im2col + GEMM): the
// output may have been partly written, never anything else; no error is left in ctx or in CUDA's
// last-error slot. Operands are packed and 16-byte aligned: x and y (out_grad) in the layout of
// `cl` (channel-first [N, C, S...] or channel-last [N, S..., C]), the filter [M, C/G, K...] when
// channel-first and [M, K..., C/G] when channel-last (cuDNN's NHWC filter format); the caller
// transposes oar's [M, C/G, K...] weight for the latter. Covered: 1 to 3 spatial dims (1-D as
// 2-D with a unit height), groups, strides, dilations, padding `pad` before each dim when the
// output size is the one that padding on both sides gives (otherwise false); float32, float64,
// float16, bfloat16. Per shape, the algorithm is chosen once (cuDNN's heuristics, or timing runs
// with OAR_CUDA_CUDNN_BENCHMARK=1) and cached; a shape whose cuDNN call fails moves on to the next
// candidate next time and to im2col for good once none is left. Algorithms are deterministic
// unless OAR_CUDA_CUDNN_NONDETERMINISTIC=1 admits atomics-based ones too; float32 uses no TF32
// unless OAR_CUDA_ALLOW_TF32=1 (as matmul); 16-bit types use tensor cores and accumulate in
// float; float64 in double.
#pragma once

#include <cstdint>

#include "plugins/cuda/common.h"

namespace oar_cuda {

struct CudnnConv {
  int nd = 0;  // spatial dims, 1 to 3
  int64_t N = 0, C = 0, M = 0, G = 1;
  int64_t in_sp[3] = {}, out_sp[3] = {}, ks[3] = {}, stride[3] = {}, pad[3] = {}, dil[3] = {};
  bool cl = false;  // channel-last data
  int32_t dtype = OAR_FLOAT32;
};

// cuDNN is loaded and not disabled (OAR_CUDA_DISABLE_CUDNN=1 forces im2col).
bool cudnn_conv_available();

// y = conv(x, w) (+ y's previous contents when accumulate: conv.cu's bias, filled in first).
bool cudnn_conv_forward(const OarKernelContext* ctx, cudaStream_t stream, const CudnnConv& p,
                        const void* x, const void* w, void* y, bool accumulate);
// dx = the gradient of conv(x, w) with respect to x, from dy.
bool cudnn_conv_backward_data(const OarKernelContext* ctx, cudaStream_t stream,
                              const CudnnConv& p, const void* dy, const void* w, void* dx);
// dw = the gradient with respect to w, from x and dy (overwritten, in the filter layout above).
bool cudnn_conv_backward_filter(const OarKernelContext* ctx, cudaStream_t stream,
                                const CudnnConv& p, const void* x, const void* dy, void* dw);

}  // namespace oar_cuda
