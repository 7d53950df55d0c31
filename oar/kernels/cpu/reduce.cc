#include "oar/kernels/cpu/reduce.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "oar/core/cpu_isa.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/convert.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/elementwise.h"

namespace oar::kernels {

const char* reduce_op_name(ReduceOp op) {
  static const char* names[] = {"sum", "mean", "prod", "max", "min", "all", "any"};
  return names[static_cast<int>(op)];
}

namespace {

// Partial ("part", e.g. float) sums are folded into the accumulator (e.g. double) after kRowBlock
// values of a contiguous row (kRowBlock / kLanes per lane) or kColBlock rows of a column, so that
// float sums stay accurate (relative error ~1e-7 for 1e7 values) at the cost of one double add
// per block.
constexpr int64_t kRowBlock = 1024;
constexpr int64_t kColBlock = 64;
constexpr int64_t kGrain = 32768;  // input elements per parallel task
constexpr int64_t kCols = 2048;    // output columns accumulated together when the innermost dim is kept
constexpr int kLanes = 32;         // independent accumulators per contiguous row (4 AVX2 float vectors)

template <typename T>
constexpr bool is_half_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;
template <typename T>
constexpr bool is_cplx_v = is_complex_t<T>::value;

// The value of a stored element in its compute type (halves compute in float).
template <typename T>
inline compute_t<T> load(const T& v) {
  if constexpr (is_half_v<T>) return static_cast<float>(v);
  else return v;
}

// Accumulator -> element type. Integer accumulators wrap (two's complement), as Paddle's kernels.
template <typename T, typename A>
inline T out_cast(const A& a) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && std::is_integral_v<A>) {
    return static_cast<T>(static_cast<int64_t>(a));
  } else {
    return convert<T>(a);
  }
}

// ---------------------------------------------------------------------------------------------
// Reduction policies. Each describes: a fast "part" accumulator used within a block of values
// (part0/step/merge), the block accumulator (acc0/fold/combine) and the final value (finish).

template <typename T>
struct SumPolicy {
  using In = T;
  using Out = T;
  using C = compute_t<T>;
  using Part = std::conditional_t<std::is_floating_point_v<C>, C,
                                  std::conditional_t<is_cplx_v<T>, T, uint64_t>>;
  using Acc = std::conditional_t<std::is_floating_point_v<C>, double, Part>;
  static Part to_part(const T& v) {
    if constexpr (std::is_integral_v<T>) return static_cast<uint64_t>(static_cast<int64_t>(v));
    else return Part(load(v));
  }
  Part part0() const { return Part(0); }
  Part step(Part a, const T& v) const { return a + to_part(v); }
  Part merge(Part a, Part b) const { return a + b; }
  Acc acc0() const { return Acc(0); }
  Acc fold(Acc a, Part p) const { return a + Acc(p); }
  Acc combine(Acc a, Acc b) const { return a + b; }
  Out finish(Acc a, int64_t) const { return out_cast<T>(a); }
};

template <typename T>
struct MeanPolicy : SumPolicy<T> {
  using Acc = typename SumPolicy<T>::Acc;
  T finish(Acc a, int64_t n) const {
    if constexpr (std::is_integral_v<Acc>) {
      return out_cast<T>(n ? static_cast<int64_t>(a) / n : 0);
    } else {
      return out_cast<T>(a / Acc(static_cast<double>(n)));
    }
  }
};

template <typename T>
struct ProdPolicy {
  using In = T;
  using Out = T;
  using C = compute_t<T>;
  using Part = std::conditional_t<std::is_floating_point_v<C>, double,
                                  std::conditional_t<is_cplx_v<T>, T, uint64_t>>;
  using Acc = Part;
  static Part to_part(const T& v) {
    if constexpr (std::is_integral_v<T>) return static_cast<uint64_t>(static_cast<int64_t>(v));
    else return Part(load(v));
  }
  Part part0() const { return Part(1); }
  Part step(Part a, const T& v) const { return a * to_part(v); }
  Part merge(Part a, Part b) const { return a * b; }
  Acc acc0() const { return Acc(1); }
  Acc fold(Acc a, Part p) const { return a * p; }
  Acc combine(Acc a, Acc b) const { return a * b; }
  Out finish(Acc a, int64_t) const { return out_cast<T>(a); }
};

// max/min with NaN propagation (a NaN anywhere gives NaN, as NumPy).
template <typename C, bool IsMax>
inline C pick(C a, C x) {
  const bool better = IsMax ? (x > a) : (x < a);
  if constexpr (std::is_floating_point_v<C>) return (better | (x != x)) ? x : a;  // no branch
  else return better ? x : a;
}

template <typename T, bool IsMax>
struct MaxPolicy {
  static constexpr bool kIsMax = IsMax;
  using In = T;
  using Out = T;
  using C = compute_t<T>;
  using Part = C;
  using Acc = C;
  static C init() {
    if constexpr (std::is_floating_point_v<C>)
      return IsMax ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::infinity();
    else
      return IsMax ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max();
  }
  Part part0() const { return init(); }
  Part step(Part a, const T& v) const { return pick<C, IsMax>(a, load(v)); }
  Part merge(Part a, Part b) const { return pick<C, IsMax>(a, b); }
  Acc acc0() const { return init(); }
  Acc fold(Acc a, Part p) const { return pick<C, IsMax>(a, p); }
  Acc combine(Acc a, Acc b) const { return pick<C, IsMax>(a, b); }
  Out finish(Acc a, int64_t) const { return out_cast<T>(a); }
};

template <typename T, bool IsAll>
struct LogicalPolicy {
  using In = T;
  using Out = bool;
  using Part = bool;
  using Acc = bool;
  Part part0() const { return IsAll; }
  Part step(Part a, const T& v) const {
    const bool nz = convert<bool>(v);
    return IsAll ? (a & nz) : (a | nz);
  }
  Part merge(Part a, Part b) const { return IsAll ? (a & b) : (a | b); }
  Acc acc0() const { return IsAll; }
  Acc fold(Acc a, Part p) const { return merge(a, p); }
  Acc combine(Acc a, Acc b) const { return merge(a, b); }
  Out finish(Acc a, int64_t) const { return a; }
};

