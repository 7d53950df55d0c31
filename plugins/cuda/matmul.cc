// matmul over cuBLASLt, with Paddle's semantics.
//
// Contract: inputs x, y of one float dtype (float32, float64, float16, bfloat16), attrs
// transpose_x / transpose_y. A 1-D x acts as [1, K] and a 1-D y as [K, 1] (that dim is dropped
// from the result and their transpose flags do not apply); the flags swap the last two dims;
// batch dims broadcast (outputs[0]'s shape is already the broadcast result). Inputs may be any
// view whose last two dims are row- or column-major (a column-major matrix is a transposed
// operand to cuBLASLt); any other view (an expanded gradient, a strided slice) is first copied
// to contiguous scratch (compact.h). Batch dims may have any strides (0 for broadcast): when
// they coalesce into one uniform stride it is a single strided-batched call, else one call per
// outer batch index. float16/bfloat16 accumulate in float32; float32 uses full FP32 unless
// OAR_CUDA_ALLOW_TF32=1 (TF32 tensor cores), float64 computes in FP64.
//
// How: row-major C = X Y is computed as the column-major C^T = Y^T X^T. Per device: one
// cuBLASLt handle, a 32 MiB workspace per stream (freed by destroy_stream), and a cache of
// descriptors and the chosen algorithm keyed by everything that shapes the call. For a large
// product (>= 2^33 multiply-adds) the first call times cuBLASLt's top candidates on the real
// operands and keeps the fastest (the heuristic's first pick ran ~3% below cuBLAS on an H200);
// smaller ones take the heuristic's first pick.
#include <cublasLt.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "plugins/cuda/common.h"
#include "plugins/cuda/compact.h"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

constexpr size_t kWorkspaceBytes = 32u << 20;
constexpr size_t kMaxCachedPlans = 4096;
constexpr int kCandidates = 8;            // heuristic results timed for a large product
constexpr double kTuneMinMacs = 8.0e9;    // below this, timing costs more than it wins

// The operands of the first call of a plan, for timing candidates.
struct TuneArgs {
  const void* alpha;
  const void* beta;
  const void* a;
  const void* b;
  void* c;
  void* ws;
  cudaStream_t stream;
  double macs;
};

using Key = std::array<int64_t, 19>;
struct KeyHash {
  size_t operator()(const Key& k) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t v : k) h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};

// Descriptors and the chosen algorithm for one call shape.
struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo;
  void destroy() {
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (desc) cublasLtMatmulDescDestroy(desc);
  }
};

struct LtDevice {
  std::mutex mu;
  cublasLtHandle_t handle = nullptr;
  std::unordered_map<Key, Plan, KeyHash> plans;
  std::unordered_map<cudaStream_t, void*> workspaces;  // nullptr: allocation failed, none
};

LtDevice* lt_device(int device) {
  static const std::unique_ptr<LtDevice[]> devs(new LtDevice[device_count() + 1]);
  return device >= 0 && device < device_count() ? &devs[device] : nullptr;
}

bool allow_tf32() {
  static const bool on = [] {
    const char* v = std::getenv("OAR_CUDA_ALLOW_TF32");
    return v && v[0] == '1';
  }();
  return on;
}

OarStatus lt_fail(const OarKernelContext* ctx, cublasStatus_t s, const char* what) {
  return fail(ctx, "matmul on gpu:%d: %s failed: %s (%s)", ctx->device_id, what,
              cublasLtGetStatusString(s), cublasLtGetStatusName(s));
}

// A matrix operand as cuBLASLt sees it: op(M) is p x q column-major-indexed, element (a, b) at
// a*sa + b*sb. Picks op N (stored p x q, ld = sb) or op T (stored q x p, ld = sa).
struct Operand {
  cublasOperation_t op;
  uint64_t rows, cols;  // stored dims
  int64_t ld;
};

bool describe(int64_t p, int64_t q, int64_t sa, int64_t sb, Operand* o) {
  const int64_t pp = p > 1 ? p : 1, qq = q > 1 ? q : 1;
  const bool n_ok = (sa == 1 || p <= 1) && (q <= 1 || sb >= pp);
  const bool t_ok = (sb == 1 || q <= 1) && (p <= 1 || sa >= qq);
  if (n_ok) {
    *o = {CUBLAS_OP_N, static_cast<uint64_t>(p), static_cast<uint64_t>(q), q <= 1 ? pp : sb};
    return true;
  }
  if (t_ok) {
    *o = {CUBLAS_OP_T, static_cast<uint64_t>(q), static_cast<uint64_t>(p), p <= 1 ? qq : sa};
    return true;
  }
  return false;
}

