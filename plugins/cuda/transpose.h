// The tiled-transpose fast path of same-dtype copies (transpose.cu).
#pragma once

#include "plugins/cuda/common.h"

namespace oar_cuda {

// Copies x (broadcast to out's shape) into out with a tiled transpose when out and x are
// contiguous along different dims; false (nothing done) for other layouts.
bool try_transpose_copy(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& x,
                        const OarTensor& out, OarStatus* status);

}  // namespace oar_cuda
