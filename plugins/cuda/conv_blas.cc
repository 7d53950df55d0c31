// The cuBLAS GEMM of conv.cu and attention.cu (see conv_blas.h): cublasGemmEx /
// cublasGemmStridedBatchedEx on a handle kept per (device, stream), so two streams never share
// cuBLAS's internal workspace. Handles live until exit (a destroyed stream's handle is not
// reclaimed; a new stream at the same address reuses it, re-bound with cublasSetStream).
#include "plugins/cuda/conv_blas.h"

#include <cublas_v2.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

namespace oar_cuda {
namespace {

struct BlasState {
  std::mutex mu;
  std::map<std::pair<int, cudaStream_t>, cublasHandle_t> handles;
};

BlasState& blas_state() {
  static BlasState* s = new BlasState;  // never destroyed: kernels may run during exit
  return *s;
}

bool allow_tf32() {
  static const bool on = [] {
    const char* v = std::getenv("OAR_CUDA_ALLOW_TF32");
    return v && v[0] == '1';
  }();
  return on;
}

OarStatus blas_fail(const OarKernelContext* ctx, cublasStatus_t s, const char* what) {
  return fail(ctx, "%s on gpu:%d: %s failed: %s (%s)", ctx->op, ctx->device_id, what,
              cublasGetStatusString(s), cublasGetStatusName(s));
}

bool cuda_type(int32_t dtype, cudaDataType_t* t) {
  switch (dtype) {
    case OAR_FLOAT32: *t = CUDA_R_32F; return true;
    case OAR_FLOAT64: *t = CUDA_R_64F; return true;
    case OAR_FLOAT16: *t = CUDA_R_16F; return true;
    case OAR_BFLOAT16: *t = CUDA_R_16BF; return true;
    default: return false;
  }
}

}  // namespace

OarStatus gemm(const OarKernelContext* ctx, cudaStream_t stream, const GemmArgs& g) {
  if (g.m == 0 || g.n == 0 || g.batch == 0) return OAR_STATUS_OK;
  cudaDataType_t ab, c;
  if (!cuda_type(g.ab_dtype, &ab) || !cuda_type(g.c_dtype, &c))
    return fail(ctx, "%s on gpu: no GEMM for dtype %s", ctx->op, dtype_name(g.ab_dtype));
  if (g.k < 1) return fail(ctx, "%s on gpu: GEMM with k = 0", ctx->op);
  const int64_t dims[6] = {g.m, g.n, g.k, g.lda, g.ldb, g.ldc};
  for (int64_t d : dims)
    if (d > INT_MAX) return fail(ctx, "%s on gpu: a GEMM dimension exceeds 2^31 - 1", ctx->op);
  const bool dbl = g.ab_dtype == OAR_FLOAT64;
  const cublasComputeType_t compute =
      dbl ? CUBLAS_COMPUTE_64F
          : (g.ab_dtype == OAR_FLOAT32 && allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                       : CUBLAS_COMPUTE_32F);
  const float alpha32 = static_cast<float>(g.alpha), beta32 = static_cast<float>(g.beta);
  const void* alpha = dbl ? static_cast<const void*>(&g.alpha) : &alpha32;
  const void* beta = dbl ? static_cast<const void*>(&g.beta) : &beta32;
  const cublasOperation_t ta = g.ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = g.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  const size_t ab_size = dtype_size(g.ab_dtype), c_size = dtype_size(g.c_dtype);

  BlasState& st = blas_state();
  std::lock_guard<std::mutex> lock(st.mu);
  cublasHandle_t& h = st.handles[{ctx->device_id, stream}];
  if (!h) {
    const cublasStatus_t s = cublasCreate(&h);
    if (s != CUBLAS_STATUS_SUCCESS) {
      h = nullptr;
      return blas_fail(ctx, s, "cublasCreate");
    }
  }
  cublasStatus_t s = cublasSetStream(h, stream);
  if (s != CUBLAS_STATUS_SUCCESS) return blas_fail(ctx, s, "cublasSetStream");
  const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  const int lda = static_cast<int>(g.lda), ldb = static_cast<int>(g.ldb);
  const int ldc = static_cast<int>(g.ldc);
  if (g.batch == 1) {
    s = cublasGemmEx(h, ta, tb, m, n, k, alpha, g.a, ab, lda, g.b, ab, ldb, beta, g.c, c, ldc,
                     compute, CUBLAS_GEMM_DEFAULT);
    return s == CUBLAS_STATUS_SUCCESS ? OAR_STATUS_OK : blas_fail(ctx, s, "cublasGemmEx");
  }
  // Batches of at most INT_MAX per call.
  for (int64_t start = 0; start < g.batch; start += INT_MAX) {
    const int64_t count = g.batch - start < INT_MAX ? g.batch - start : INT_MAX;
    const char* a = static_cast<const char*>(g.a) + start * g.sa * static_cast<int64_t>(ab_size);
    const char* b = static_cast<const char*>(g.b) + start * g.sb * static_cast<int64_t>(ab_size);
    char* cp = static_cast<char*>(g.c) + start * g.sc * static_cast<int64_t>(c_size);
    s = cublasGemmStridedBatchedEx(h, ta, tb, m, n, k, alpha, a, ab, lda, g.sa, b, ab, ldb, g.sb,
                                   beta, cp, c, ldc, g.sc, static_cast<int>(count), compute,
                                   CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS) return blas_fail(ctx, s, "cublasGemmStridedBatchedEx");
  }
  return OAR_STATUS_OK;
}

}  // namespace oar_cuda
