// Pooling over 1 to 6 spatial dims: pool_max (with its int32 argmax mask), pool_avg, and the
// gradients pool_avg_grad, pool_max_grad and pool_max_gather (the adjoint of pool_max_grad).
//
// Contract (plugins/custom_cpu/pool.cc is the reference; windows are oar's CPU kernels'):
// tensors are [N, C, S...] or, with channel_last, [N, S..., C]; operands may be any strided
// views, outputs are contiguous. Output o covers [o * stride - pad_before, + kernel) clipped to
// the input or, adaptive, [floor(o * in / out), ceil((o + 1) * in / out)); ceil_mode only
// changed the output's extent, already in its shape. An average divides by the clipped window's
// size (exclusive, and always when adaptive) or by the kernel's volume, summing in double. A max
// over an empty window is -FLT_MAX with mask -1; the mask holds the flat row-major spatial
// position of the maximum; NaN wins over numbers and the first maximum is kept. pool_max_grad
// adds out_grad[n, c, o] into out[n, c, mask[o]] (masks outside the input are skipped);
// pool_max_gather reads x[n, c, mask[o]] (0 where the mask is outside).
//
// How: one thread per output element. pool_avg_grad gathers (each input element walks the
// outputs whose windows hold it, in the reference's order: deterministic); pool_max_grad
// scatters with double atomics into a double buffer (the output itself for float64), since the
// mask alone does not say which outputs read an input.
#include <cfloat>

#include "plugins/cuda/shape.cuh"

namespace oar_cuda {
namespace {

constexpr int kPoolDims = 6;
constexpr int kThreads = 256;

// Where n, c and the spatial dims sit in a tensor, with its strides.
struct ImageView {
  int64_t N = 0, C = 0;
  int64_t n_stride = 0, c_stride = 0;
  int64_t sp[kPoolDims] = {};         // spatial extents
  int64_t sp_stride[kPoolDims] = {};
  int64_t positions = 1;              // product of the spatial extents
};

struct PoolArgs {
  int32_t nd;          // spatial dims
  int32_t c_dim, sp0;  // dim of C and of the first spatial dim in the tensors
  bool adaptive;
  bool by_window;      // pool_avg: divide by the clipped window's size
  IndexSpace space;    // the tensor the threads walk (one element each)
  ImageView in, out;   // the input side and the pooled side
  int64_t kernel[kPoolDims], stride[kPoolDims], pad[kPoolDims];
  int64_t kernel_volume;
  Divider in_sp[kPoolDims];  // pool_max_gather: flat position -> coordinates

