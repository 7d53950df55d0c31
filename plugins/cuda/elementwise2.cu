// More binary elementwise ops, x and y broadcast to out: floor_divide, remainder, fmax, fmin,
// atan2 (x's dtype out) and logical_and, logical_or, logical_xor (bool out).
//
// Contract: x and y have one dtype (oar promotes first); the 16-bit floats compute in float and
// round once. As custom_cpu (plugins/custom_cpu/elementwise.cc):
// - integer floor_divide rounds toward negative infinity, remainder takes the divisor's sign;
//   division by 0 gives 0 for both, and by -1 gives -x (wrapping) and 0, so nothing traps;
// - float floor_divide is floor(x / y); float remainder is fmod(x, y) moved to the divisor's sign;
// - fmax/fmin ignore a NaN operand (fmax/fmin of C); on bool they are or/and;
// - logical ops test != 0 and write bool.
#include "plugins/cuda/elementwise2.cuh"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

using namespace ew2;

struct FloorDivideOp {
  template <class C> __device__ C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      return m_floor(a / b);
    } else if constexpr (std::is_unsigned_v<C>) {
      return b == C(0) ? C(0) : static_cast<C>(a / b);
    } else {
      if (b == C(0)) return C(0);
      if (b == C(-1)) return wrap_neg(a);
      const C q = static_cast<C>(a / b);
      return (static_cast<C>(a % b) != C(0) && ((a < C(0)) != (b < C(0)))) ? static_cast<C>(q - 1)
                                                                           : q;
    }
  }
};

struct RemainderOp {
  template <class C> __device__ C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      const C r = m_fmod(a, b);
      return (r != C(0) && ((r < C(0)) != (b < C(0)))) ? C(r + b) : r;
    } else if constexpr (std::is_unsigned_v<C>) {
      return b == C(0) ? C(0) : static_cast<C>(a % b);
    } else {
      if (b == C(0) || b == C(-1)) return C(0);
      const C r = static_cast<C>(a % b);
      return (r != C(0) && ((r < C(0)) != (b < C(0)))) ? static_cast<C>(r + b) : r;
    }
  }
};

struct FMaxOp {
  template <class C> __device__ C operator()(C a, C b) const {
    if constexpr (std::is_same_v<C, bool>) return a || b;
    else if constexpr (std::is_floating_point_v<C>) return m_fmax(a, b);
    else return a > b ? a : b;
  }
};

struct FMinOp {
  template <class C> __device__ C operator()(C a, C b) const {
    if constexpr (std::is_same_v<C, bool>) return a && b;
    else if constexpr (std::is_floating_point_v<C>) return m_fmin(a, b);
    else return a < b ? a : b;
  }
};

struct Atan2Op {
  template <class C> __device__ C operator()(C a, C b) const { return m_atan2(a, b); }
};

struct LogicalAndOp {
  template <class C> __device__ bool operator()(C a, C b) const {
    return a != C(0) && b != C(0);
  }
};
struct LogicalOrOp {
  template <class C> __device__ bool operator()(C a, C b) const {
    return a != C(0) || b != C(0);
  }
};
struct LogicalXorOp {
  template <class C> __device__ bool operator()(C a, C b) const {
    return (a != C(0)) != (b != C(0));
  }
};

}  // namespace

OarStatus k_floor_divide(const OarKernelContext* c) {
  return map_binary<false>(c, NumericTypes{}, MakeStateless<FloorDivideOp>{});
}
OarStatus k_remainder(const OarKernelContext* c) {
  return map_binary<false>(c, NumericTypes{}, MakeStateless<RemainderOp>{});
}
OarStatus k_fmax(const OarKernelContext* c) {
  return map_binary<false>(c, AllTypes{}, MakeStateless<FMaxOp>{});
}
OarStatus k_fmin(const OarKernelContext* c) {
  return map_binary<false>(c, AllTypes{}, MakeStateless<FMinOp>{});
}
OarStatus k_atan2(const OarKernelContext* c) {
  return map_binary<false>(c, FloatTypes{}, MakeStateless<Atan2Op>{});
}
OarStatus k_logical_and(const OarKernelContext* c) {
  return map_binary<true>(c, AllTypes{}, MakeStateless<LogicalAndOp>{});
}
OarStatus k_logical_or(const OarKernelContext* c) {
  return map_binary<true>(c, AllTypes{}, MakeStateless<LogicalOrOp>{});
}
OarStatus k_logical_xor(const OarKernelContext* c) {
  return map_binary<true>(c, AllTypes{}, MakeStateless<LogicalXorOp>{});
}

}  // namespace oar_cuda
