// cuBLAS for conv.cu and attention.cu (host only, conv_blas.cc): one cublasHandle_t per
// (device, stream), created on first use and set to that stream.
//
// Contract: gemm() computes, column-major as cuBLAS, C_i = alpha op(A_i) op(B_i) + beta C_i for
// i < batch (A_i = A + i * sa elements, likewise B and C), A and B of dtype ab_dtype (a float
// OarDType), C of c_dtype (ab_dtype, or float32 when ab_dtype is a 16-bit float). Accumulation
// is float for float16/bfloat16/float32 (FP32; TF32 only with OAR_CUDA_ALLOW_TF32=1) and double
// for float64. m, n or batch == 0 does nothing; k must be >= 1. Work goes on `stream`.
#pragma once

#include <cstdint>

#include "plugins/cuda/common.h"

namespace oar_cuda {

struct GemmArgs {
  bool ta = false, tb = false;  // op(A) = A^T, op(B) = B^T
  int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  int64_t lda = 1, sa = 0;
  const void* b = nullptr;
  int64_t ldb = 1, sb = 0;
  void* c = nullptr;
  int64_t ldc = 1, sc = 0;
  int64_t batch = 1;
  double alpha = 1.0, beta = 0.0;
  int32_t ab_dtype = OAR_FLOAT32, c_dtype = OAR_FLOAT32;
};

// conv_blas.cc
OarStatus gemm(const OarKernelContext* ctx, cudaStream_t stream, const GemmArgs& g);

}  // namespace oar_cuda
