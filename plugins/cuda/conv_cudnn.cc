// cuDNN convolutions for conv.cu (see conv_cudnn.h): descriptors built per call, one
// cudnnHandle_t per (device, stream) created on first use and bound to the kernel's stream, the
// algorithm chosen once per shape, the workspace taken from the plug-in's stream-ordered scratch.
// A batch whose tensors exceed cuDNN's 32-bit element counts is split into chunks of images
// (forward and backward-data independently; backward-filter accumulates with beta = 1, float32
// and float64 only, since 16-bit partial sums would lose precision).
//
// All cuDNN calls run under one mutex (handles and the algorithm cache are shared state; the
// work itself is asynchronous, so the lock is held only while enqueueing). Handles live until
// exit, as conv_blas.cc's.
#include "plugins/cuda/conv_cudnn.h"

#include "plugins/cuda/cudnn_loader.h"

#if OAR_CUDA_HAVE_CUDNN_HEADERS

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

namespace oar_cuda {
namespace {

constexpr size_t kWorkspaceLimit = size_t{1} << 30;  // algorithms needing more are skipped
constexpr int kMaxAlgos = 16;                        // above every *_ALGO_COUNT of cuDNN 9

enum Kind { kForward = 0, kBackwardData = 1, kBackwardFilter = 2 };
const char* const kKindName[] = {"forward", "backward-data", "backward-filter"};

bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v && v[0] == '1';
}
bool allow_tf32() {
  static const bool on = env_on("OAR_CUDA_ALLOW_TF32");
  return on;
}
bool benchmark() {
  static const bool on = env_on("OAR_CUDA_CUDNN_BENCHMARK");
  return on;
}
bool nondeterministic_ok() {
  static const bool on = env_on("OAR_CUDA_CUDNN_NONDETERMINISTIC");
  return on;
}

struct Candidate {
  int algo;
  cudnnMathType_t math;
  size_t memory;
};

// The algorithms a shape may use, best first; `next` skips those that failed.
struct Choice {
  bool resolved = false;
  std::vector<Candidate> list;
  size_t next = 0;
};

struct State {
  std::mutex mu;
  std::map<std::pair<int, cudaStream_t>, cudnnHandle_t> handles;
  std::set<int> broken_devices;  // cudnnCreate failed there
  std::map<std::vector<int64_t>, Choice> choices;
};

State& state() {
  static State* s = new State;  // never destroyed: kernels may run during exit
  return *s;
}

// The problem in cuDNN's terms: 2 or 3 spatial dims (1-D becomes 2-D with a unit height).
struct Norm {
  int nsp = 0;
  int64_t in[3] = {}, out[3] = {}, ks[3] = {}, stride[3] = {}, pad[3] = {}, dil[3] = {};
  int64_t per_in = 0, per_out = 0;  // elements of one image of x and of y
};

bool normalize(const CudnnConv& p, Norm* n) {
  if (p.nd < 1 || p.nd > 3) return false;
  if (p.N < 1 || p.C < 1 || p.M < 1 || p.G < 1 || p.C % p.G || p.M % p.G) return false;
  const int lead = p.nd == 1 ? 1 : 0;
  n->nsp = p.nd + lead;
  if (lead) {
    n->in[0] = n->out[0] = n->ks[0] = n->stride[0] = n->dil[0] = 1;
    n->pad[0] = 0;
  }
  int64_t I = 1, O = 1;
  for (int d = 0; d < p.nd; ++d) {
    const int64_t in = p.in_sp[d], out = p.out_sp[d], k = p.ks[d], s = p.stride[d];
    const int64_t pad = p.pad[d], dil = p.dil[d];
    if (in < 1 || out < 1 || k < 1 || s < 1 || dil < 1 || pad < 0) return false;
    if (in > INT_MAX || k > INT_MAX || s > INT_MAX || dil > INT_MAX || pad > INT_MAX / 2)
      return false;
    // cuDNN pads both sides by `pad`; the output size must be the one that gives (a smaller or
    // larger padding after the data only changes which positions exist, not what they read).
    const int64_t span = in + 2 * pad - dil * (k - 1) - 1;
    if (span < 0 || span / s + 1 != out) return false;
    n->in[lead + d] = in;
    n->out[lead + d] = out;
    n->ks[lead + d] = k;
    n->stride[lead + d] = s;
    n->pad[lead + d] = pad;
    n->dil[lead + d] = dil;
    I *= in;
    O *= out;
  }
  if (p.C > INT_MAX / I || p.M > INT_MAX / O) return false;
  n->per_in = p.C * I;
  n->per_out = p.M * O;
  return true;
}

bool data_type(int32_t dtype, cudnnDataType_t* t) {
  switch (dtype) {
    case OAR_FLOAT32: *t = CUDNN_DATA_FLOAT; return true;
    case OAR_FLOAT64: *t = CUDNN_DATA_DOUBLE; return true;
    case OAR_FLOAT16: *t = CUDNN_DATA_HALF; return true;
    case OAR_BFLOAT16: *t = CUDNN_DATA_BFLOAT16; return true;
    default: return false;
  }
}

// Math type of the descriptor while choosing: float32 without TF32 is FMA only (cuDNN's default
// math admits TF32 tensor cores on Ampere and later); 16-bit types use tensor cores.
cudnnMathType_t base_math(int32_t dtype) {
  if (dtype == OAR_FLOAT32) return allow_tf32() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  if (dtype == OAR_FLOAT16 || dtype == OAR_BFLOAT16) return CUDNN_TENSOR_OP_MATH;
  return CUDNN_DEFAULT_MATH;
}

struct Descs {
  const CudnnApi* api;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  explicit Descs(const CudnnApi* a) : api(a) {}
  Descs(const Descs&) = delete;
  Descs& operator=(const Descs&) = delete;
  ~Descs() {
    if (x) api->cudnnDestroyTensorDescriptor(x);
    if (y) api->cudnnDestroyTensorDescriptor(y);
    if (w) api->cudnnDestroyFilterDescriptor(w);
    if (conv) api->cudnnDestroyConvolutionDescriptor(conv);
  }
};

// An image tensor [nb, c, sp...] (dims in cuDNN's N, C, spatial order) with packed strides of
// either layout.
cudnnStatus_t set_image(const CudnnApi* a, cudnnTensorDescriptor_t t, cudnnDataType_t dt,
                        int64_t nb, int64_t c, const int64_t* sp, int nsp, bool cl) {
  int dims[5], strides[5];
  dims[0] = static_cast<int>(nb);
  dims[1] = static_cast<int>(c);
  for (int d = 0; d < nsp; ++d) dims[2 + d] = static_cast<int>(sp[d]);
  int64_t acc = cl ? c : 1;
  for (int d = nsp - 1; d >= 0; --d) {
    strides[2 + d] = static_cast<int>(acc);
    acc *= sp[d];
  }
  if (cl) {
    strides[1] = 1;
  } else {
    strides[1] = static_cast<int>(acc);
    acc *= c;
  }
  strides[0] = static_cast<int>(acc);
  return a->cudnnSetTensorNdDescriptor(t, dt, nsp + 2, dims, strides);
}

cudnnStatus_t build(const CudnnApi* a, const CudnnConv& p, const Norm& n, int64_t nb,
                    cudnnDataType_t dt, Descs* d) {
  cudnnStatus_t s;
  if ((s = a->cudnnCreateTensorDescriptor(&d->x)) != CUDNN_STATUS_SUCCESS) return s;
  if ((s = a->cudnnCreateTensorDescriptor(&d->y)) != CUDNN_STATUS_SUCCESS) return s;
  if ((s = a->cudnnCreateFilterDescriptor(&d->w)) != CUDNN_STATUS_SUCCESS) return s;
  if ((s = a->cudnnCreateConvolutionDescriptor(&d->conv)) != CUDNN_STATUS_SUCCESS) return s;
  if ((s = set_image(a, d->x, dt, nb, p.C, n.in, n.nsp, p.cl)) != CUDNN_STATUS_SUCCESS) return s;
  if ((s = set_image(a, d->y, dt, nb, p.M, n.out, n.nsp, p.cl)) != CUDNN_STATUS_SUCCESS) return s;
  int fdims[5] = {static_cast<int>(p.M), static_cast<int>(p.C / p.G)};
  int pad[3], stride[3], dil[3];
  for (int i = 0; i < n.nsp; ++i) {
    fdims[2 + i] = static_cast<int>(n.ks[i]);
    pad[i] = static_cast<int>(n.pad[i]);
    stride[i] = static_cast<int>(n.stride[i]);
    dil[i] = static_cast<int>(n.dil[i]);
  }
  if ((s = a->cudnnSetFilterNdDescriptor(d->w, dt, p.cl ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                         n.nsp + 2, fdims)) != CUDNN_STATUS_SUCCESS)
    return s;
  const cudnnDataType_t compute = dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  if ((s = a->cudnnSetConvolutionNdDescriptor(d->conv, n.nsp, pad, stride, dil,
                                              CUDNN_CROSS_CORRELATION, compute)) !=
      CUDNN_STATUS_SUCCESS)
    return s;
  if ((s = a->cudnnSetConvolutionGroupCount(d->conv, static_cast<int>(p.G))) !=
      CUDNN_STATUS_SUCCESS)
    return s;
  return a->cudnnSetConvolutionMathType(d->conv, base_math(p.dtype));
}

// Keeps the usable entries of cuDNN's ranked list.
template <class Perf>
void collect(const Perf* perf, int count, int32_t dtype, std::vector<Candidate>* out) {
  const bool strict_fp32 = dtype == OAR_FLOAT32 && !allow_tf32();
  for (int i = 0; i < count; ++i) {
    const Perf& r = perf[i];
    if (r.status != CUDNN_STATUS_SUCCESS || r.memory > kWorkspaceLimit) continue;
    if (r.determinism != CUDNN_DETERMINISTIC && !nondeterministic_ok()) continue;
    if (r.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) continue;
    if (strict_fp32 && r.mathType == CUDNN_TENSOR_OP_MATH) continue;
    out->push_back({static_cast<int>(r.algo), strict_fp32 ? CUDNN_FMA_MATH : r.mathType,
                    r.memory});
  }
}

cudnnStatus_t choose(const CudnnApi* a, cudnnHandle_t h, Kind kind, const Descs& d,
                     int32_t dtype, std::vector<Candidate>* out) {
  int n = 0;
  cudnnStatus_t s;
  const bool find = benchmark();
  switch (kind) {
    case kForward: {
      cudnnConvolutionFwdAlgoPerf_t perf[kMaxAlgos];
      s = find ? a->cudnnFindConvolutionForwardAlgorithm(h, d.x, d.w, d.conv, d.y, kMaxAlgos, &n,
                                                         perf)
               : a->cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, kMaxAlgos,
                                                           &n, perf);
      if (s == CUDNN_STATUS_SUCCESS) collect(perf, n, dtype, out);
      return s;
    }
    case kBackwardData: {
      cudnnConvolutionBwdDataAlgoPerf_t perf[kMaxAlgos];
      s = find ? a->cudnnFindConvolutionBackwardDataAlgorithm(h, d.w, d.y, d.conv, d.x, kMaxAlgos,
                                                              &n, perf)
               : a->cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.y, d.conv, d.x,
                                                                kMaxAlgos, &n, perf);
      if (s == CUDNN_STATUS_SUCCESS) collect(perf, n, dtype, out);
      return s;
    }
    case kBackwardFilter: {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[kMaxAlgos];
      s = find ? a->cudnnFindConvolutionBackwardFilterAlgorithm(h, d.x, d.y, d.conv, d.w,
                                                                kMaxAlgos, &n, perf)
               : a->cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x, d.y, d.conv, d.w,
                                                                  kMaxAlgos, &n, perf);
      if (s == CUDNN_STATUS_SUCCESS) collect(perf, n, dtype, out);
      return s;
    }
  }
  return CUDNN_STATUS_BAD_PARAM;
}

