// Shape rules of the CSR products behind paddle.sparse's matmul family (kernels in
// oar/kernels/cpu/sparse_matmul.h). The sparse operand is (crows [M + 1], cols [nnz],
// values [nnz]); dense operands are 2-D of values' dtype, float32 or float64.
#pragma once
#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// [M, N] for A [M, K] · dense [K, N].
Meta sparse_csr_matmul(const char* op, const Tensor& crows, const Tensor& cols, const Tensor& values,
                       const Tensor& dense);
// [k, N] for Aᵀ · g, g [M, N] (k: A's column count, an attribute: the pattern does not say it).
Meta sparse_csr_matmul_t(const char* op, const Tensor& crows, const Tensor& cols, const Tensor& values,
                         const Tensor& g, int64_t k);
// [nnz] for x [M, R] · yᵀ (y [K, R]) sampled at the pattern.
Meta sparse_csr_sampled_dot(const char* op, const Tensor& crows, const Tensor& cols, const Tensor& x,
                            const Tensor& y);

}  // namespace oar::infer_meta