// Largest power of two (<= 256) dividing every address the call touches.
int64_t alignment(uintptr_t base, const int64_t* byte_strides, int n) {
  uint64_t bits = base | 256u;
  for (int i = 0; i < n; ++i) bits |= static_cast<uint64_t>(byte_strides[i]);
  return static_cast<int64_t>(bits & (~bits + 1));
}

// Returns the stream's workspace (allocated on first use; none if that fails).
void* workspace(LtDevice* d, cudaStream_t stream) {
  auto it = d->workspaces.find(stream);
  if (it != d->workspaces.end()) return it->second;
  void* ws = nullptr;
  if (cudaMalloc(&ws, kWorkspaceBytes) != cudaSuccess) {
    cudaGetLastError();
    ws = nullptr;
  }
  d->workspaces.emplace(stream, ws);
  return ws;
}

// Index of the fastest candidate (each run once to warm up, then timed twice with events on the
// call's stream); 0 when timing fails, which leaves the heuristic's first pick.
int fastest(LtDevice* d, const Plan& p, const cublasLtMatmulHeuristicResult_t* results, int found,
            const TuneArgs& t) {
  cudaEvent_t start = nullptr, stop = nullptr;
  if (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess) {
    if (start) cudaEventDestroy(start);
    cudaGetLastError();
    return 0;
  }
  int best = 0;
  float best_ms = 0;
  for (int i = 0; i < found; ++i) {
    if (results[i].state != CUBLAS_STATUS_SUCCESS) continue;
    auto run = [&] {
      return cublasLtMatmul(d->handle, p.desc, t.alpha, t.a, p.a, t.b, p.b, t.beta, t.c, p.c, t.c,
                            p.c, &results[i].algo, t.ws, t.ws ? kWorkspaceBytes : 0, t.stream);
    };
    if (run() != CUBLAS_STATUS_SUCCESS) continue;
    cudaEventRecord(start, t.stream);
    bool ok = run() == CUBLAS_STATUS_SUCCESS && run() == CUBLAS_STATUS_SUCCESS;
    cudaEventRecord(stop, t.stream);
    float ms = 0;
    ok = ok && cudaEventSynchronize(stop) == cudaSuccess &&
         cudaEventElapsedTime(&ms, start, stop) == cudaSuccess;
    if (ok && (best_ms == 0 || ms < best_ms)) {
      best_ms = ms;
      best = i;
    }
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaGetLastError();
  return best;
}

OarStatus make_plan(const OarKernelContext* ctx, LtDevice* d, const Key& key, cudaDataType_t type,
                    cublasComputeType_t compute, cudaDataType_t scale, const Operand& A,
                    const Operand& B, const Operand& C, int32_t batch, const int64_t* bstride,
                    const int64_t* align, size_t ws_bytes, const TuneArgs& tune, Plan* plan) {
  Plan p;
  cublasStatus_t s = cublasLtMatmulDescCreate(&p.desc, compute, scale);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &A.op, sizeof A.op);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &B.op, sizeof B.op);
  const Operand* ops[3] = {&A, &B, &C};
  cublasLtMatrixLayout_t* layouts[3] = {&p.a, &p.b, &p.c};
  for (int i = 0; i < 3 && s == CUBLAS_STATUS_SUCCESS; ++i) {
    s = cublasLtMatrixLayoutCreate(layouts[i], type, ops[i]->rows, ops[i]->cols, ops[i]->ld);
    if (s == CUBLAS_STATUS_SUCCESS && batch > 1) {
      s = cublasLtMatrixLayoutSetAttribute(*layouts[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                           &batch, sizeof batch);
      if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatrixLayoutSetAttribute(
            *layouts[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &bstride[i], sizeof(int64_t));
    }
  }
  if (s != CUBLAS_STATUS_SUCCESS) {
    p.destroy();
    return lt_fail(ctx, s, "descriptor setup");
  }
  cublasLtMatmulPreference_t pref = nullptr;
  s = cublasLtMatmulPreferenceCreate(&pref);
  const uint64_t ws = ws_bytes;
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                             sizeof ws);
  const cublasLtMatmulPreferenceAttributes_t align_attr[4] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int i = 0; i < 4 && s == CUBLAS_STATUS_SUCCESS; ++i) {
    const uint32_t al = static_cast<uint32_t>(align[i < 3 ? i : 2]);
    s = cublasLtMatmulPreferenceSetAttribute(pref, align_attr[i], &al, sizeof al);
  }
  cublasLtMatmulHeuristicResult_t results[kCandidates];
  int found = 0;
  const int wanted = tune.macs >= kTuneMinMacs ? kCandidates : 1;
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmulAlgoGetHeuristic(d->handle, p.desc, p.a, p.b, p.c, p.c, pref, wanted,
                                       results, &found);
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  if (s != CUBLAS_STATUS_SUCCESS || found == 0) {
    p.destroy();
    if (s != CUBLAS_STATUS_SUCCESS) return lt_fail(ctx, s, "cublasLtMatmulAlgoGetHeuristic");
    return fail(ctx, "matmul on gpu:%d: cuBLASLt has no algorithm for this shape", ctx->device_id);
  }
  p.algo = results[0].algo;
  if (found > 1) p.algo = results[fastest(d, p, results, found, tune)].algo;
  if (d->plans.size() >= kMaxCachedPlans) {  // dynamic shapes: start over rather than grow
    for (auto& kv : d->plans) kv.second.destroy();
    d->plans.clear();
  }
  *plan = d->plans.emplace(key, p).first->second;
  return OAR_STATUS_OK;
}

