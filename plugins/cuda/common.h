// Shared host-side helpers of the CUDA plug-in: error reporting into a kernel context, attribute
// reading, and the per-device state that device.cc owns (current device, default stream, SM
// count). Plain C++ (no device code), so both the .cc and the .cu files include it.
//
// Contract: every kernel entry point resolves its device and stream with `begin_kernel`, reports
// failures through `fail`/`cuda_fail` (which fill ctx->error) and never throws.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "oar/device/device_ext.h"

namespace oar_cuda {

constexpr int kMaxDims = 8;  // dims a strided plan holds after coalescing

// ---- errors -----------------------------------------------------------------------------------

// Writes a printf-style message into ctx->error and returns OAR_STATUS_ERROR.
OarStatus fail(const OarKernelContext* ctx, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));

// Reports a CUDA error (clearing the thread's last-error slot, so a stale error never blames a
// later launch). Allocation failures map to OAR_STATUS_OUT_OF_MEMORY.
OarStatus cuda_fail(const OarKernelContext* ctx, cudaError_t err, const char* what);

// Input values the kernel refuses (check_values, a domain check): the message alone, raised by
// oar as ValueError, as the CPU kernel's check does.
OarStatus invalid_value(const OarKernelContext* ctx, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));

// The status for a CUDA result in the device interface (no message channel there; the message
// goes to stderr when OAR_CUDA_VERBOSE is set).
OarStatus to_status(cudaError_t err, const char* what);

// After a kernel launch: OK, or the launch error written into ctx.
inline OarStatus check_launch(const OarKernelContext* ctx, const char* what) {
  const cudaError_t err = cudaGetLastError();
  return err == cudaSuccess ? OAR_STATUS_OK : cuda_fail(ctx, err, what);
}

// ---- devices and streams ----------------------------------------------------------------------

int device_count();
// Makes `device` current on this thread (cached: cudaSetDevice only when it changes).
cudaError_t ensure_device(int device);
// The per-device stream oar uses when it passes NULL (created lazily, non-blocking).
cudaError_t default_stream(int device, cudaStream_t* stream);
// Multiprocessors of the device (cached; 1 if unknown).
int sm_count(int device);

// Sets the kernel's device current and resolves its stream (NULL -> the default stream).
inline OarStatus begin_kernel(const OarKernelContext* ctx, cudaStream_t* stream) {
  cudaError_t err = ensure_device(ctx->device_id);
  if (err != cudaSuccess) return cuda_fail(ctx, err, "cudaSetDevice");
  if (ctx->stream) {
    *stream = reinterpret_cast<cudaStream_t>(ctx->stream);
    return OAR_STATUS_OK;
  }
  err = default_stream(ctx->device_id, stream);
  return err == cudaSuccess ? OAR_STATUS_OK : cuda_fail(ctx, err, "default stream");
}

// Stream-ordered scratch memory for kernels (reduce partials, cast buffers): cudaMallocAsync
// from the device's default pool, which keeps up to 64 MiB cached across synchronisations
// (outside oar's caching allocator: the ABI has no way to borrow from it).
cudaError_t scratch_alloc(int device, void** ptr, size_t nbytes, cudaStream_t stream);
void scratch_free(void* ptr, cudaStream_t stream);

// Called by destroy_stream so matmul can drop the stream's cuBLASLt workspace (matmul.cc).
void release_stream_resources(int device, cudaStream_t stream);

// ---- tensors and attributes -------------------------------------------------------------------

size_t dtype_size(int32_t dtype);  // 0 for dtypes this plug-in does not handle
const char* dtype_name(int32_t dtype);

inline bool is_contiguous(const OarTensor& t) {
  int64_t expect = 1;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.strides[d] != expect) return false;
    expect *= t.shape[d];
  }
  return true;
}

// Checks the counts of inputs and outputs (and that outputs are present); false with a message.
bool expect_io(const OarKernelContext* ctx, int num_inputs, int num_outputs);

// The dtype check every kernel ends with when dispatch found no instantiation.
inline OarStatus unsupported(const OarKernelContext* ctx, int32_t dtype) {
  return fail(ctx, "%s on gpu does not support dtype %s", ctx->op, dtype_name(dtype));
}

bool attr_bool(const OarKernelContext* ctx, const char* name, bool fallback);
// A Scalar (or plain INT/FLOAT/BOOL) attribute as double; false if absent or not numeric.
bool attr_scalar(const OarKernelContext* ctx, const char* name, double* value);
// A Scalar attribute as int64 when it is an integer or bool Scalar (exact for big ints).
bool attr_scalar_int(const OarKernelContext* ctx, const char* name, int64_t* value);
// An OAR_ATTR_DTYPE attribute; -1 if absent or NONE.
int32_t attr_dtype(const OarKernelContext* ctx, const char* name);

}  // namespace oar_cuda