  // The window [lo, hi) of output coordinate o along spatial dim d.
  __device__ __forceinline__ void window(int d, int64_t o, int64_t& lo, int64_t& hi) const {
    const int64_t I = in.sp[d], O = out.sp[d];
    if (adaptive) {
      lo = o * I / O;
      hi = ((o + 1) * I + O - 1) / O;
    } else {
      lo = o * stride[d] - pad[d];
      hi = lo + kernel[d] < I ? lo + kernel[d] : I;
      lo = lo > 0 ? lo : 0;
      hi = hi > lo ? hi : lo;  // a window past the input (ceil_mode) is empty
    }
  }
  // The outputs [lo, hi) along spatial dim d whose windows hold input coordinate i.
  __device__ __forceinline__ void readers(int d, int64_t i, int64_t& lo, int64_t& hi) const {
    const int64_t I = in.sp[d], O = out.sp[d];
    if (adaptive) {
      lo = i * O / I;
      hi = ((i + 1) * O + I - 1) / I;
    } else {
      const int64_t first = i + pad[d] - kernel[d] + 1;  // o * stride > i + pad - kernel
      lo = first <= 0 ? 0 : (first + stride[d] - 1) / stride[d];
      hi = (i + pad[d]) / stride[d] + 1;                  // o * stride <= i + pad
    }
    hi = hi < O ? hi : O;
    lo = lo < hi ? lo : hi;
  }
  // Decomposes the walked tensor's linear index k: n, c and spatial coordinates.
  __device__ __forceinline__ void split(int64_t k, int64_t& n, int64_t& c, int64_t* sp) const {
    int64_t coord[kPoolDims + 2];
    space.coords(k, coord);
    n = coord[0];
    c = coord[c_dim];
#pragma unroll
    for (int d = 0; d < kPoolDims; ++d)
      if (d < nd) sp[d] = coord[sp0 + d];
  }
};

bool image_view(const OarTensor& t, bool channel_last, ImageView* v) {
  if (t.ndim < 3 || t.ndim > kPoolDims + 2) return false;
  const int nd = t.ndim - 2, c_dim = channel_last ? t.ndim - 1 : 1, sp0 = channel_last ? 1 : 2;
  v->N = t.shape[0];
  v->C = t.shape[c_dim];
  v->n_stride = t.strides[0];
  v->c_stride = t.strides[c_dim];
  v->positions = 1;
  for (int d = 0; d < nd; ++d) {
    v->sp[d] = t.shape[sp0 + d];
    v->sp_stride[d] = t.strides[sp0 + d];
    v->positions *= v->sp[d];
  }
  return true;
}

// The int array attribute `name` with exactly n entries into v.
bool ints_n(const OarKernelContext* ctx, const char* name, int n, int64_t* v) {
  const OarAttr* a = oar_find_attr(ctx, name);
  if (!a) return false;
  if ((a->kind == OAR_ATTR_INT || a->kind == OAR_ATTR_SCALAR_INT) && n == 1) {
    v[0] = a->i;
    return true;
  }
  if (a->kind != OAR_ATTR_INT_ARRAY || a->count != n) return false;
  for (int i = 0; i < n; ++i) v[i] = a->ints[i];
  return true;
}

// Fills the geometry of in (input side) and out (pooled side): views, windows, the walked space.
OarStatus pool_args(const OarKernelContext* ctx, const OarTensor& in, const OarTensor& out,
                    const OarTensor& walked, bool with_windows, PoolArgs* a) {
  const bool cl = attr_bool(ctx, "channel_last", false);
  if (!image_view(in, cl, &a->in) || !image_view(out, cl, &a->out) || in.ndim != out.ndim)
    return fail(ctx, "%s on gpu: tensors must be [N, C, S...] with 1 to %d spatial dims of one "
                "count", ctx->op, kPoolDims);
  if (a->in.N != a->out.N || a->in.C != a->out.C)
    return fail(ctx, "%s on gpu: batch or channel extents do not match", ctx->op);
  const int nd = in.ndim - 2;
  a->nd = nd;
  a->c_dim = cl ? in.ndim - 1 : 1;
  a->sp0 = cl ? 1 : 2;
  a->adaptive = attr_bool(ctx, "adaptive", false);
  a->by_window = attr_bool(ctx, "exclusive", true) || a->adaptive;
  a->kernel_volume = 1;
  a->space.init(walked.shape, walked.ndim);
  for (int d = 0; d < nd; ++d) {
    a->in_sp[d] = Divider(a->in.sp[d]);
    a->kernel[d] = 1;
    a->stride[d] = 1;
    a->pad[d] = 0;
  }
  if (!with_windows) return OAR_STATUS_OK;
  int64_t padding[2 * kPoolDims];
  if (!ints_n(ctx, "kernel_size", nd, a->kernel))
    return fail(ctx, "%s on gpu: kernel_size needs %d entries", ctx->op, nd);
  if (!a->adaptive) {
    if (!ints_n(ctx, "stride", nd, a->stride))
      return fail(ctx, "%s on gpu: stride needs %d entries", ctx->op, nd);
    if (!ints_n(ctx, "padding", 2 * nd, padding))
      return fail(ctx, "%s on gpu: padding needs %d entries", ctx->op, 2 * nd);
  }
  for (int d = 0; d < nd; ++d) {
    if (a->kernel[d] < 1 || (!a->adaptive && a->stride[d] < 1))
      return fail(ctx, "%s on gpu: kernel sizes and strides must be positive", ctx->op);
    a->kernel_volume *= a->kernel[d];
    if (!a->adaptive) a->pad[d] = padding[2 * d];
  }
  return OAR_STATUS_OK;
}

// Offset of spatial coordinates in a view.
__device__ __forceinline__ int64_t sp_offset(const ImageView& v, const int64_t* at, int nd) {
  int64_t off = 0;
#pragma unroll
  for (int d = 0; d < kPoolDims; ++d)
    if (d < nd) off += at[d] * v.sp_stride[d];
  return off;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    pool_max_kernel(const T* __restrict__ x, T* __restrict__ y, int32_t* __restrict__ mask,
                    int64_t total, PoolArgs a) {
  using C = compute_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    int64_t n, c, oc[kPoolDims], lo[kPoolDims], hi[kPoolDims], at[kPoolDims];
    a.split(k, n, c, oc);
    bool empty = false;
    for (int d = 0; d < a.nd; ++d) {
      a.window(d, oc[d], lo[d], hi[d]);
      empty |= lo[d] >= hi[d];
      at[d] = lo[d];
    }
    C best = static_cast<C>(-FLT_MAX);
    int64_t arg = -1;
    if (!empty) {
      const T* base = x + n * a.in.n_stride + c * a.in.c_stride;
      while (true) {
        int64_t pos = 0;
        for (int d = 0; d < a.nd; ++d) pos = pos * a.in.sp[d] + at[d];
        const C v = to_compute(base[sp_offset(a.in, at, a.nd)]);
        if (arg < 0 || v > best || (v != v && best == best)) {
          best = v;
          arg = pos;
        }
        int d = a.nd - 1;
        for (; d >= 0; --d) {
          if (++at[d] < hi[d]) break;
          at[d] = lo[d];
        }
        if (d < 0) break;
      }
    }
    y[k] = convert<T>(best);
    mask[k] = static_cast<int32_t>(arg);
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    pool_avg_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t total, PoolArgs a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    int64_t n, c, oc[kPoolDims], lo[kPoolDims], hi[kPoolDims], at[kPoolDims];
    a.split(k, n, c, oc);
    bool empty = false;
    int64_t size = 1;
    for (int d = 0; d < a.nd; ++d) {
      a.window(d, oc[d], lo[d], hi[d]);
      empty |= lo[d] >= hi[d];
      size *= hi[d] - lo[d];
      at[d] = lo[d];
    }
    double sum = 0;
    if (!empty) {
      const T* base = x + n * a.in.n_stride + c * a.in.c_stride;
      while (true) {
        sum += static_cast<double>(to_compute(base[sp_offset(a.in, at, a.nd)]));
        int d = a.nd - 1;
        for (; d >= 0; --d) {
          if (++at[d] < hi[d]) break;
          at[d] = lo[d];
        }
        if (d < 0) break;
      }
    }
    const double div = static_cast<double>(a.by_window ? size : a.kernel_volume);
    y[k] = convert<T>(sum / div);
  }
}

// One thread per input element: the sum over the outputs whose windows hold it, in ascending
// output order (the reference's order of accumulation).
template <class T>
__global__ void __launch_bounds__(kThreads)
    pool_avg_grad_kernel(const T* __restrict__ dy, T* __restrict__ dx, int64_t total, PoolArgs a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    int64_t n, c, ic[kPoolDims], lo[kPoolDims], hi[kPoolDims], at[kPoolDims];
    a.split(k, n, c, ic);
    bool empty = false;
    for (int d = 0; d < a.nd; ++d) {
      a.readers(d, ic[d], lo[d], hi[d]);
      empty |= lo[d] >= hi[d];
      at[d] = lo[d];
    }
    double acc = 0;
    if (!empty) {
      const T* base = dy + n * a.out.n_stride + c * a.out.c_stride;
      while (true) {
        int64_t div = a.kernel_volume;
        if (a.by_window) {
          div = 1;
          for (int d = 0; d < a.nd; ++d) {
            int64_t wl, wh;
            a.window(d, at[d], wl, wh);
            div *= wh - wl;
          }
        }
        acc += static_cast<double>(to_compute(base[sp_offset(a.out, at, a.nd)])) /
               static_cast<double>(div);
        int d = a.nd - 1;
        for (; d >= 0; --d) {
          if (++at[d] < hi[d]) break;
          at[d] = lo[d];
        }
        if (d < 0) break;
      }
    }
    dx[k] = convert<T>(acc);
  }
}

// Strides of out_grad and mask for pool_max_grad / pool_max_gather (same shape).
struct MaskArgs {
  int64_t g_stride[kPoolDims + 2];
  int64_t m_stride[kPoolDims + 2];
};

template <class T>
__global__ void __launch_bounds__(kThreads)
    pool_max_grad_kernel(const T* __restrict__ dy, const int32_t* __restrict__ mask,
                         double* __restrict__ acc, int64_t total, PoolArgs a, MaskArgs m) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int nd = a.nd + 2;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    int64_t coord[kPoolDims + 2];
    a.space.coords(k, coord);
    int64_t goff = 0, moff = 0;
    for (int d = 0; d < nd; ++d) {
      goff += coord[d] * m.g_stride[d];
      moff += coord[d] * m.m_stride[d];
    }
    const int64_t i = mask[moff];
    if (i < 0 || i >= a.in.positions) continue;
    const int64_t n = coord[0], c = coord[a.c_dim];
    // out is contiguous: channel-first [N, C, I] or channel-last [N, I, C].
    const int64_t dst = a.c_dim == 1 ? (n * a.in.C + c) * a.in.positions + i
                                     : (n * a.in.positions + i) * a.in.C + c;
    atomicAdd(acc + dst, static_cast<double>(to_compute(dy[goff])));
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    from_double_kernel(const double* __restrict__ acc, T* __restrict__ out, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step)
    out[k] = convert<T>(acc[k]);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    pool_max_gather_kernel(const T* __restrict__ x, const int32_t* __restrict__ mask,
                           T* __restrict__ out, int64_t total, PoolArgs a, MaskArgs m) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int nd = a.nd + 2;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    int64_t coord[kPoolDims + 2];
    a.space.coords(k, coord);
    int64_t moff = 0;
    for (int d = 0; d < nd; ++d) moff += coord[d] * m.m_stride[d];
    int64_t i = mask[moff];
    if (i < 0 || i >= a.in.positions) {
      out[k] = convert<T>(0.0f);
      continue;
    }
    int64_t off = coord[0] * a.in.n_stride + coord[a.c_dim] * a.in.c_stride;
    for (int d = a.nd - 1; d >= 0; --d) {
      const int64_t q = a.in_sp[d].div(i, a.in.positions <= kMaxChunk);
      off += (i - q * a.in.sp[d]) * a.in.sp_stride[d];
      i = q;
    }
    out[k] = x[off];
  }
}

