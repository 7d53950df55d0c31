// bfloat16 GEMM on CPUs with bfloat16 dot-product instructions (AVX512_BF16, AMX), through
// oneDNN's matmul primitive: bfloat16 products accumulated in float32, rounded once into C.
// Callers check cpu_has_bf16_dot() first (oar/core/cpu_isa.h).
#pragma once
#include <cstdint>

#include "oar/core/dtype.h"  // bfloat16

namespace oar::kernels::onednn {

// C[M,N] = op(A) @ op(B), row-major with leading dimensions (op: transpose when trans_*).
// Returns false, having done nothing, when oneDNN has no implementation for the problem.
bool gemm_bf16(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const bfloat16* A, int64_t lda,
               const bfloat16* B, int64_t ldb, bfloat16* C, int64_t ldc);

}  // namespace oar::kernels::onednn