enum class NormKind { L0, L1, L2, Lp, Inf, NegInf };

template <typename T, NormKind K>
struct NormPolicy {
  using In = T;
  using Out = T;
  using C = compute_t<T>;
  static constexpr bool kExtreme = K == NormKind::Inf || K == NormKind::NegInf;
  using Part = C;
  using Acc = std::conditional_t<kExtreme, C, double>;
  C p = C(2);
  double inv_p = 0.5;
  Part part0() const {
    if constexpr (K == NormKind::NegInf) return std::numeric_limits<C>::infinity();
    else return C(0);
  }
  Part step(Part a, const T& v) const {
    const C x = std::abs(load(v));
    if constexpr (K == NormKind::L0) return a + C(x != C(0));
    else if constexpr (K == NormKind::L1) return a + x;
    else if constexpr (K == NormKind::L2) return a + x * x;
    else if constexpr (K == NormKind::Lp) return a + std::pow(x, p);
    else return pick<C, K == NormKind::Inf>(a, x);
  }
  Part merge(Part a, Part b) const {
    if constexpr (kExtreme) return pick<C, K == NormKind::Inf>(a, b);
    else return a + b;
  }
  Acc acc0() const { return Acc(part0()); }
  Acc fold(Acc a, Part b) const {
    if constexpr (kExtreme) return pick<C, K == NormKind::Inf>(a, b);
    else return a + Acc(b);
  }
  Acc combine(Acc a, Acc b) const {
    if constexpr (kExtreme) return pick<C, K == NormKind::Inf>(a, b);
    else return a + b;
  }
  Out finish(Acc a, int64_t) const {
    if constexpr (K == NormKind::L2) return out_cast<T>(std::sqrt(a));
    else if constexpr (K == NormKind::Lp) return out_cast<T>(std::pow(a, inv_p));
    else return out_cast<T>(a);
  }
};

// log(sum(exp(x))) in one pass: (m, s) with s = sum(exp(x - m)) and m the running max, rescaled
// when the max grows. -inf values add nothing, +inf gives +inf, NaN gives NaN.
template <typename A>
struct LseAcc {
  A m, s;
};

template <typename A>
inline LseAcc<A> lse_add(LseAcc<A> a, A x) {
  constexpr A kInf = std::numeric_limits<A>::infinity();
  if (x != x || a.m != a.m) return {x + a.m, x + a.m};  // NaN
  if (x > a.m) {
    a.s = (a.m == -kInf ? A(0) : a.s * std::exp(a.m - x)) + A(1);
    a.m = x;
  } else if (x == a.m) {
    a.s += A(1);
  } else {
    a.s += std::exp(x - a.m);
  }
  return a;
}

template <typename A>
inline LseAcc<A> lse_merge(LseAcc<A> a, LseAcc<A> b) {
  constexpr A kInf = std::numeric_limits<A>::infinity();
  if (a.m != a.m || b.m != b.m) return {a.m + b.m, a.m + b.m};  // NaN
  if (b.m == -kInf) return a;
  if (a.m == -kInf) return b;
  if (a.m == b.m) return {a.m, a.s + b.s};
  if (a.m > b.m) return {a.m, a.s + b.s * std::exp(b.m - a.m)};
  return {b.m, b.s + a.s * std::exp(a.m - b.m)};
}

template <typename T>
struct LogSumExpPolicy {
  using In = T;
  using Out = T;
  using C = compute_t<T>;
  using Part = LseAcc<C>;
  using Acc = LseAcc<double>;
  Part part0() const { return {-std::numeric_limits<C>::infinity(), C(0)}; }
  Part step(Part a, const T& v) const { return lse_add<C>(a, load(v)); }
  Part merge(Part a, Part b) const { return lse_merge<C>(a, b); }
  Acc acc0() const { return {-std::numeric_limits<double>::infinity(), 0.0}; }
  Acc fold(Acc a, Part p) const { return lse_merge<double>(a, {double(p.m), double(p.s)}); }
  Acc combine(Acc a, Acc b) const { return lse_merge<double>(a, b); }
  Out finish(Acc a, int64_t) const { return out_cast<T>(a.m + std::log(a.s)); }
};

// ---------------------------------------------------------------------------------------------
// Layout planning. x's dims are taken in memory order (so a transposed or permuted view needs no
// copy), size-1 dims are dropped and neighbours with the same role merged into groups. The
// innermost (contiguous) group is either reduced -- each output then reduces contiguous
// segments -- or kept -- outputs are then columns accumulated over rows. `outs` holds the other
// kept groups, `rows` the other reduced groups (sizes and strides in elements).

struct Dims {
  std::vector<int64_t> size, stride;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : size) n *= s;
    return n;
  }
  int64_t offset_at(int64_t lin) const {
    int64_t off = 0;
    for (int64_t k = static_cast<int64_t>(size.size()) - 1; k >= 0; --k) {
      off += (lin % size[k]) * stride[k];
      lin /= size[k];
    }
    return off;
  }
};

// Offsets of consecutive linear indices of a Dims, from `start` on.
class Walker {
 public:
  Walker(const Dims& d, int64_t start) : d_(d), idx_(d.size.size(), 0) {
    for (int64_t k = static_cast<int64_t>(idx_.size()) - 1; k >= 0; --k) {
      idx_[k] = start % d.size[k];
      start /= d.size[k];
      off_ += idx_[k] * d.stride[k];
    }
  }
  int64_t offset() const { return off_; }
  void next() {
    for (int64_t k = static_cast<int64_t>(idx_.size()) - 1; k >= 0; --k) {
      off_ += d_.stride[k];
      if (++idx_[k] < d_.size[k]) return;
      off_ -= d_.size[k] * d_.stride[k];
      idx_[k] = 0;
    }
  }