// Whether cuBLASLt can read the operand's matrix dims in place (describe's rule, for either
// orientation; batch dims may have any strides).
bool matrix_layout_ok(const OarTensor& t) {
  if (t.ndim == 1) return t.shape[0] <= 1 || t.strides[0] >= 1;
  if (t.ndim < 2) return true;
  const int64_t p = t.shape[t.ndim - 2], q = t.shape[t.ndim - 1];
  Operand unused;
  return describe(p, q, t.strides[t.ndim - 1], t.strides[t.ndim - 2], &unused);
}

OarStatus matmul_views(const OarKernelContext* ctx, const OarTensor& x, const OarTensor& y);

}  // namespace

void release_stream_resources(int device, cudaStream_t stream) {
  LtDevice* d = lt_device(device);
  if (!d) return;
  std::lock_guard<std::mutex> lock(d->mu);
  auto it = d->workspaces.find(stream);
  if (it == d->workspaces.end()) return;
  if (it->second) {
    cudaStreamSynchronize(stream);  // the stream's last matmul may still use it
    cudaFree(it->second);
    cudaGetLastError();
  }
  d->workspaces.erase(it);
}

OarStatus k_matmul(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  OarTensor x = ctx->inputs[0], y = ctx->inputs[1];
  CompactView xc, yc;
  if (!matrix_layout_ok(x) || !matrix_layout_ok(y)) {
    cudaStream_t stream;
    if (OarStatus st = begin_kernel(ctx, &stream)) return st;
    if (!matrix_layout_ok(x))
      if (OarStatus st = xc.make(ctx, stream, ctx->inputs[0], &x)) return st;
    if (!matrix_layout_ok(y))
      if (OarStatus st = yc.make(ctx, stream, ctx->inputs[1], &y)) return st;
  }
  return matmul_views(ctx, x, y);
}