// The workspace size cuDNN reports for the chosen algorithm (the ranked list's figure can be a
// heuristic's estimate).
cudnnStatus_t workspace_size(const CudnnApi* a, cudnnHandle_t h, Kind kind, const Descs& d,
                             int algo, size_t* bytes) {
  switch (kind) {
    case kForward:
      return a->cudnnGetConvolutionForwardWorkspaceSize(
          h, d.x, d.w, d.conv, d.y, static_cast<cudnnConvolutionFwdAlgo_t>(algo), bytes);
    case kBackwardData:
      return a->cudnnGetConvolutionBackwardDataWorkspaceSize(
          h, d.w, d.y, d.conv, d.x, static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), bytes);
    case kBackwardFilter:
      return a->cudnnGetConvolutionBackwardFilterWorkspaceSize(
          h, d.x, d.y, d.conv, d.w, static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), bytes);
  }
  return CUDNN_STATUS_BAD_PARAM;
}

// in0/in1/out: forward x, w -> y; backward-data dy, w -> dx; backward-filter x, dy -> dw.
cudnnStatus_t execute(const CudnnApi* a, cudnnHandle_t h, Kind kind, const Descs& d, int algo,
                      void* ws, size_t ws_bytes, const void* alpha, const void* beta,
                      const void* in0, const void* in1, void* out) {
  switch (kind) {
    case kForward:
      return a->cudnnConvolutionForward(h, alpha, d.x, in0, d.w, in1, d.conv,
                                        static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws,
                                        ws_bytes, beta, d.y, out);
    case kBackwardData:
      return a->cudnnConvolutionBackwardData(h, alpha, d.w, in1, d.y, in0, d.conv,
                                             static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), ws,
                                             ws_bytes, beta, d.x, out);
    case kBackwardFilter:
      return a->cudnnConvolutionBackwardFilter(h, alpha, d.x, in0, d.y, in1, d.conv,
                                               static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo),
                                               ws, ws_bytes, beta, d.w, out);
  }
  return CUDNN_STATUS_BAD_PARAM;
}

