// More unary elementwise ops: sign, floor, ceil, trunc, round (numeric, x's dtype out), the
// predicates logical_not, isnan, isinf, isfinite (any dtype, bool out) and the float-only math
// expm1, log1p, log2, log10, tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh, erf.
//
// Contract: x may be any strided view; the 16-bit floats compute in float and round once; full
// precision math (no fast-math intrinsics). As custom_cpu (plugins/custom_cpu/elementwise.cc):
// sign of NaN is 0; floor/ceil/trunc/round leave integers as they are; integers and bools are
// finite and never NaN; round(x, decimals) rounds halves to even (rint), with decimals != 0 on x
// scaled by 10^|decimals| (x * s then / s for decimals > 0, x / s then * s below 0).
#include "plugins/cuda/elementwise2.cuh"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

using namespace ew2;

#define OAR_FLOAT_UNARY(Name, fn) \
  struct Name { template <class C> __device__ C operator()(C a) const { return fn(a); } };

OAR_FLOAT_UNARY(Expm1Op, m_expm1)
OAR_FLOAT_UNARY(Log1pOp, m_log1p)
OAR_FLOAT_UNARY(Log2Op, m_log2)
OAR_FLOAT_UNARY(Log10Op, m_log10)
OAR_FLOAT_UNARY(TanOp, m_tan)
OAR_FLOAT_UNARY(AsinOp, m_asin)
OAR_FLOAT_UNARY(AcosOp, m_acos)
OAR_FLOAT_UNARY(AtanOp, m_atan)
OAR_FLOAT_UNARY(SinhOp, m_sinh)
OAR_FLOAT_UNARY(CoshOp, m_cosh)
OAR_FLOAT_UNARY(AsinhOp, m_asinh)
OAR_FLOAT_UNARY(AcoshOp, m_acosh)
OAR_FLOAT_UNARY(AtanhOp, m_atanh)
OAR_FLOAT_UNARY(ErfOp, m_erf)
#undef OAR_FLOAT_UNARY

// floor, ceil, trunc: the float function, identity on integers.
#define OAR_ROUNDING_UNARY(Name, fn)                          \
  struct Name {                                               \
    template <class C> __device__ C operator()(C a) const {   \
      if constexpr (std::is_floating_point_v<C>) return fn(a); \
      else return a;                                          \
    }                                                         \
  };

OAR_ROUNDING_UNARY(FloorOp, m_floor)
OAR_ROUNDING_UNARY(CeilOp, m_ceil)
OAR_ROUNDING_UNARY(TruncOp, m_trunc)
#undef OAR_ROUNDING_UNARY

struct SignOp {
  template <class C> __device__ C operator()(C a) const {
    if constexpr (std::is_unsigned_v<C>) return static_cast<C>(a > C(0));
    else return static_cast<C>(static_cast<int>(a > C(0)) - static_cast<int>(a < C(0)));
  }
};

struct LogicalNotOp {
  template <class C> __device__ bool operator()(C a) const { return a == C(0); }
};

struct IsNanOp {
  template <class C> __device__ bool operator()(C a) const {
    if constexpr (std::is_floating_point_v<C>) return a != a;
    else return false;
  }
};
struct IsInfOp {
  template <class C> __device__ bool operator()(C a) const {
    if constexpr (std::is_floating_point_v<C>)
      return m_fabs(a) == std::numeric_limits<C>::infinity();
    else return false;
  }
};
struct IsFiniteOp {
  template <class C> __device__ bool operator()(C a) const {
    if constexpr (std::is_floating_point_v<C>)
      return m_fabs(a) < std::numeric_limits<C>::infinity();  // false for NaN
    else return true;
  }
};

// round with decimals; s = 10^|decimals| in the compute type (unused when decimals == 0).
template <class C>
struct RoundOp {
  int64_t decimals;
  C s;
  __device__ C operator()(C a) const {
    if constexpr (!std::is_floating_point_v<C>) {
      return a;
    } else {
      if (decimals == 0) return m_rint(a);
      return decimals > 0 ? C(m_rint(a * s) / s) : C(m_rint(a / s) * s);
    }
  }
};

