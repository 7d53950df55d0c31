// Error reporting, dtype sizes and attribute readers shared by every kernel (see common.h).
#include "plugins/cuda/common.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace oar_cuda {

OarStatus fail(const OarKernelContext* ctx, const char* fmt, ...) {
  if (ctx && ctx->error && ctx->error_size > 0) {
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(ctx->error, ctx->error_size, fmt, args);
    va_end(args);
  }
  return OAR_STATUS_ERROR;
}

OarStatus invalid_value(const OarKernelContext* ctx, const char* fmt, ...) {
  if (ctx && ctx->error && ctx->error_size > 0) {
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(ctx->error, ctx->error_size, fmt, args);
    va_end(args);
  }
  return OAR_STATUS_INVALID_VALUE;
}

OarStatus cuda_fail(const OarKernelContext* ctx, cudaError_t err, const char* what) {
  cudaGetLastError();  // clear the slot: a later launch check must not see this error again
  fail(ctx, "%s failed on gpu:%d: %s (%s)", what, ctx ? ctx->device_id : -1,
       cudaGetErrorString(err), cudaGetErrorName(err));
  return err == cudaErrorMemoryAllocation ? OAR_STATUS_OUT_OF_MEMORY : OAR_STATUS_ERROR;
}

OarStatus to_status(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return OAR_STATUS_OK;
  cudaGetLastError();
  static const bool verbose = std::getenv("OAR_CUDA_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "oar_cuda: %s: %s\n", what, cudaGetErrorString(err));
  return err == cudaErrorMemoryAllocation ? OAR_STATUS_OUT_OF_MEMORY : OAR_STATUS_ERROR;
}

size_t dtype_size(int32_t dtype) {
  switch (dtype) {
    case OAR_BOOL: return 1;
    case OAR_INT8: return 1;
    case OAR_UINT8: return 1;
    case OAR_INT16: return 2;
    case OAR_INT32: return 4;
    case OAR_INT64: return 8;
    case OAR_FLOAT16: return 2;
    case OAR_BFLOAT16: return 2;
    case OAR_FLOAT32: return 4;
    case OAR_FLOAT64: return 8;
    default: return 0;
  }
}

const char* dtype_name(int32_t dtype) {
  static const char* const names[] = {"bool",    "int8",     "uint8",   "int16",
                                      "int32",   "int64",    "float16", "bfloat16",
                                      "float32", "float64",  "complex64", "complex128"};
  return dtype >= 0 && dtype < 12 ? names[dtype] : "unknown";
}

bool expect_io(const OarKernelContext* ctx, int num_inputs, int num_outputs) {
  if (ctx->num_inputs != num_inputs || ctx->num_outputs != num_outputs) {
    fail(ctx, "%s on gpu expects %d inputs and %d outputs, got %d and %d", ctx->op, num_inputs,
         num_outputs, ctx->num_inputs, ctx->num_outputs);
    return false;
  }
  for (int i = 0; i < num_inputs; ++i)
    if (ctx->inputs[i].ndim < 0) {
      fail(ctx, "%s on gpu: input %d is absent", ctx->op, i);
      return false;
    }
  for (int i = 0; i < num_outputs; ++i)
    if (ctx->outputs[i].ndim < 0) {
      fail(ctx, "%s on gpu: output %d is absent", ctx->op, i);
      return false;
    }
  return true;
}

bool attr_bool(const OarKernelContext* ctx, const char* name, bool fallback) {
  const OarAttr* a = oar_find_attr(ctx, name);
  if (!a) return fallback;
  switch (a->kind) {
    case OAR_ATTR_BOOL: case OAR_ATTR_INT: case OAR_ATTR_SCALAR_BOOL: case OAR_ATTR_SCALAR_INT:
      return a->i != 0;
    case OAR_ATTR_FLOAT: case OAR_ATTR_SCALAR_FLOAT: return a->f != 0.0;
    default: return fallback;
  }
}

bool attr_scalar(const OarKernelContext* ctx, const char* name, double* value) {
  const OarAttr* a = oar_find_attr(ctx, name);
  if (!a) return false;
  switch (a->kind) {
    case OAR_ATTR_BOOL: case OAR_ATTR_INT: case OAR_ATTR_SCALAR_BOOL: case OAR_ATTR_SCALAR_INT:
      *value = static_cast<double>(a->i);
      return true;
    case OAR_ATTR_FLOAT: case OAR_ATTR_SCALAR_FLOAT: case OAR_ATTR_SCALAR_COMPLEX:
      *value = a->f;
      return true;
    default: return false;
  }
}

bool attr_scalar_int(const OarKernelContext* ctx, const char* name, int64_t* value) {
  const OarAttr* a = oar_find_attr(ctx, name);
  if (!a) return false;
  switch (a->kind) {
    case OAR_ATTR_BOOL: case OAR_ATTR_INT: case OAR_ATTR_SCALAR_BOOL: case OAR_ATTR_SCALAR_INT:
      *value = a->i;
      return true;
    default: return false;
  }
}

int32_t attr_dtype(const OarKernelContext* ctx, const char* name) {
  const OarAttr* a = oar_find_attr(ctx, name);
  if (!a || a->kind != OAR_ATTR_DTYPE) return -1;
  return static_cast<int32_t>(a->i);
}

}  // namespace oar_cuda