 private:
  const Dims& d_;
  std::vector<int64_t> idx_;
  int64_t off_ = 0;
};

struct Plan {
  Tensor src;                 // keeps the values alive (x itself, or a converted/dense copy)
  const void* base = nullptr; // the element at index (0, ..., 0)
  bool last_reduced = true;
  int64_t seg = 1;            // length of the innermost group
  Dims outs, rows;
  int64_t count = 1;          // input values per output
  // When the kept dims lie in memory in another order than in x, results are computed in memory
  // order (mem_shape) and then permuted into `out` through a view of shape view_shape.
  bool reorder = false;
  Shape mem_shape, view_shape;
  Strides view_strides;
};

// A contiguous tensor of `dtype` holding x's values (x itself when it already is one).
Tensor dense(const Tensor& x, DType dtype) {
  if (x.dtype() == dtype && x.is_contiguous()) return x;
  Tensor t = Tensor::make(x.shape(), dtype);
  copy(x, t);
  return t;
}

std::vector<bool> axis_mask(const IntArray& axis, int64_t rank) {
  std::vector<bool> mask(rank, axis.empty());
  for (int64_t a : axis) {
    const int64_t n = a < 0 ? a + rank : a;
    if (n >= 0 && n < rank) mask[n] = true;
  }
  return mask;
}

