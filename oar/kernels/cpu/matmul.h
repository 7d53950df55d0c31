// Matrix multiplication kernels: float32 through oneDNN's sgemm, float64 and integers through a
// cache-blocked kernel of our own, float16/bfloat16 by way of float32.
#pragma once
#include <cstdint>

#include "oar/core/tensor.h"

namespace oar::kernels {

// out = op(x) @ op(y) with NumPy's matmul rules: a 1-D x acts as [1, K] and a 1-D y as [K, 1]
// (that dim is then absent from out, and the transpose flag of a 1-D operand is ignored);
// batch dims (all but the last two) broadcast. op() transposes the last two dims when the flag
// is set. x and y share a dtype; out has the shape infer_meta::matmul gives. Strided inputs are
// read in place when their last two dims are row- or column-contiguous.
void matmul(const Tensor& x, const Tensor& y, bool transpose_x, bool transpose_y,
            const Tensor& out);

// out += op(x) @ op(y) for float32 (out contiguous, of the shape matmul gives): the GEMM
// accumulates onto what out holds (a bias written there first, for linear layers).
void matmul_accumulate_f32(const Tensor& x, const Tensor& y, bool transpose_x, bool transpose_y,
                           const Tensor& out);

// Row-major float32 GEMM: C[M, N] = alpha * op(A) @ op(B) + beta * C, op(A) being M x K.
// Small problems run inline; others go to oneDNN (threaded unless called inside a parallel region).
void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
           const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C,
           int64_t ldc);

// Row-major float64 GEMM with the blocked kernel: C[M, N] = op(A) @ op(B) (+ C when accumulate).
void dgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const double* A,
           int64_t lda, const double* B, int64_t ldb, double* C, int64_t ldc,
           bool accumulate = false);

}  // namespace oar::kernels