namespace {

OarStatus matmul_views(const OarKernelContext* ctx, const OarTensor& x, const OarTensor& y) {
  const OarTensor& out = ctx->outputs[0];
  if (x.dtype != y.dtype || out.dtype != x.dtype)
    return fail(ctx, "matmul on gpu needs x, y and out of one dtype, got %s, %s and %s",
                dtype_name(x.dtype), dtype_name(y.dtype), dtype_name(out.dtype));
  cudaDataType_t type;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cudaDataType_t scale_type = CUDA_R_32F;
  switch (x.dtype) {
    case OAR_FLOAT32:
      type = CUDA_R_32F;
      compute = allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      break;
    case OAR_FLOAT16: type = CUDA_R_16F; break;
    case OAR_BFLOAT16: type = CUDA_R_16BF; break;
    case OAR_FLOAT64:
      type = CUDA_R_64F;
      compute = CUBLAS_COMPUTE_64F;
      scale_type = CUDA_R_64F;
      break;
    default: return unsupported(ctx, x.dtype);
  }
  if (x.ndim < 1 || y.ndim < 1) return fail(ctx, "matmul on gpu needs inputs of 1 or more dims");
  const bool x1 = x.ndim == 1, y1 = y.ndim == 1;
  const bool tx = !x1 && attr_bool(ctx, "transpose_x", false);
  const bool ty = !y1 && attr_bool(ctx, "transpose_y", false);

  // Logical X (m x k) and Y (k x n): element (i, j) at i*r + j*c.
  int64_t m, k, n, xr, xc, yr, yc;
  if (x1) {
    m = 1; k = x.shape[0]; xr = 0; xc = x.strides[0];
  } else {
    const int64_t a = x.shape[x.ndim - 2], b = x.shape[x.ndim - 1];
    const int64_t sa = x.strides[x.ndim - 2], sb = x.strides[x.ndim - 1];
    if (tx) { m = b; k = a; xr = sb; xc = sa; } else { m = a; k = b; xr = sa; xc = sb; }
  }
  int64_t ky;
  if (y1) {
    ky = y.shape[0]; n = 1; yr = y.strides[0]; yc = 0;
  } else {
    const int64_t a = y.shape[y.ndim - 2], b = y.shape[y.ndim - 1];
    const int64_t sa = y.strides[y.ndim - 2], sb = y.strides[y.ndim - 1];
    if (ty) { ky = b; n = a; yr = sb; yc = sa; } else { ky = a; n = b; yr = sa; yc = sb; }
  }
  if (ky != k)
    return fail(ctx, "matmul on gpu: inner dims differ (%lld vs %lld)",
                static_cast<long long>(k), static_cast<long long>(ky));

  // Batch dims of the output, with each operand's stride per dim (0 where broadcast).
  const int nb = out.ndim - (x1 ? 0 : 1) - (y1 ? 0 : 1);
  if (nb < 0) return fail(ctx, "matmul on gpu: output rank %d does not fit the inputs", out.ndim);
  const int xb = x1 ? 0 : x.ndim - 2, yb = y1 ? 0 : y.ndim - 2;
  if (xb > nb || yb > nb)
    return fail(ctx, "matmul on gpu: output has fewer batch dims than an input");
  int64_t bsize[64], bstr[3][64];  // innermost first; 0: y (cuBLASLt A), 1: x (B), 2: out (C)
  int nbat = 0;
  int64_t out_stride = m * n;
  for (int d = nb - 1; d >= 0; --d) {
    const int64_t s = out.shape[d];
    const int dx = d - (nb - xb), dy = d - (nb - yb);
    int64_t sx = 0, sy = 0;
    if (dx >= 0 && x.shape[dx] != 1) {
      if (x.shape[dx] != s) return fail(ctx, "matmul on gpu: batch dims of x do not broadcast");
      sx = x.strides[dx];
    }
    if (dy >= 0 && y.shape[dy] != 1) {
      if (y.shape[dy] != s) return fail(ctx, "matmul on gpu: batch dims of y do not broadcast");
      sy = y.strides[dy];
    }
    if (s != 1) {
      if (nbat > 0 && sy == bstr[0][nbat - 1] * bsize[nbat - 1] &&
          sx == bstr[1][nbat - 1] * bsize[nbat - 1] &&
          out_stride == bstr[2][nbat - 1] * bsize[nbat - 1]) {
        bsize[nbat - 1] *= s;  // merges with the dim inside it
      } else {
        if (nbat == 64) return fail(ctx, "matmul on gpu: too many batch dims");
        bsize[nbat] = s;
        bstr[0][nbat] = sy;
        bstr[1][nbat] = sx;
        bstr[2][nbat] = out_stride;
        ++nbat;
      }
    }
    out_stride *= s;
  }

  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  const size_t esize = dtype_size(x.dtype);
  if (k == 0) {  // empty sum: zeros
    const cudaError_t err = cudaMemsetAsync(out.data, 0, out.numel * esize, stream);
    return err == cudaSuccess ? OAR_STATUS_OK : cuda_fail(ctx, err, "cudaMemsetAsync");
  }

  Operand A, B, C;
  if (!describe(n, k, yc, yr, &A) || !describe(k, m, xc, xr, &B) || !describe(n, m, 1, n, &C))
    return fail(ctx, "matmul on gpu needs contiguous inputs (last two dims row- or column-major)");

  // One strided-batched call over the innermost batch dim; outer batch dims loop on the host.
  const int32_t batch = nbat > 0 ? static_cast<int32_t>(bsize[0]) : 1;
  if (nbat > 0 && bsize[0] > INT32_MAX) return fail(ctx, "matmul on gpu: batch too large");
  const int64_t inner_stride[3] = {nbat > 0 ? bstr[0][0] : 0, nbat > 0 ? bstr[1][0] : 0,
                                   nbat > 0 ? bstr[2][0] : 0};
  int64_t align[3];
  const void* base[3] = {y.data, x.data, out.data};
  for (int t = 0; t < 3; ++t) {
    int64_t bytes[64];
    for (int i = 0; i < nbat; ++i) bytes[i] = bstr[t][i] * static_cast<int64_t>(esize);
    align[t] = alignment(reinterpret_cast<uintptr_t>(base[t]), bytes, nbat);
  }

  LtDevice* d = lt_device(ctx->device_id);
  if (!d) return fail(ctx, "matmul on gpu: bad device %d", ctx->device_id);
  std::lock_guard<std::mutex> lock(d->mu);
  if (!d->handle) {
    const cublasStatus_t s = cublasLtCreate(&d->handle);
    if (s != CUBLAS_STATUS_SUCCESS) {
      d->handle = nullptr;
      return lt_fail(ctx, s, "cublasLtCreate");
    }
  }
  void* ws = workspace(d, stream);
  const size_t ws_bytes = ws ? kWorkspaceBytes : 0;
  const Key key = {x.dtype, compute, A.op, B.op, n, m, k, A.ld, B.ld, C.ld, batch,
                   inner_stride[0], inner_stride[1], inner_stride[2], align[0], align[1],
                   align[2], static_cast<int64_t>(ws_bytes), ctx->device_id};
  const float alpha32 = 1.0f, beta32 = 0.0f;
  const double alpha64 = 1.0, beta64 = 0.0;
  const void* alpha = x.dtype == OAR_FLOAT64 ? static_cast<const void*>(&alpha64) : &alpha32;
  const void* beta = x.dtype == OAR_FLOAT64 ? static_cast<const void*>(&beta64) : &beta32;
  Plan plan;
  auto it = d->plans.find(key);
  if (it != d->plans.end()) {
    plan = it->second;
  } else {
    // The first call's operands (batch offset 0) for timing candidates; out is overwritten.
    const TuneArgs tune{alpha, beta, y.data, x.data, out.data, ws, stream,
                        static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
                            static_cast<double>(batch)};
    if (OarStatus st = make_plan(ctx, d, key, type, compute, scale_type, A, B, C, batch,
                                 inner_stride, align, ws_bytes, tune, &plan))
      return st;
  }
  // Outer batch dims (1..nbat) walked odometer-style.
  int64_t coord[64] = {};
  int64_t outer = 1;
  for (int i = 1; i < nbat; ++i) outer *= bsize[i];
  int64_t off[3] = {0, 0, 0};
  for (int64_t step = 0; step < outer; ++step) {
    const char* pa = static_cast<const char*>(y.data) + off[0] * static_cast<int64_t>(esize);
    const char* pb = static_cast<const char*>(x.data) + off[1] * static_cast<int64_t>(esize);
    char* pc = static_cast<char*>(out.data) + off[2] * static_cast<int64_t>(esize);
    const cublasStatus_t s =
        cublasLtMatmul(d->handle, plan.desc, alpha, pa, plan.a, pb, plan.b, beta, pc, plan.c, pc,
                       plan.c, &plan.algo, ws, ws_bytes, stream);
    if (s != CUBLAS_STATUS_SUCCESS) return lt_fail(ctx, s, "cublasLtMatmul");
    for (int i = 1; i < nbat; ++i) {
      for (int t = 0; t < 3; ++t) off[t] += bstr[t][i];
      if (++coord[i] < bsize[i]) break;
      for (int t = 0; t < 3; ++t) off[t] -= bstr[t][i] * bsize[i];
      coord[i] = 0;
    }
  }
  return OAR_STATUS_OK;
}

}  // namespace
}  // namespace oar_cuda