Plan make_plan(const Tensor& x, const std::vector<bool>& mask, DType dtype) {
  Plan p;
  Tensor src = x.dtype() == dtype ? x : dense(x, dtype);
  const int64_t rank = src.ndim();
  // The dims of size > 1 from the largest stride to the smallest; the layout is "dense" when
  // they then tile memory exactly (any permutation of a contiguous tensor).
  auto memory_order = [&](const Tensor& t) {
    std::vector<int64_t> order;
    for (int64_t d = 0; d < rank; ++d)
      if (t.shape()[d] != 1) order.push_back(d);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return t.strides()[a] > t.strides()[b]; });
    return order;
  };
  std::vector<int64_t> order = memory_order(src);
  int64_t expect = 1;
  bool dense_layout = true;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (src.strides()[*it] != expect) {
      dense_layout = false;
      break;
    }
    expect *= src.shape()[*it];
  }
  if (!dense_layout) {  // broadcast, sliced, overlapping or negative strides: copy
    Tensor c = Tensor::make(src.shape(), dtype);
    copy(src, c);
    src = c;
    order = memory_order(src);
  }
  p.src = src;
  p.base = src.raw_data();
  const Shape& sh = src.shape();
  const Strides& st = src.strides();

  struct Group {
    bool red;
    int64_t size, stride;
  };
  std::vector<Group> groups;
  for (int64_t d : order) {
    if (!groups.empty() && groups.back().red == mask[d]) {
      groups.back().size *= sh[d];
      groups.back().stride = st[d];
    } else {
      groups.push_back({static_cast<bool>(mask[d]), sh[d], st[d]});
    }
  }
  if (!groups.empty()) {
    p.last_reduced = groups.back().red;
    p.seg = groups.back().size;
    for (size_t k = 0; k + 1 < groups.size(); ++k) {
      Dims& dst = groups[k].red ? p.rows : p.outs;
      dst.size.push_back(groups[k].size);
      dst.stride.push_back(groups[k].stride);
    }
  }
  p.count = p.rows.numel() * (p.last_reduced ? p.seg : 1);

  std::vector<int64_t> kept_mem;  // kept dims (size > 1) in memory order
  for (int64_t d : order)
    if (!mask[d]) kept_mem.push_back(d);
  if (!std::is_sorted(kept_mem.begin(), kept_mem.end())) {
    p.reorder = true;
    for (int64_t d : kept_mem) p.mem_shape.push_back(sh[d]);
    const Strides cs = contiguous_strides(p.mem_shape);
    for (int64_t d = 0; d < rank; ++d) {
      const auto it = std::find(kept_mem.begin(), kept_mem.end(), d);
      if (it == kept_mem.end()) continue;
      p.view_shape.push_back(sh[d]);
      p.view_strides.push_back(cs[it - kept_mem.begin()]);
    }
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// The reduction engine.

// max/min of n >= 1 contiguous floats or doubles in explicit 256-bit vectors: four independent
// running extrema plus a NaN mask (a NaN anywhere gives NaN), about 1.3x the generic lanes.
template <typename C, bool IsMax>
C extremum_row(const C* p, int64_t n) {
  typedef C V __attribute__((vector_size(32)));
  using I = std::conditional_t<sizeof(C) == 4, int32_t, int64_t>;
  typedef I VI __attribute__((vector_size(32)));
  constexpr int L = 32 / sizeof(C), U = 4;
  C best = IsMax ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::infinity();
  int64_t i = 0;
  if (n >= U * L) {
    V acc[U];
    VI nan[U];
    for (int k = 0; k < U; ++k) acc[k] = V{} + best, nan[k] = VI{};
    for (; i + U * L <= n; i += U * L) {
      for (int k = 0; k < U; ++k) {
        V x;
        std::memcpy(&x, p + i + k * L, sizeof(V));
        acc[k] = (IsMax ? x > acc[k] : x < acc[k]) ? x : acc[k];
        nan[k] |= x != x;
      }
    }
    for (int k = 0; k < U; ++k)
      for (int l = 0; l < L; ++l) {
        if (nan[k][l]) return std::numeric_limits<C>::quiet_NaN();
        best = pick<C, IsMax>(best, acc[k][l]);
      }
  }
  for (; i < n; ++i) best = pick<C, IsMax>(best, p[i]);
  return best;
}

// The sum of n contiguous floats, in double: four float-vector accumulators summed over blocks of
// kRowBlock values, each block folded into double vectors -- the same accuracy as the generic
// lanes (at most kRowBlock / (4 * lanes) values per float partial sum) without their per-block
// scalar merge. 512-bit vectors where the CPU has AVX-512: sum of 4M floats 333 -> 319 us on
// 2 cores, where a bare 2-thread read loop takes 317 us.
#pragma GCC diagnostic push  // wide vectors only inside inlined code: the ABI note is moot
#pragma GCC diagnostic ignored "-Wpsabi"
// V: L floats; H: half a V, widened to the L / 2 doubles of D. (GCC's vector_size cannot depend
// on a template parameter, hence the types as parameters.)
typedef float F16 __attribute__((vector_size(64)));
typedef float F8 __attribute__((vector_size(32)));
typedef float F4 __attribute__((vector_size(16)));
typedef double D8 __attribute__((vector_size(64)));
typedef double D4 __attribute__((vector_size(32)));
template <typename V, typename H, typename D>
[[gnu::always_inline]] inline double sum_row_f32_lanes(const float* p, int64_t n) {
  constexpr int L = sizeof(V) / sizeof(float);
  constexpr int U = 4;
  D acc[2 * U] = {};
  int64_t i = 0;
  while (i + U * L <= n) {
    const int64_t end = std::min(n, i + kRowBlock) - U * L;
    V part[U] = {};
    for (; i <= end; i += U * L)
      for (int k = 0; k < U; ++k) {
        V x;
        std::memcpy(&x, p + i + k * L, sizeof(V));
        part[k] += x;
      }
    for (int k = 0; k < U; ++k) {
      H lo, hi;
      std::memcpy(&lo, &part[k], sizeof(H));
      std::memcpy(&hi, reinterpret_cast<const char*>(&part[k]) + sizeof(H), sizeof(H));
      acc[2 * k] += __builtin_convertvector(lo, D);
      acc[2 * k + 1] += __builtin_convertvector(hi, D);
    }
  }
  // Vector adds first, then one horizontal sum: short rows (sum over axis=1 of 2048 columns) pay
  // this once per row.
  D all = acc[0];
  for (int k = 1; k < 2 * U; ++k) all += acc[k];
  double total = 0;
  for (int l = 0; l < L / 2; ++l) total += all[l];
  float tail = 0;
  for (; i < n; ++i) tail += p[i];
  return total + tail;
}

OAR_TARGET_AVX512 double sum_row_f32_avx512(const float* p, int64_t n) {
  return sum_row_f32_lanes<F16, F8, D8>(p, n);
}
double sum_row_f32(const float* p, int64_t n) {
  static const bool wide = cpu_isa() == CpuIsa::Avx512;
  return wide ? sum_row_f32_avx512(p, n) : sum_row_f32_lanes<F8, F4, D4>(p, n);
}
#pragma GCC diagnostic pop

template <typename P>
struct IsFloatSum : std::false_type {};
template <>
struct IsFloatSum<SumPolicy<float>> : std::true_type {};
template <>
struct IsFloatSum<MeanPolicy<float>> : std::true_type {};

template <typename P>
struct IsFloatExtremum : std::false_type {};
template <typename T, bool IsMax>
struct IsFloatExtremum<MaxPolicy<T, IsMax>> : std::is_floating_point<T> {};

// Reduces n contiguous values with kLanes independent accumulators per block.
template <typename P>
typename P::Acc reduce_row(const P& pol, const typename P::In* p, int64_t n) {
  using Part = typename P::Part;
  if constexpr (IsFloatExtremum<P>::value) {
    if (n > 0) return extremum_row<typename P::In, P::kIsMax>(p, n);
  }
  if constexpr (IsFloatSum<P>::value) return sum_row_f32(p, n);
  if (n < 2 * kLanes) {
    Part s = pol.part0();
    for (int64_t i = 0; i < n; ++i) s = pol.step(s, p[i]);
    return pol.fold(pol.acc0(), s);
  }
  typename P::Acc acc = pol.acc0();
  for (int64_t b = 0; b < n; b += kRowBlock) {
    const int64_t m = std::min(kRowBlock, n - b);
    const typename P::In* q = p + b;
    Part s[kLanes];
    for (int k = 0; k < kLanes; ++k) s[k] = pol.part0();
    int64_t i = 0;
    for (; i + kLanes <= m; i += kLanes) {
#pragma omp simd
      for (int k = 0; k < kLanes; ++k) s[k] = pol.step(s[k], q[i + k]);
    }
    for (; i < m; ++i) s[0] = pol.step(s[0], q[i]);
    for (int w = kLanes / 2; w > 0; w /= 2)
      for (int k = 0; k < w; ++k) s[k] = pol.merge(s[k], s[k + w]);
    acc = pol.fold(acc, s[0]);
  }
  return acc;
}

// acc[j] = reduction over the rows r0 <= r < r1 of p[rows(r) + j], for j < w (w <= kCols).
template <typename P>
void reduce_cols(const P& pol, const typename P::In* p, const Dims& rows, int64_t r0, int64_t r1,
                 int64_t w, typename P::Acc* acc) {
  using Part = typename P::Part;
  for (int64_t j = 0; j < w; ++j) acc[j] = pol.acc0();
  Part part[kCols];
  Walker it(rows, r0);
  for (int64_t rb = r0; rb < r1; rb += kColBlock) {
    const int64_t re = std::min(r1, rb + kColBlock);
    for (int64_t j = 0; j < w; ++j) part[j] = pol.part0();
    for (int64_t r = rb; r < re; ++r) {
      const typename P::In* row = p + it.offset();
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) part[j] = pol.step(part[j], row[j]);
      it.next();
    }
    for (int64_t j = 0; j < w; ++j) acc[j] = pol.fold(acc[j], part[j]);
  }
}