OarStatus check_out(const OarKernelContext* ctx, const OarTensor& out, int32_t dtype) {
  if (out.dtype != dtype)
    return fail(ctx, "%s on gpu: output dtype %s differs from the input's %s", ctx->op,
                dtype_name(out.dtype), dtype_name(dtype));
  if (!is_contiguous(out)) return fail(ctx, "%s on gpu: out must be contiguous", ctx->op);
  return OAR_STATUS_OK;
}

OarStatus check_mask(const OarKernelContext* ctx, const OarTensor& mask, const OarTensor& like) {
  if (mask.dtype != OAR_INT32)
    return fail(ctx, "%s on gpu: mask must be int32, got %s", ctx->op, dtype_name(mask.dtype));
  bool same = mask.ndim == like.ndim;
  for (int d = 0; same && d < mask.ndim; ++d) same = mask.shape[d] == like.shape[d];
  if (!same) return fail(ctx, "%s on gpu: mask's shape differs", ctx->op);
  return OAR_STATUS_OK;
}

template <class Launch>
OarStatus float_dispatch(const OarKernelContext* ctx, int32_t dtype, Launch&& launch) {
  const bool found = dispatch(FloatTypes{}, dtype, launch);
  if (!found) return unsupported(ctx, dtype);
  return check_launch(ctx, ctx->op);
}

}  // namespace

