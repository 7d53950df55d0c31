// Special functions: lgamma, digamma, polygamma (attr n), erfinv, i0, i0e, i1, i1e (x -> out of
// x's dtype) and the regularised incomplete gamma functions gammainc, gammaincc (x = a, y
// broadcast to out).
//
// Contract: float dtypes only (oar casts integer inputs to float first: `float_inputs` in the op
// specs); every dtype computes in double through the scalar functions of
// plugins/common/special_math.h (the CPU kernels' algorithms, shared with custom_cpu) and rounds
// once to the output's dtype, as oar's CPU kernels do. gammainc/gammaincc give NaN where an
// argument is negative: the CPU kernel raises there, which a kernel on a stream cannot.
#include "plugins/common/special_math.h"
#include "plugins/cuda/elementwise2.cuh"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

using namespace ew2;

template <oar_special::Unary kOp>
struct SpecialUnaryOp {
  template <class C> __device__ C operator()(C a) const {
    return static_cast<C>(oar_special::unary(kOp, static_cast<double>(a)));
  }
};

template <oar_special::Unary kOp>
OarStatus special_unary(const OarKernelContext* ctx) {
  return map_unary<false>(ctx, FloatTypes{}, MakeStateless<SpecialUnaryOp<kOp>>{});
}

struct PolygammaOp {
  int64_t n;
  template <class C> __device__ C operator()(C a) const {
    return static_cast<C>(oar_special::polygamma(n, static_cast<double>(a)));
  }
};

template <bool kUpper>
struct IncompleteGammaOp {
  template <class C> __device__ C operator()(C a, C b) const {
    return static_cast<C>(
        oar_special::incomplete_gamma(static_cast<double>(a), static_cast<double>(b), kUpper));
  }
};

}  // namespace

OarStatus k_lgamma(const OarKernelContext* c) { return special_unary<oar_special::Unary::Lgamma>(c); }
OarStatus k_digamma(const OarKernelContext* c) { return special_unary<oar_special::Unary::Digamma>(c); }
OarStatus k_erfinv(const OarKernelContext* c) { return special_unary<oar_special::Unary::Erfinv>(c); }
OarStatus k_i0(const OarKernelContext* c) { return special_unary<oar_special::Unary::I0>(c); }
OarStatus k_i0e(const OarKernelContext* c) { return special_unary<oar_special::Unary::I0e>(c); }
OarStatus k_i1(const OarKernelContext* c) { return special_unary<oar_special::Unary::I1>(c); }
OarStatus k_i1e(const OarKernelContext* c) { return special_unary<oar_special::Unary::I1e>(c); }

OarStatus k_polygamma(const OarKernelContext* ctx) {
  const int64_t n = attr_int(ctx, "n", 0);
  if (n < 0) return fail(ctx, "polygamma on gpu: order n must be >= 0, got %lld", static_cast<long long>(n));
  return map_unary<false>(ctx, FloatTypes{}, [n](auto) { return PolygammaOp{n}; });
}

OarStatus k_gammainc(const OarKernelContext* c) {
  return map_binary<false>(c, FloatTypes{}, MakeStateless<IncompleteGammaOp<false>>{});
}
OarStatus k_gammaincc(const OarKernelContext* c) {
  return map_binary<false>(c, FloatTypes{}, MakeStateless<IncompleteGammaOp<true>>{});
}

}  // namespace oar_cuda