template <typename P>
void run_plan(const P& pol, const Plan& pl, typename P::Out* out) {
  using In = typename P::In;
  using Acc = typename P::Acc;
  const In* src = static_cast<const In*>(pl.base);
  const Dims& outs = pl.outs;
  const Dims& rows = pl.rows;
  const int64_t n_outer = outs.numel(), n_rows = rows.numel(), seg = pl.seg, count = pl.count;
  const int64_t nthreads = std::max(1, get_num_threads());
  const int64_t total = n_outer * n_rows * seg;

  if (pl.last_reduced) {
    // out[o] = reduction of the segments src[outs(o) + rows(r) + (0 .. seg)] over r.
    const int64_t per_out = n_rows * seg;
    if (n_outer >= nthreads || per_out < 2 * kGrain) {
      const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(per_out, 1));
      parallel_for(0, n_outer, grain, [&](int64_t b, int64_t e) {
        Walker wo(outs, b);
        for (int64_t o = b; o < e; ++o, wo.next()) {
          const In* p = src + wo.offset();
          if (n_rows == 1) {
            out[o] = pol.finish(reduce_row(pol, p, seg), count);
            continue;
          }
          Acc acc = pol.acc0();
          Walker wr(rows, 0);
          for (int64_t r = 0; r < n_rows; ++r, wr.next())
            acc = pol.combine(acc, reduce_row(pol, p + wr.offset(), seg));
          out[o] = pol.finish(acc, count);
        }
      });
      return;
    }
    // Few outputs with long reductions: each output's work -- its rows, each cut into nseg
    // pieces -- is shared among the threads, and the partial results combined in order.
    int64_t nseg = 1, piece = seg;
    if (n_rows < nthreads) {
      nseg = std::max<int64_t>(1, std::min<int64_t>(nthreads, seg / kGrain));
      piece = ((seg + nseg - 1) / nseg + kRowBlock - 1) / kRowBlock * kRowBlock;
      nseg = (seg + piece - 1) / piece;
    }
    const int64_t units = n_rows * nseg;
    const int64_t nparts = std::min(nthreads, units);
    std::unique_ptr<Acc[]> parts(new Acc[nparts]);  // not vector: Acc may be bool
    for (int64_t o = 0; o < n_outer; ++o) {
      const In* p = src + outs.offset_at(o);
      parallel_for(0, nparts, 1, [&](int64_t b, int64_t e) {
        for (int64_t part = b; part < e; ++part) {
          const int64_t u0 = part * units / nparts, u1 = (part + 1) * units / nparts;
          Walker wr(rows, u0 / nseg);
          int64_t c = u0 % nseg;
          Acc acc = pol.acc0();
          for (int64_t u = u0; u < u1; ++u) {
            const int64_t l0 = c * piece;
            acc = pol.combine(acc, reduce_row(pol, p + wr.offset() + l0, std::min(piece, seg - l0)));
            if (++c == nseg) {
              c = 0;
              wr.next();
            }
          }
          parts[part] = acc;
        }
      });
      Acc acc = parts[0];
      for (int64_t k = 1; k < nparts; ++k) acc = pol.combine(acc, parts[k]);
      out[o] = pol.finish(acc, count);
    }
    return;
  }

  // The innermost group is kept: out[o * seg + j] = reduction over r of src[outs(o) + rows(r) + j],
  // accumulated for kCols columns at a time (vectorisable).
  const int64_t nblk = (seg + kCols - 1) / kCols;
  const int64_t items = n_outer * nblk;
  const int64_t n_out = n_outer * seg;
  if (items >= nthreads || total < 4 * kGrain || n_out > (int64_t{1} << 16) || n_rows < 2 * nthreads) {
    const int64_t grain =
        std::max<int64_t>(1, kGrain / std::max<int64_t>(n_rows * std::min(seg, kCols), 1));
    parallel_for(0, items, grain, [&](int64_t b, int64_t e) {
      Acc acc[kCols];
      for (int64_t it = b; it < e; ++it) {
        const int64_t o = it / nblk, j0 = (it % nblk) * kCols, w = std::min(kCols, seg - j0);
        reduce_cols(pol, src + outs.offset_at(o) + j0, rows, 0, n_rows, w, acc);
        for (int64_t j = 0; j < w; ++j) out[o * seg + j0 + j] = pol.finish(acc[j], count);
      }
    });
    return;
  }
  // Few outputs and many rows: the rows are split among the threads, then the columns combined.
  int64_t nchunks = std::min<int64_t>(nthreads, std::max<int64_t>(1, total / kGrain));
  const int64_t chunk = (n_rows + nchunks - 1) / nchunks;
  nchunks = (n_rows + chunk - 1) / chunk;
  std::unique_ptr<Acc[]> parts(new Acc[nchunks * n_out]);
  parallel_for(0, nchunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      const int64_t r0 = c * chunk, r1 = std::min(n_rows, r0 + chunk);
      for (int64_t o = 0; o < n_outer; ++o) {
        const In* p = src + outs.offset_at(o);
        for (int64_t j0 = 0; j0 < seg; j0 += kCols)
          reduce_cols(pol, p + j0, rows, r0, r1, std::min(kCols, seg - j0),
                      parts.get() + c * n_out + o * seg + j0);
      }
    }
  });
  for (int64_t i = 0; i < n_out; ++i) {
    Acc acc = parts[i];
    for (int64_t c = 1; c < nchunks; ++c) acc = pol.combine(acc, parts[c * n_out + i]);
    out[i] = pol.finish(acc, count);
  }
}