void log_failure(const CudnnApi* a, const OarKernelContext* ctx, Kind kind, const char* what,
                 cudnnStatus_t s) {
  if (cudnn_verbose())
    std::fprintf(stderr, "oar_cuda: %s on gpu:%d: cuDNN %s: %s failed (%s); using im2col\n",
                 ctx->op, ctx->device_id, kKindName[kind], what, a->cudnnGetErrorString(s));
}

// The handle of (device, stream), bound to the stream; nullptr when cuDNN cannot start there.
cudnnHandle_t handle_for(const CudnnApi* a, State& st, const OarKernelContext* ctx,
                         cudaStream_t stream) {
  if (st.broken_devices.count(ctx->device_id)) return nullptr;
  cudnnHandle_t& h = st.handles[{ctx->device_id, stream}];
  if (!h) {
    const cudnnStatus_t s = a->cudnnCreate(&h);
    if (s != CUDNN_STATUS_SUCCESS) {
      h = nullptr;
      st.broken_devices.insert(ctx->device_id);
      cudaGetLastError();
      if (cudnn_verbose())
        std::fprintf(stderr, "oar_cuda: cudnnCreate on gpu:%d failed (%s); convolutions there "
                     "use im2col\n", ctx->device_id, a->cudnnGetErrorString(s));
      return nullptr;
    }
  }
  if (a->cudnnSetStream(h, stream) != CUDNN_STATUS_SUCCESS) return nullptr;
  return h;
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

bool run(const OarKernelContext* ctx, cudaStream_t stream, Kind kind, const CudnnConv& p,
         const void* in0, const void* in1, void* out, bool accumulate) {
  const CudnnApi* a = cudnn_api();
  if (!a) return false;
  Norm n;
  cudnnDataType_t dt;
  if (!data_type(p.dtype, &dt) || !normalize(p, &n)) return false;
  if (!aligned16(in0) || !aligned16(in1) || !aligned16(out)) return false;
  // Images per call within 32-bit element counts.
  const int64_t per = n.per_in > n.per_out ? n.per_in : n.per_out;
  int64_t nb = INT_MAX / per;
  if (nb < 1) return false;
  if (nb > p.N) nb = p.N;
  if (kind == kBackwardFilter && nb < p.N && p.dtype != OAR_FLOAT32 && p.dtype != OAR_FLOAT64)
    return false;
  const int64_t es = static_cast<int64_t>(dtype_size(p.dtype));

  State& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  cudnnHandle_t h = handle_for(a, st, ctx, stream);
  if (!h) return false;
  for (int64_t n0 = 0; n0 < p.N; n0 += nb) {
    const int64_t nbc = p.N - n0 < nb ? p.N - n0 : nb;
    std::vector<int64_t> key = {kind, ctx->device_id, p.dtype, p.cl, n.nsp, nbc, p.C, p.M, p.G};
    for (int i = 0; i < n.nsp; ++i) {
      const int64_t v[] = {n.in[i], n.out[i], n.ks[i], n.stride[i], n.pad[i], n.dil[i]};
      key.insert(key.end(), v, v + 6);
    }
    Choice& c = st.choices[key];
    if (c.resolved && c.next >= c.list.size()) return false;  // cuDNN failed this shape before
    Descs d(a);
    cudnnStatus_t s = build(a, p, n, nbc, dt, &d);
    if (s != CUDNN_STATUS_SUCCESS) {
      c.resolved = true;
      log_failure(a, ctx, kind, "describing the convolution", s);
      return false;
    }
    if (!c.resolved) {
      c.resolved = true;
      s = choose(a, h, kind, d, p.dtype, &c.list);
      cudaGetLastError();
      if (s != CUDNN_STATUS_SUCCESS || c.list.empty()) {
        c.list.clear();
        if (s != CUDNN_STATUS_SUCCESS) log_failure(a, ctx, kind, "choosing an algorithm", s);
        else if (cudnn_verbose())
          std::fprintf(stderr, "oar_cuda: %s on gpu:%d: cuDNN %s: no suitable algorithm; using "
                       "im2col\n", ctx->op, ctx->device_id, kKindName[kind]);
        return false;
      }
      if (cudnn_verbose())
        std::fprintf(stderr, "oar_cuda: %s on gpu:%d: cuDNN %s %s: algorithm %d (math %d, "
                     "workspace %zu bytes) of %zu candidates\n", ctx->op, ctx->device_id,
                     kKindName[kind], dtype_name(p.dtype), c.list[0].algo,
                     static_cast<int>(c.list[0].math), c.list[0].memory, c.list.size());
    }
    const Candidate cand = c.list[c.next];
    size_t ws_bytes = 0;
    s = a->cudnnSetConvolutionMathType(d.conv, cand.math);
    if (s == CUDNN_STATUS_SUCCESS) s = workspace_size(a, h, kind, d, cand.algo, &ws_bytes);
    if (s != CUDNN_STATUS_SUCCESS) {
      ++c.next;
      log_failure(a, ctx, kind, "preparing the algorithm", s);
      return false;
    }
    void* ws = nullptr;
    if (ws_bytes > 0 && scratch_alloc(ctx->device_id, &ws, ws_bytes, stream) != cudaSuccess) {
      cudaGetLastError();  // out of memory now, perhaps not next time: nothing remembered
      if (cudnn_verbose())
        std::fprintf(stderr, "oar_cuda: %s on gpu:%d: no memory for cuDNN's %zu-byte workspace; "
                     "using im2col\n", ctx->op, ctx->device_id, ws_bytes);
      return false;
    }
    const bool beta_one = kind == kForward ? accumulate : (kind == kBackwardFilter && n0 > 0);
    const double alpha64 = 1.0, beta64 = beta_one ? 1.0 : 0.0;
    const float alpha32 = 1.0f, beta32 = beta_one ? 1.0f : 0.0f;
    const bool dbl = dt == CUDNN_DATA_DOUBLE;
    const void* alpha = dbl ? static_cast<const void*>(&alpha64) : &alpha32;
    const void* beta = dbl ? static_cast<const void*>(&beta64) : &beta32;
    // Chunk pointers: images are outermost in both layouts; dw is shared by all chunks.
    const int64_t off_x = n0 * n.per_in * es, off_y = n0 * n.per_out * es;
    const char* i0 = static_cast<const char*>(in0);
    const char* i1 = static_cast<const char*>(in1);
    char* o = static_cast<char*>(out);
    switch (kind) {
      case kForward: i0 += off_x; o += off_y; break;
      case kBackwardData: i0 += off_y; o += off_x; break;
      case kBackwardFilter: i0 += off_x; i1 += off_y; break;
    }
    s = execute(a, h, kind, d, cand.algo, ws, ws_bytes, alpha, beta, i0, i1, o);
    if (ws) scratch_free(ws, stream);
    if (s != CUDNN_STATUS_SUCCESS) {
      cudaGetLastError();
      ++c.next;  // this shape tries the next candidate next time
      log_failure(a, ctx, kind, "running the convolution", s);
      return false;
    }
  }
  return true;
}

}  // namespace