template <class Op, class TypeList>
OarStatus same_dtype(const OarKernelContext* ctx, TypeList types) {
  return map_unary<false>(ctx, types, MakeStateless<Op>{});
}

template <class Op>
OarStatus predicate(const OarKernelContext* ctx) {
  return map_unary<true>(ctx, AllTypes{}, MakeStateless<Op>{});
}

}  // namespace

OarStatus k_sign(const OarKernelContext* c) { return same_dtype<SignOp>(c, NumericTypes{}); }
OarStatus k_floor(const OarKernelContext* c) { return same_dtype<FloorOp>(c, NumericTypes{}); }
OarStatus k_ceil(const OarKernelContext* c) { return same_dtype<CeilOp>(c, NumericTypes{}); }
OarStatus k_trunc(const OarKernelContext* c) { return same_dtype<TruncOp>(c, NumericTypes{}); }
OarStatus k_logical_not(const OarKernelContext* c) { return predicate<LogicalNotOp>(c); }
OarStatus k_isnan(const OarKernelContext* c) { return predicate<IsNanOp>(c); }
OarStatus k_isinf(const OarKernelContext* c) { return predicate<IsInfOp>(c); }
OarStatus k_isfinite(const OarKernelContext* c) { return predicate<IsFiniteOp>(c); }
OarStatus k_expm1(const OarKernelContext* c) { return same_dtype<Expm1Op>(c, FloatTypes{}); }
OarStatus k_log1p(const OarKernelContext* c) { return same_dtype<Log1pOp>(c, FloatTypes{}); }
OarStatus k_log2(const OarKernelContext* c) { return same_dtype<Log2Op>(c, FloatTypes{}); }
OarStatus k_log10(const OarKernelContext* c) { return same_dtype<Log10Op>(c, FloatTypes{}); }
OarStatus k_tan(const OarKernelContext* c) { return same_dtype<TanOp>(c, FloatTypes{}); }
OarStatus k_asin(const OarKernelContext* c) { return same_dtype<AsinOp>(c, FloatTypes{}); }
OarStatus k_acos(const OarKernelContext* c) { return same_dtype<AcosOp>(c, FloatTypes{}); }
OarStatus k_atan(const OarKernelContext* c) { return same_dtype<AtanOp>(c, FloatTypes{}); }
OarStatus k_sinh(const OarKernelContext* c) { return same_dtype<SinhOp>(c, FloatTypes{}); }
OarStatus k_cosh(const OarKernelContext* c) { return same_dtype<CoshOp>(c, FloatTypes{}); }
OarStatus k_asinh(const OarKernelContext* c) { return same_dtype<AsinhOp>(c, FloatTypes{}); }
OarStatus k_acosh(const OarKernelContext* c) { return same_dtype<AcoshOp>(c, FloatTypes{}); }
OarStatus k_atanh(const OarKernelContext* c) { return same_dtype<AtanhOp>(c, FloatTypes{}); }
OarStatus k_erf(const OarKernelContext* c) { return same_dtype<ErfOp>(c, FloatTypes{}); }

OarStatus k_round(const OarKernelContext* ctx) {
  const int64_t decimals = attr_int(ctx, "decimals", 0);
  const int64_t mag = decimals < 0 ? -decimals : decimals;
  const double scale = std::pow(10.0, static_cast<double>(mag));
  return map_unary<false>(ctx, NumericTypes{}, [&](auto tag) {
    using C = compute_t<typename decltype(tag)::type>;
    if constexpr (std::is_floating_point_v<C>) return RoundOp<C>{decimals, static_cast<C>(scale)};
    else return RoundOp<C>{decimals, C(0)};  // integers stay as they are
  });
}

}  // namespace oar_cuda