// Runs `pol` writing into out (through a temporary when out is not contiguous, and a permuting
// copy when the plan computes in memory order).
template <typename P>
void run(const P& pol, const Plan& pl, const Tensor& out) {
  using Out = typename P::Out;
  if (!out.is_contiguous()) {
    Tensor tmp = Tensor::make(out.shape(), out.dtype());
    run(pol, pl, tmp);
    copy(tmp, out);
    return;
  }
  if (!pl.reorder) {
    run_plan(pol, pl, static_cast<Out*>(out.raw_data()));
    return;
  }
  Tensor tmp = Tensor::make(pl.mem_shape, out.dtype());
  run_plan(pol, pl, static_cast<Out*>(tmp.raw_data()));
  copy(Tensor::make_view(tmp, pl.view_shape, pl.view_strides, tmp.offset()),
       Tensor::make_view(out, pl.view_shape, contiguous_strides(pl.view_shape), out.offset()));
}

template <typename F>
void dispatch_numeric(DType t, const char* op, bool floating_only, F&& f) {
  if (t == DType::Complex64) return f(complex64{});
  if (t == DType::Complex128) return f(complex128{});
  if (floating_only) return dispatch_floating(t, op, f);
  dispatch_real(t, op, f);
}

}  // namespace

void reduce(ReduceOp op, const Tensor& x, const IntArray& axis, const Tensor& out) {
  if (out.numel() == 0) return;
  const char* name = reduce_op_name(op);
  if (x.numel() == 0) {  // reductions over an empty set
    switch (op) {
      case ReduceOp::Sum: return fill(out, Scalar(0));
      case ReduceOp::Prod: return fill(out, Scalar(1));
      case ReduceOp::Mean:
        if (is_integral(out.dtype(), true)) return fill(out, Scalar(0));
        return fill(out, Scalar(std::numeric_limits<double>::quiet_NaN()));
      case ReduceOp::All: return fill(out, Scalar(true));
      case ReduceOp::Any: return fill(out, Scalar(false));
      default:
        OAR_THROW(InvalidArgument, name, ": cannot reduce over a zero-size dimension of input ",
                  "'x' with shape ", shape_str(x.shape()), " (the reduction has no identity)");
    }
  }
  const std::vector<bool> mask = axis_mask(axis, x.ndim());
  const bool logical = op == ReduceOp::All || op == ReduceOp::Any;
  const Plan pl = make_plan(x, mask, logical ? x.dtype() : out.dtype());
  const DType t = pl.src.dtype();
  switch (op) {
    case ReduceOp::Sum:
      return dispatch_numeric(t, name, false, [&](auto tag) { run(SumPolicy<decltype(tag)>{}, pl, out); });
    case ReduceOp::Mean:
      if (t == DType::Bool) return run(LogicalPolicy<bool, false>{}, pl, out);  // mean != 0
      return dispatch_numeric(t, name, false, [&](auto tag) { run(MeanPolicy<decltype(tag)>{}, pl, out); });
    case ReduceOp::Prod:
      return dispatch_numeric(t, name, false, [&](auto tag) { run(ProdPolicy<decltype(tag)>{}, pl, out); });
    case ReduceOp::Max:
      return dispatch_real_bool(t, name, [&](auto tag) { run(MaxPolicy<decltype(tag), true>{}, pl, out); });
    case ReduceOp::Min:
      return dispatch_real_bool(t, name, [&](auto tag) { run(MaxPolicy<decltype(tag), false>{}, pl, out); });
    case ReduceOp::All:
      return dispatch_all(t, name, [&](auto tag) { run(LogicalPolicy<decltype(tag), true>{}, pl, out); });
    case ReduceOp::Any:
      return dispatch_all(t, name, [&](auto tag) { run(LogicalPolicy<decltype(tag), false>{}, pl, out); });
  }
}

void logsumexp_reduce(const Tensor& x, const IntArray& axis, const Tensor& out) {
  if (out.numel() == 0) return;
  if (x.numel() == 0) return fill(out, Scalar(-std::numeric_limits<double>::infinity()));
  const Plan pl = make_plan(x, axis_mask(axis, x.ndim()), out.dtype());
  dispatch_floating(pl.src.dtype(), "logsumexp", [&](auto tag) {
    run(LogSumExpPolicy<decltype(tag)>{}, pl, out);
  });
}