bool cudnn_conv_available() { return cudnn_api() != nullptr; }

bool cudnn_conv_forward(const OarKernelContext* ctx, cudaStream_t stream, const CudnnConv& p,
                        const void* x, const void* w, void* y, bool accumulate) {
  return run(ctx, stream, kForward, p, x, w, y, accumulate);
}

bool cudnn_conv_backward_data(const OarKernelContext* ctx, cudaStream_t stream,
                              const CudnnConv& p, const void* dy, const void* w, void* dx) {
  return run(ctx, stream, kBackwardData, p, dy, w, dx, false);
}

bool cudnn_conv_backward_filter(const OarKernelContext* ctx, cudaStream_t stream,
                                const CudnnConv& p, const void* x, const void* dy, void* dw) {
  return run(ctx, stream, kBackwardFilter, p, x, dy, dw, false);
}

}  // namespace oar_cuda

#else  // built without cuDNN's headers: always im2col

namespace oar_cuda {

bool cudnn_conv_available() { return false; }
bool cudnn_conv_forward(const OarKernelContext*, cudaStream_t, const CudnnConv&, const void*,
                        const void*, void*, bool) {
  return false;
}
bool cudnn_conv_backward_data(const OarKernelContext*, cudaStream_t, const CudnnConv&,
                              const void*, const void*, void*) {
  return false;
}
bool cudnn_conv_backward_filter(const OarKernelContext*, cudaStream_t, const CudnnConv&,
                                const void*, const void*, void*) {
  return false;
}

}  // namespace oar_cuda

#endif
