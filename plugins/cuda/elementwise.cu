// Binary elementwise ops: arithmetic (add, subtract, multiply, elementwise_div, maximum, minimum,
// elementwise_pow) and comparisons (equal ... less_equal, bool output), x and y broadcast to out.
//
// Contract: x and y have the same dtype (oar promotes first); arithmetic writes that dtype,
// comparisons write bool. The 16-bit floats compute in float. As oar's CPU kernels: maximum and
// minimum return NaN when either side is NaN; integer elementwise_pow is exact by repeated
// squaring (negative exponents give 0 unless the base is +-1); bool add/multiply/maximum/minimum
// are or/and/or/and. Integer division truncates; division by zero is not checked (the GPU cannot
// raise without a sync): its integer result is unspecified.
#include <cmath>

#include "plugins/cuda/elementwise.cuh"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

struct AddOp { template <class C> __device__ C operator()(C a, C b) const { return a + b; } };
struct SubOp { template <class C> __device__ C operator()(C a, C b) const { return a - b; } };
struct MulOp { template <class C> __device__ C operator()(C a, C b) const { return a * b; } };
struct DivOp { template <class C> __device__ C operator()(C a, C b) const { return a / b; } };

struct MaxOp {
  template <class C> __device__ C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>)
      if (a != a || b != b) return a + b;  // NaN wins
    return a > b ? a : b;
  }
};
struct MinOp {
  template <class C> __device__ C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>)
      if (a != a || b != b) return a + b;
    return a < b ? a : b;
  }
};

struct PowOp {
  template <class C> __device__ C operator()(C a, C b) const {
    if constexpr (std::is_same_v<C, float>) {
      return powf(a, b);
    } else if constexpr (std::is_same_v<C, double>) {
      return pow(a, b);
    } else {
      if (b < 0) return a == 1 ? C(1) : (a == -1 ? ((b & 1) ? C(-1) : C(1)) : C(0));
      C r = 1;
      while (b) {
        if (b & 1) r *= a;
        a *= a;
        b >>= 1;
      }
      return r;
    }
  }
};

struct EqOp { template <class C> __device__ bool operator()(C a, C b) const { return a == b; } };
struct NeOp { template <class C> __device__ bool operator()(C a, C b) const { return a != b; } };
struct GtOp { template <class C> __device__ bool operator()(C a, C b) const { return a > b; } };
struct GeOp { template <class C> __device__ bool operator()(C a, C b) const { return a >= b; } };
struct LtOp { template <class C> __device__ bool operator()(C a, C b) const { return a < b; } };
struct LeOp { template <class C> __device__ bool operator()(C a, C b) const { return a <= b; } };

// Stored values -> compute type -> op -> the output type.
template <class T, class Out, class Op>
struct BinaryFn {
  __device__ Out operator()(T a, T b) const {
    return convert<Out>(Op{}(to_compute(a), to_compute(b)));
  }
};

template <bool kCompare, class Op, class TypeList>
OarStatus binary(const OarKernelContext* ctx, TypeList types) {
  if (!expect_io(ctx, 2, 1)) return OAR_STATUS_ERROR;
  const OarTensor& x = ctx->inputs[0];
  const OarTensor& y = ctx->inputs[1];
  const OarTensor& out = ctx->outputs[0];
  if (x.dtype != y.dtype)
    return fail(ctx, "%s on gpu needs inputs of one dtype, got %s and %s", ctx->op,
                dtype_name(x.dtype), dtype_name(y.dtype));
  const int32_t want = kCompare ? OAR_BOOL : x.dtype;
  if (out.dtype != want)
    return fail(ctx, "%s on gpu: output dtype %s, expected %s", ctx->op, dtype_name(out.dtype),
                dtype_name(want));
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  OarStatus st = OAR_STATUS_OK;
  const OarTensor* const ins[3] = {&x, &y, nullptr};
  const bool found = dispatch(types, x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Out = std::conditional_t<kCompare, bool, T>;
    st = run_elementwise<Out, T, T>(ctx, stream, BinaryFn<T, Out, Op>{}, out, ins);
  });
  return found ? st : unsupported(ctx, x.dtype);
}

}  // namespace

OarStatus k_add(const OarKernelContext* c) { return binary<false, AddOp>(c, AllTypes{}); }
OarStatus k_subtract(const OarKernelContext* c) { return binary<false, SubOp>(c, NumericTypes{}); }
OarStatus k_multiply(const OarKernelContext* c) { return binary<false, MulOp>(c, AllTypes{}); }
OarStatus k_divide(const OarKernelContext* c) { return binary<false, DivOp>(c, NumericTypes{}); }
OarStatus k_maximum(const OarKernelContext* c) { return binary<false, MaxOp>(c, AllTypes{}); }
OarStatus k_minimum(const OarKernelContext* c) { return binary<false, MinOp>(c, AllTypes{}); }
OarStatus k_elementwise_pow(const OarKernelContext* c) {
  return binary<false, PowOp>(c, NumericTypes{});
}
OarStatus k_equal(const OarKernelContext* c) { return binary<true, EqOp>(c, AllTypes{}); }
OarStatus k_not_equal(const OarKernelContext* c) { return binary<true, NeOp>(c, AllTypes{}); }
OarStatus k_greater_than(const OarKernelContext* c) { return binary<true, GtOp>(c, AllTypes{}); }
OarStatus k_greater_equal(const OarKernelContext* c) { return binary<true, GeOp>(c, AllTypes{}); }
OarStatus k_less_than(const OarKernelContext* c) { return binary<true, LtOp>(c, AllTypes{}); }
OarStatus k_less_equal(const OarKernelContext* c) { return binary<true, LeOp>(c, AllTypes{}); }

}  // namespace oar_cuda