void norm_reduce(const Tensor& x, double porder, const IntArray& axis, const Tensor& out) {
  if (out.numel() == 0) return;
  if (x.numel() == 0) {
    OAR_ENFORCE_ARG(!std::isinf(porder), "p_norm: cannot take the ", porder > 0 ? "" : "-",
                    "inf norm over a zero-size dimension of input 'x' with shape ",
                    shape_str(x.shape()));
    return fill(out, Scalar(porder < 0 ? std::numeric_limits<double>::infinity() : 0.0));
  }
  const Plan pl = make_plan(x, axis_mask(axis, x.ndim()), out.dtype());
  dispatch_floating(pl.src.dtype(), "p_norm", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    if (std::isinf(porder)) {
      if (porder > 0) run(NormPolicy<T, NormKind::Inf>{}, pl, out);
      else run(NormPolicy<T, NormKind::NegInf>{}, pl, out);
    } else if (porder == 0) {
      run(NormPolicy<T, NormKind::L0>{}, pl, out);
    } else if (porder == 1) {
      run(NormPolicy<T, NormKind::L1>{}, pl, out);
    } else if (porder == 2) {
      run(NormPolicy<T, NormKind::L2>{}, pl, out);
    } else {
      NormPolicy<T, NormKind::Lp> pol;
      pol.p = C(porder);
      pol.inv_p = 1.0 / porder;
      run(pol, pl, out);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// argmax / argmin

namespace {

// Whether x replaces the current best b: strictly better. As Paddle, NaNs are skipped: a NaN is
// never better, and any number beats a NaN best (an all-NaN run gives its first index).
template <typename C, bool IsMin>
inline bool arg_better(C x, C b) {
  const bool better = IsMin ? (x < b) : (x > b);
  if constexpr (std::is_floating_point_v<C>) return x == x && (better || b != b);
  else return better;
}

template <typename T, typename I, bool IsMin>
void arg_impl(const T* src, int64_t outer, int64_t R, int64_t inner, I* out) {
  using C = compute_t<T>;
  const int64_t nthreads = std::max(1, get_num_threads());
  // First best of the contiguous values p[r0 .. r1): kLanes lanes each keep their first best
  // (vectorisable), then the lanes are merged preferring the lower index on ties.
  auto scan_row = [](const T* p, int64_t r0, int64_t r1, C& best, int64_t& idx) {
    int64_t r = r0;
    best = load(p[r0]);
    idx = r0;
    if (r1 - r0 >= 2 * kLanes) {
      C bv[kLanes];
      int64_t bi[kLanes];
      for (int k = 0; k < kLanes; ++k) {
        bv[k] = load(p[r0 + k]);
        bi[k] = r0 + k;
      }
      for (r = r0 + kLanes; r + kLanes <= r1; r += kLanes) {
#pragma omp simd
        for (int k = 0; k < kLanes; ++k) {
          const C v = load(p[r + k]);
          const bool take = arg_better<C, IsMin>(v, bv[k]);
          bv[k] = take ? v : bv[k];
          bi[k] = take ? r + k : bi[k];
        }
      }
      best = bv[0];
      idx = bi[0];
      for (int k = 1; k < kLanes; ++k) {
        if (arg_better<C, IsMin>(bv[k], best) ||
            (bi[k] < idx && !arg_better<C, IsMin>(best, bv[k]))) {
          best = bv[k];
          idx = bi[k];
        }
      }
      --r;  // the tail below starts after the last full group
    }
    for (++r; r < r1; ++r) {
      const C v = load(p[r]);
      if (arg_better<C, IsMin>(v, best)) {
        best = v;
        idx = r;
      }
    }
  };
  if (inner == 1) {
    if (outer >= nthreads || R < 2 * kGrain) {
      const int64_t grain = std::max<int64_t>(1, kGrain / R);
      parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) {
          C best;
          int64_t idx;
          scan_row(src + o * R, 0, R, best, idx);
          out[o] = static_cast<I>(idx);
        }
      });
      return;
    }
    int64_t nchunks = std::min<int64_t>(nthreads, R / kGrain);
    const int64_t chunk = (R + nchunks - 1) / nchunks;
    nchunks = (R + chunk - 1) / chunk;
    std::vector<std::pair<C, int64_t>> bests(nchunks);  // (value, index) per chunk
    for (int64_t o = 0; o < outer; ++o) {
      parallel_for(0, nchunks, 1, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c)
          scan_row(src + o * R, c * chunk, std::min(R, (c + 1) * chunk), bests[c].first,
                   bests[c].second);
      });
      C best = bests[0].first;
      int64_t idx = bests[0].second;
      for (int64_t c = 1; c < nchunks; ++c) {
        if (arg_better<C, IsMin>(bests[c].first, best)) {  // ties keep the earlier chunk
          best = bests[c].first;
          idx = bests[c].second;
        }
      }
      out[o] = static_cast<I>(idx);
    }
    return;
  }
  const int64_t nblk = (inner + kCols - 1) / kCols;
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(R * std::min(inner, kCols), 1));
  parallel_for(0, outer * nblk, grain, [&](int64_t b, int64_t e) {
    C best[kCols];
    int64_t idx[kCols];
    for (int64_t it = b; it < e; ++it) {
      const int64_t o = it / nblk, j0 = (it % nblk) * kCols, w = std::min(kCols, inner - j0);
      const T* base = src + o * R * inner + j0;
      for (int64_t j = 0; j < w; ++j) {
        best[j] = load(base[j]);
        idx[j] = 0;
      }
      for (int64_t r = 1; r < R; ++r) {
        const T* row = base + r * inner;
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) {
          const C v = load(row[j]);
          const bool take = arg_better<C, IsMin>(v, best[j]);
          best[j] = take ? v : best[j];
          idx[j] = take ? r : idx[j];
        }
      }
      for (int64_t j = 0; j < w; ++j) out[o * inner + j0 + j] = static_cast<I>(idx[j]);
    }
  });
}

// [outer, R, inner] sizes of x around one axis (0-D: a single element).
void split_at_axis(const Shape& sh, int64_t axis, int64_t& outer, int64_t& R, int64_t& inner) {
  outer = R = inner = 1;
  const int64_t rank = static_cast<int64_t>(sh.size());
  if (rank == 0) return;
  const int64_t a = axis < 0 ? axis + rank : axis;
  for (int64_t d = 0; d < rank; ++d) (d < a ? outer : d == a ? R : inner) *= sh[d];
}

}  // namespace

void arg_reduce(bool is_min, const Tensor& x, std::optional<int64_t> axis, const Tensor& out) {
  const char* name = is_min ? "argmin" : "argmax";
  if (out.numel() == 0) return;
  OAR_ENFORCE_ARG(x.numel() > 0, name, ": cannot take the ", is_min ? "min" : "max",
                  " over a zero-size dimension of input 'x' with shape ", shape_str(x.shape()));
  int64_t outer = 1, R = x.numel(), inner = 1;
  if (axis) split_at_axis(x.shape(), *axis, outer, R, inner);
  const Tensor src = dense(x, x.dtype());
  Tensor dst = out.is_contiguous() ? out : Tensor::make(out.shape(), out.dtype());
  OAR_ENFORCE(dst.dtype() == DType::Int64 || dst.dtype() == DType::Int32, TypeMismatch, name,
              ": argument 'dtype' must be int32 or int64, got ", dtype_name(dst.dtype()));
  dispatch_real_bool(x.dtype(), name, [&](auto tag) {
    using T = decltype(tag);
    const T* p = static_cast<const T*>(src.raw_data());
    if (dst.dtype() == DType::Int64) {
      int64_t* o = static_cast<int64_t*>(dst.raw_data());
      if (is_min) arg_impl<T, int64_t, true>(p, outer, R, inner, o);
      else arg_impl<T, int64_t, false>(p, outer, R, inner, o);
    } else {
      int32_t* o = static_cast<int32_t*>(dst.raw_data());
      if (is_min) arg_impl<T, int32_t, true>(p, outer, R, inner, o);
      else arg_impl<T, int32_t, false>(p, outer, R, inner, o);
    }
  });
  if (!dst.is_same(out)) copy(dst, out);
}