OarStatus k_pool_max(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 2)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  const OarTensor& mask = ctx->outputs[1];
  if (OarStatus st = check_out(ctx, out, x.dtype)) return st;
  if (OarStatus st = check_mask(ctx, mask, out)) return st;
  if (!is_contiguous(mask)) return fail(ctx, "pool_max on gpu: mask must be contiguous");
  PoolArgs a;
  if (OarStatus st = pool_args(ctx, x, out, out, true, &a)) return st;
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  return float_dispatch(ctx, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    pool_max_kernel<T><<<grid_for(ctx->device_id, out.numel), kThreads, 0, stream>>>(
        static_cast<const T*>(x.data), static_cast<T*>(out.data),
        static_cast<int32_t*>(mask.data), out.numel, a);
  });
}

OarStatus k_pool_avg(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (OarStatus st = check_out(ctx, out, x.dtype)) return st;
  PoolArgs a;
  if (OarStatus st = pool_args(ctx, x, out, out, true, &a)) return st;
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  return float_dispatch(ctx, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    pool_avg_kernel<T><<<grid_for(ctx->device_id, out.numel), kThreads, 0, stream>>>(
        static_cast<const T*>(x.data), static_cast<T*>(out.data), out.numel, a);
  });
}

OarStatus k_pool_avg_grad(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& dy = ctx->inputs[0];
  const OarTensor& dx = ctx->outputs[0];
  if (OarStatus st = check_out(ctx, dx, dy.dtype)) return st;
  PoolArgs a;
  if (OarStatus st = pool_args(ctx, dx, dy, dx, true, &a)) return st;
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (dx.numel == 0) return OAR_STATUS_OK;
  return float_dispatch(ctx, dy.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    pool_avg_grad_kernel<T><<<grid_for(ctx->device_id, dx.numel), kThreads, 0, stream>>>(
        static_cast<const T*>(dy.data), static_cast<T*>(dx.data), dx.numel, a);
  });
}

