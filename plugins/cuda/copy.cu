// Ops that move values without arithmetic: cast, assign, copy_ (into a strided destination),
// full and where, for every real dtype oar stores (StorageTypes, dtype.cuh).
//
// Contract: cast converts inputs[0] to outputs[0]'s dtype (oar's conversion rules, dtype.cuh);
// assign is a same-dtype copy; copy_ broadcasts and casts inputs[0] into outputs[0], which may be
// any view (the one kernel whose output is not contiguous; overlapping source and destination
// are not supported); full fills outputs[0] with the Scalar fill_value in its dtype; where picks
// x where condition (bool) holds, else y, all three broadcast to out. Same-dtype contiguous copies
// of equal shape are a cudaMemcpyAsync; same-dtype copies between layouts contiguous along
// different dims (transposes) take the tiled kernel of transpose.cu.
#include "plugins/cuda/compact.h"
#include "plugins/cuda/elementwise.cuh"
#include "plugins/cuda/kernels.h"
#include "plugins/cuda/transpose.h"

namespace oar_cuda {
namespace {

template <class D, class S>
struct CastFn {
  __device__ D operator()(S v) const { return convert<D>(v); }
};

template <class T>
struct FillFn {
  T value;
  __device__ T operator()() const { return value; }
};

template <class T>
struct WhereFn {
  __device__ T operator()(bool c, T a, T b) const { return c ? a : b; }
};

// Same shape, ignoring leading size-1 dims.
bool same_shape(const OarTensor& a, const OarTensor& b) {
  int da = 0, db = 0;
  while (da < a.ndim && a.ndim - da > b.ndim && a.shape[da] == 1) ++da;
  while (db < b.ndim && b.ndim - db > a.ndim && b.shape[db] == 1) ++db;
  if (a.ndim - da != b.ndim - db) return false;
  for (int i = 0; i < a.ndim - da; ++i)
    if (a.shape[da + i] != b.shape[db + i]) return false;
  return true;
}

// inputs[0] -> outputs[0], converting to the output's dtype (cast, assign and copy_).
OarStatus convert_copy(const OarKernelContext* ctx, bool same_dtype_only) {
  if (!expect_io(ctx, 1, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& out = ctx->outputs[0];
  if (same_dtype_only && x.dtype != out.dtype)
    return fail(ctx, "%s on gpu: output dtype %s differs from the input's %s", ctx->op,
                dtype_name(out.dtype), dtype_name(x.dtype));
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (out.numel == 0) return OAR_STATUS_OK;
  if (x.dtype == out.dtype && x.numel == out.numel && is_contiguous(x) && is_contiguous(out) &&
      same_shape(x, out) && dtype_size(x.dtype) != 0) {
    if (x.data == out.data) return OAR_STATUS_OK;
    const cudaError_t err = cudaMemcpyAsync(out.data, x.data, out.numel * dtype_size(x.dtype),
                                            cudaMemcpyDeviceToDevice, stream);
    return err == cudaSuccess ? OAR_STATUS_OK : cuda_fail(ctx, err, "cudaMemcpyAsync");
  }
  OarStatus st = OAR_STATUS_OK;
  if (x.dtype == out.dtype && try_transpose_copy(ctx, stream, x, out, &st)) return st;
  const OarTensor* const ins[2] = {&x, nullptr};
  bool found_src = false;
  const bool found = dispatch(StorageTypes{}, out.dtype, [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    found_src = dispatch(StorageTypes{}, x.dtype, [&](auto stag) {
      using S = typename decltype(stag)::type;
      st = run_elementwise<D, S>(ctx, stream, CastFn<D, S>{}, out, ins);
    });
  });
  if (!found) return unsupported(ctx, out.dtype);
  return found_src ? st : unsupported(ctx, x.dtype);
}

}  // namespace

OarStatus k_cast(const OarKernelContext* ctx) { return convert_copy(ctx, false); }
OarStatus k_assign(const OarKernelContext* ctx) { return convert_copy(ctx, true); }
OarStatus k_copy_(const OarKernelContext* ctx) { return convert_copy(ctx, false); }

OarStatus k_full(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 0, 1)) return OAR_STATUS_ERROR;
  const OarTensor& out = ctx->outputs[0];
  double fvalue = 0.0;
  int64_t ivalue = 0;
  const bool is_int = attr_scalar_int(ctx, "fill_value", &ivalue);
  if (!is_int && !attr_scalar(ctx, "fill_value", &fvalue))
    return fail(ctx, "full on gpu needs a numeric fill_value");
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  const OarTensor* const ins[1] = {nullptr};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(StorageTypes{}, out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // Integer Scalars convert exactly (int64 fill values above 2^53 stay exact).
    const T v = is_int ? convert<T>(ivalue) : convert<T>(fvalue);
    st = run_elementwise<T>(ctx, stream, FillFn<T>{v}, out, ins);
  });
  return found ? st : unsupported(ctx, out.dtype);
}

OarStatus k_where(const OarKernelContext* ctx) {
  if (!expect_io(ctx, 3, 1)) return OAR_STATUS_ERROR;
  const OarTensor& cond = ctx->inputs[0];
  const OarTensor& x = ctx->inputs[1];
  const OarTensor& y = ctx->inputs[2];
  const OarTensor& out = ctx->outputs[0];
  if (cond.dtype != OAR_BOOL)
    return fail(ctx, "where on gpu needs a bool condition, got %s", dtype_name(cond.dtype));
  if (x.dtype != out.dtype || y.dtype != out.dtype)
    return fail(ctx, "where on gpu needs x, y and out of one dtype, got %s, %s and %s",
                dtype_name(x.dtype), dtype_name(y.dtype), dtype_name(out.dtype));
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  const OarTensor* const ins[4] = {&cond, &x, &y, nullptr};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(StorageTypes{}, out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = run_elementwise<T, bool, T, T>(ctx, stream, WhereFn<T>{}, out, ins);
  });
  return found ? st : unsupported(ctx, out.dtype);
}

OarStatus copy_to_contiguous(const OarKernelContext* ctx, cudaStream_t stream,
                             const OarTensor& src, void* dst) {
  if (src.numel == 0) return OAR_STATUS_OK;
  int64_t strides[64];
  int64_t expect = 1;
  for (int32_t d = src.ndim - 1; d >= 0; --d) {
    strides[d] = expect;
    expect *= src.shape[d];
  }
  OarTensor out = src;
  out.data = dst;
  out.strides = strides;
  const OarTensor* const ins[2] = {&src, nullptr};
  OarStatus st = OAR_STATUS_OK;
  const bool found = dispatch(StorageTypes{}, src.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    st = run_elementwise<T, T>(ctx, stream, CastFn<T, T>{}, out, ins);
  });
  return found ? st : unsupported(ctx, src.dtype);
}

}  // namespace oar_cuda
