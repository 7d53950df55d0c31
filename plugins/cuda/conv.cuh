// Device-side helpers shared by conv.cu, attention.cu and interp.cu: attribute readers (int
// arrays, strings, numbers), a stream-ordered scratch buffer, a strided -> contiguous gather into
// scratch, and the GEMM of conv_blas.h.
#pragma once

#include <cstdint>
#include <cstring>

#include "plugins/cuda/common.h"
#include "plugins/cuda/compact.h"
#include "plugins/cuda/conv_blas.h"
#include "plugins/cuda/dtype.cuh"
#include "plugins/cuda/elementwise.cuh"

namespace oar_cuda {

// ---- attributes -------------------------------------------------------------------------------

// An attribute present and not NONE, else nullptr.
inline const OarAttr* cv_attr(const OarKernelContext* ctx, const char* name) {
  const OarAttr* a = oar_find_attr(ctx, name);
  return a && a->kind != OAR_ATTR_NONE ? a : nullptr;
}

inline int64_t cv_int(const OarKernelContext* ctx, const char* name, int64_t fallback) {
  const OarAttr* a = cv_attr(ctx, name);
  if (!a) return fallback;
  switch (a->kind) {
    case OAR_ATTR_INT: case OAR_ATTR_SCALAR_INT: case OAR_ATTR_BOOL: case OAR_ATTR_SCALAR_BOOL:
      return a->i;
    case OAR_ATTR_FLOAT: case OAR_ATTR_SCALAR_FLOAT: return static_cast<int64_t>(a->f);
    default: return fallback;
  }
}

inline double cv_float(const OarKernelContext* ctx, const char* name, double fallback) {
  double v;
  const OarAttr* a = cv_attr(ctx, name);
  return a && attr_scalar(ctx, name, &v) ? v : fallback;
}

inline const char* cv_string(const OarKernelContext* ctx, const char* name, const char* fallback) {
  const OarAttr* a = cv_attr(ctx, name);
  return a && a->kind == OAR_ATTR_STRING && a->s ? a->s : fallback;
}

// An IntArray attribute with exactly n entries (a plain int counts as one); false otherwise.
inline bool cv_ints(const OarKernelContext* ctx, const char* name, int64_t n, int64_t* out) {
  const OarAttr* a = cv_attr(ctx, name);
  if (!a) return false;
  if (a->kind == OAR_ATTR_INT || a->kind == OAR_ATTR_SCALAR_INT) {
    if (n != 1) return false;
    out[0] = a->i;
    return true;
  }
  if (a->kind != OAR_ATTR_INT_ARRAY || a->count != n || (n > 0 && !a->ints)) return false;
  for (int64_t i = 0; i < n; ++i) out[i] = a->ints[i];
  return true;
}

// ---- scratch ----------------------------------------------------------------------------------

// A stream-ordered scratch buffer freed (on the stream) when it goes out of scope.
struct Scratch {
  void* p = nullptr;
  cudaStream_t stream = nullptr;
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    if (p) scratch_free(p, stream);
  }
  OarStatus alloc(const OarKernelContext* ctx, cudaStream_t s, size_t bytes) {
    stream = s;
    const cudaError_t err = scratch_alloc(ctx->device_id, &p, bytes ? bytes : 16, s);
    if (err != cudaSuccess) {
      p = nullptr;
      return cuda_fail(ctx, err, "scratch allocation");
    }
    return OAR_STATUS_OK;
  }
  template <class T> T* as() const { return static_cast<T*>(p); }
};

template <class T>
struct CvIdentity {
  __device__ T operator()(T v) const { return v; }
};

// *data = t's elements in row-major order: t.data itself when t is contiguous, else a copy in
// `buf` (allocated here) written on the stream.
template <class T>
OarStatus cv_contiguous(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& t,
                        Scratch& buf, const T** data) {
  if (is_contiguous(t)) {
    *data = static_cast<const T*>(t.data);
    return OAR_STATUS_OK;
  }
  if (OarStatus st = buf.alloc(ctx, stream, static_cast<size_t>(t.numel) * sizeof(T))) return st;
  *data = buf.as<const T>();
  return copy_to_contiguous(ctx, stream, t, buf.p);
}

// Blocks for a grid-stride loop over n items.
inline unsigned cv_blocks(int device, int64_t n, int threads = 256) {
  const int64_t need = (n + threads - 1) / threads;
  const int64_t cap = static_cast<int64_t>(sm_count(device)) * 32;
  return static_cast<unsigned>(need < 1 ? 1 : (need < cap ? need : cap));
}

}  // namespace oar_cuda