OarStatus k_pool_max_grad(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  const OarTensor& dy = ctx->inputs[0];
  const OarTensor& mask = ctx->inputs[1];
  const OarTensor& dx = ctx->outputs[0];
  if (OarStatus st = check_out(ctx, dx, dy.dtype)) return st;
  if (OarStatus st = check_mask(ctx, mask, dy)) return st;
  PoolArgs a;
  if (OarStatus st = pool_args(ctx, dx, dy, dy, false, &a)) return st;
  MaskArgs m;
  for (int d = 0; d < dy.ndim; ++d) {
    m.g_stride[d] = dy.strides[d];
    m.m_stride[d] = mask.strides[d];
  }
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (dx.numel == 0) return OAR_STATUS_OK;
  if (dx.dtype != OAR_FLOAT32 && dx.dtype != OAR_FLOAT64 && dx.dtype != OAR_FLOAT16 &&
      dx.dtype != OAR_BFLOAT16)
    return unsupported(ctx, dx.dtype);
  // Sums in double: into dx itself for float64, else into scratch converted afterwards.
  void* acc = dx.data;
  if (dx.dtype != OAR_FLOAT64) {
    const cudaError_t err = scratch_alloc(ctx->device_id, &acc, sizeof(double) * dx.numel, stream);
    if (err != cudaSuccess) return cuda_fail(ctx, err, "cudaMallocAsync (pool_max_grad)");
  }
  cudaError_t err = cudaMemsetAsync(acc, 0, sizeof(double) * dx.numel, stream);
  OarStatus st = err == cudaSuccess ? OAR_STATUS_OK : cuda_fail(ctx, err, "cudaMemsetAsync");
  if (st == OAR_STATUS_OK && dy.numel > 0)
    st = float_dispatch(ctx, dy.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      pool_max_grad_kernel<T><<<grid_for(ctx->device_id, dy.numel), kThreads, 0, stream>>>(
          static_cast<const T*>(dy.data), static_cast<const int32_t*>(mask.data),
          static_cast<double*>(acc), dy.numel, a, m);
    });
  if (st == OAR_STATUS_OK && dx.dtype != OAR_FLOAT64)
    st = float_dispatch(ctx, dx.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, double>)
        from_double_kernel<T><<<grid_for(ctx->device_id, dx.numel), kThreads, 0, stream>>>(
            static_cast<const double*>(acc), static_cast<T*>(dx.data), dx.numel);
    });
  if (acc != dx.data) scratch_free(acc, stream);
  return st;
}

OarStatus k_pool_max_gather(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& mask = ctx->inputs[1];
  const OarTensor& out = ctx->outputs[0];
  if (OarStatus st = check_out(ctx, out, x.dtype)) return st;
  if (OarStatus st = check_mask(ctx, mask, out)) return st;
  PoolArgs a;
  if (OarStatus st = pool_args(ctx, x, out, out, false, &a)) return st;
  MaskArgs m;
  for (int d = 0; d < out.ndim; ++d) {
    m.g_stride[d] = 0;
    m.m_stride[d] = mask.strides[d];
  }
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  return float_dispatch(ctx, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    pool_max_gather_kernel<T><<<grid_for(ctx->device_id, out.numel), kThreads, 0, stream>>>(
        static_cast<const T*>(x.data), static_cast<const int32_t*>(mask.data),
        static_cast<T*>(out.data), out.numel, a, m);
  });
}

}  // namespace oar_cuda
