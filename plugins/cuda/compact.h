// A contiguous copy of a strided view, for kernels whose library call needs a plain layout
// (cuBLASLt operands whose matrix dims are neither row- nor column-major, e.g. an expanded
// gradient of ones).
//
// Contract: CompactView owns nothing until `make` copies `src` into stream-ordered scratch
// (scratch_alloc) and describes it as a contiguous OarTensor; the destructor frees the scratch on
// the same stream, after the work queued there, so the copy lives exactly as long as the kernel's
// launches that read it.
#pragma once

#include <cstdint>

#include "plugins/cuda/common.h"

namespace oar_cuda {

// Same-dtype copy of `src` into contiguous memory at `dst` (numel * element size bytes).
OarStatus copy_to_contiguous(const OarKernelContext* ctx, cudaStream_t stream,
                             const OarTensor& src, void* dst);

class CompactView {
 public:
  CompactView() = default;
  CompactView(const CompactView&) = delete;
  CompactView& operator=(const CompactView&) = delete;
  ~CompactView() {
    if (data_) scratch_free(data_, stream_);
  }

  // Copies src and points `*view` at the contiguous copy.
  OarStatus make(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& src,
                 OarTensor* view) {
    stream_ = stream;
    const size_t bytes = static_cast<size_t>(src.numel) * dtype_size(src.dtype);
    const cudaError_t err = scratch_alloc(ctx->device_id, &data_, bytes ? bytes : 1, stream);
    if (err != cudaSuccess) {
      data_ = nullptr;
      return cuda_fail(ctx, err, "scratch for a contiguous copy");
    }
    if (OarStatus st = copy_to_contiguous(ctx, stream, src, data_)) return st;
    int64_t expect = 1;
    for (int32_t d = src.ndim - 1; d >= 0; --d) {
      strides_[d] = expect;
      expect *= src.shape[d];
    }
    *view = src;
    view->data = data_;
    view->strides = strides_;
    return OAR_STATUS_OK;
  }

 private:
  void* data_ = nullptr;
  cudaStream_t stream_ = nullptr;
  int64_t strides_[64] = {};
};

}  // namespace oar_cuda