// ---------------------------------------------------------------------------------------------
// cumsum / cumprod

namespace {

template <typename T, bool IsProd>
void scan_impl(const T* src, T* dst, int64_t outer, int64_t R, int64_t inner, bool reverse) {
  using C = compute_t<T>;
  using Acc = std::conditional_t<std::is_floating_point_v<C>, double,
                                 std::conditional_t<is_cplx_v<T>, T, uint64_t>>;
  auto to_acc = [](const T& v) -> Acc {
    if constexpr (std::is_integral_v<T>) return static_cast<uint64_t>(static_cast<int64_t>(v));
    else return Acc(load(v));
  };
  auto op = [](Acc a, Acc b) -> Acc {
    if constexpr (IsProd) return a * b;
    else return a + b;
  };
  const Acc ident = IsProd ? Acc(1) : Acc(0);
  const int64_t nthreads = std::max(1, get_num_threads());
  // Scans n values starting at p, stepping by `step` (+1 or -1), from `init`; returns the total.
  auto scan_seg = [&](const T* in, T* o, int64_t n, int64_t step, Acc acc, bool write) -> Acc {
    for (int64_t i = 0; i < n; ++i) {
      acc = op(acc, to_acc(in[i * step]));
      if (write) o[i * step] = out_cast<T>(acc);
    }
    return acc;
  };
  if (inner == 1) {
    const int64_t step = reverse ? -1 : 1;
    if (outer >= nthreads || R < 4 * kGrain) {
      const int64_t grain = std::max<int64_t>(1, kGrain / R);
      parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
        int64_t o = b;
        // Four rows at a time: independent dependency chains overlap.
        for (; o + 4 <= e; o += 4) {
          Acc acc[4] = {ident, ident, ident, ident};
          for (int64_t k = 0; k < R; ++k) {
            const int64_t r = reverse ? R - 1 - k : k;
            for (int q = 0; q < 4; ++q) {
              const int64_t i = (o + q) * R + r;
              acc[q] = op(acc[q], to_acc(src[i]));
              dst[i] = out_cast<T>(acc[q]);
            }
          }
        }
        for (; o < e; ++o) {
          const int64_t first = reverse ? o * R + R - 1 : o * R;
          scan_seg(src + first, dst + first, R, step, ident, true);
        }
      });
      return;
    }
    // A few long rows: per-chunk totals, their running prefix, then each chunk scans from it.
    int64_t nchunks = std::min<int64_t>(nthreads, R / kGrain);
    const int64_t chunk = (R + nchunks - 1) / nchunks;
    nchunks = (R + chunk - 1) / chunk;
    std::vector<Acc> totals(nchunks), prefix(nchunks);
    for (int64_t o = 0; o < outer; ++o) {
      // Logical position k (in scan order) lives at physical index first + k * step.
      const int64_t first = reverse ? o * R + R - 1 : o * R;
      parallel_for(0, nchunks, 1, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c) {
          const int64_t k0 = c * chunk, n = std::min(chunk, R - k0);
          totals[c] = scan_seg(src + first + k0 * step, nullptr, n, step, ident, false);
        }
      });
      Acc run_acc = ident;
      for (int64_t c = 0; c < nchunks; ++c) {
        prefix[c] = run_acc;
        run_acc = op(run_acc, totals[c]);
      }
      parallel_for(0, nchunks, 1, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c) {
          const int64_t k0 = c * chunk, n = std::min(chunk, R - k0);
          scan_seg(src + first + k0 * step, dst + first + k0 * step, n, step, prefix[c], true);
        }
      });
    }
    return;
  }
  // [outer, R, inner]: running rows of accumulators.
  const int64_t nblk = (inner + kCols - 1) / kCols;
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(R * std::min(inner, kCols), 1));
  parallel_for(0, outer * nblk, grain, [&](int64_t b, int64_t e) {
    Acc acc[kCols];
    for (int64_t it = b; it < e; ++it) {
      const int64_t o = it / nblk, j0 = (it % nblk) * kCols, w = std::min(kCols, inner - j0);
      for (int64_t j = 0; j < w; ++j) acc[j] = ident;
      for (int64_t k = 0; k < R; ++k) {
        const int64_t r = reverse ? R - 1 - k : k;
        const int64_t off = (o * R + r) * inner + j0;
        const T* in = src + off;
        T* o_row = dst + off;
        for (int64_t j = 0; j < w; ++j) {
          acc[j] = op(acc[j], to_acc(in[j]));
          o_row[j] = out_cast<T>(acc[j]);
        }
      }
    }
  });
}

}  // namespace

void cum_scan(bool is_prod, const Tensor& x, int64_t axis, bool reverse, const Tensor& out) {
  if (out.numel() == 0) return;
  const char* name = is_prod ? "cumprod" : "cumsum";
  int64_t outer, R, inner;
  split_at_axis(x.shape(), axis, outer, R, inner);
  const Tensor src = dense(x, out.dtype());
  Tensor dst = out.is_contiguous() ? out : Tensor::make(out.shape(), out.dtype());
  dispatch_numeric(out.dtype(), name, false, [&](auto tag) {
    using T = decltype(tag);
    const T* p = static_cast<const T*>(src.raw_data());
    T* o = static_cast<T*>(dst.raw_data());
    if (is_prod) scan_impl<T, true>(p, o, outer, R, inner, reverse);
    else scan_impl<T, false>(p, o, outer, R, inner, reverse);
  });
  if (!dst.is_same(out)) copy(dst, out);
}

}  // namespace oar::kernels
