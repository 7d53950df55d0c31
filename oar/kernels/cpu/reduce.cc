#include "oar/kernels/cpu/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

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
constexpr int64_t kRowBlock = 256;
constexpr int64_t kColBlock = 64;
constexpr int64_t kGrain = 32768;  // input elements per parallel task
constexpr int64_t kCols = 256;     // output columns kept in registers/L1 in the [outer, red, inner] path
constexpr int kLanes = 8;          // independent accumulators per contiguous row

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
  if constexpr (std::is_floating_point_v<C>) return (better || x != x) ? x : a;
  else return better ? x : a;
}

template <typename T, bool IsMax>
struct MaxPolicy {
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

// ---------------------------------------------------------------------------------------------
// Layout planning: the input is brought to a contiguous [outer, red, inner] block (out[o, i] is
// the reduction over r of src[o, r, inner]).

struct Plan {
  Tensor src;
  int64_t outer = 1, red = 1, inner = 1;
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
  const Shape& sh = x.shape();
  const int64_t rank = x.ndim();
  // Drop size-1 dims and merge neighbours with the same role (valid for a contiguous layout).
  std::vector<std::pair<bool, int64_t>> groups;
  for (int64_t d = 0; d < rank; ++d) {
    if (sh[d] == 1) continue;
    if (!groups.empty() && groups.back().first == mask[d]) groups.back().second *= sh[d];
    else groups.emplace_back(mask[d], sh[d]);
  }
  Plan p;
  bool fits = true;
  const size_t n = groups.size();
  if (n == 0) {
  } else if (n == 1) {
    (groups[0].first ? p.red : p.inner) = groups[0].second;
  } else if (n == 2) {
    if (groups[0].first) {
      p.red = groups[0].second;
      p.inner = groups[1].second;
    } else {
      p.outer = groups[0].second;
      p.red = groups[1].second;
    }
  } else if (n == 3 && !groups[0].first) {
    p.outer = groups[0].second;
    p.red = groups[1].second;
    p.inner = groups[2].second;
  } else {
    fits = false;
  }
  if (fits) {
    p.src = dense(x, dtype);
    return p;
  }
  // General case: a copy with the kept dims first and the reduced dims last -> [outer, red].
  Shape pshape;
  Strides pstrides;
  p = Plan();
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t d = 0; d < rank; ++d) {
      if (mask[d] != (pass == 1)) continue;
      pshape.push_back(sh[d]);
      pstrides.push_back(x.strides()[d]);
      (pass == 0 ? p.outer : p.red) *= sh[d];
    }
  }
  const Tensor view = Tensor::make_view(x, pshape, pstrides, x.offset());
  p.src = Tensor::make(pshape, dtype);
  copy(view, p.src);
  return p;
}

// ---------------------------------------------------------------------------------------------
// The reduction engine.

// Reduces n contiguous values with kLanes independent accumulators per block.
template <typename P>
typename P::Acc reduce_row(const P& pol, const typename P::In* p, int64_t n) {
  using Part = typename P::Part;
  typename P::Acc acc = pol.acc0();
  for (int64_t b = 0; b < n; b += kRowBlock) {
    const int64_t m = std::min(kRowBlock, n - b);
    const typename P::In* q = p + b;
    Part s[kLanes];
    for (int k = 0; k < kLanes; ++k) s[k] = pol.part0();
    int64_t i = 0;
    for (; i + kLanes <= m; i += kLanes)
      for (int k = 0; k < kLanes; ++k) s[k] = pol.step(s[k], q[i + k]);
    for (; i < m; ++i) s[0] = pol.step(s[0], q[i]);
    for (int w = kLanes / 2; w > 0; w /= 2)
      for (int k = 0; k < w; ++k) s[k] = pol.merge(s[k], s[k + w]);
    acc = pol.fold(acc, s[0]);
  }
  return acc;
}

// acc[j] = reduction over r < rows of p[r * stride + j], for j < w (w <= kCols).
template <typename P>
void reduce_cols(const P& pol, const typename P::In* p, int64_t rows, int64_t stride, int64_t w,
                 typename P::Acc* acc) {
  using Part = typename P::Part;
  for (int64_t j = 0; j < w; ++j) acc[j] = pol.acc0();
  Part part[kCols];
  for (int64_t rb = 0; rb < rows; rb += kColBlock) {
    const int64_t re = std::min(rows, rb + kColBlock);
    for (int64_t j = 0; j < w; ++j) part[j] = pol.part0();
    for (int64_t r = rb; r < re; ++r) {
      const typename P::In* row = p + r * stride;
      for (int64_t j = 0; j < w; ++j) part[j] = pol.step(part[j], row[j]);
    }
    for (int64_t j = 0; j < w; ++j) acc[j] = pol.fold(acc[j], part[j]);
  }
}

template <typename P>
void run_plan(const P& pol, const Plan& pl, typename P::Out* out) {
  using In = typename P::In;
  using Acc = typename P::Acc;
  const In* src = static_cast<const In*>(pl.src.raw_data());
  const int64_t outer = pl.outer, R = pl.red, inner = pl.inner;
  const int64_t nthreads = std::max(1, get_num_threads());

  if (inner == 1) {  // outer contiguous rows of length R
    if (outer >= nthreads || R < 2 * kGrain) {
      const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(R, 1));
      parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) out[o] = pol.finish(reduce_row(pol, src + o * R, R), R);
      });
      return;
    }
    // A few long rows: each row is split among the threads and the partial results combined.
    int64_t nchunks = std::min<int64_t>(nthreads, R / kGrain);
    const int64_t chunk = ((R + nchunks - 1) / nchunks + kRowBlock - 1) / kRowBlock * kRowBlock;
    nchunks = (R + chunk - 1) / chunk;
    std::unique_ptr<Acc[]> parts(new Acc[nchunks]);  // not vector: Acc may be bool
    for (int64_t o = 0; o < outer; ++o) {
      const In* row = src + o * R;
      parallel_for(0, nchunks, 1, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c)
          parts[c] = reduce_row(pol, row + c * chunk, std::min(chunk, R - c * chunk));
      });
      Acc acc = parts[0];
      for (int64_t c = 1; c < nchunks; ++c) acc = pol.combine(acc, parts[c]);
      out[o] = pol.finish(acc, R);
    }
    return;
  }

  // [outer, R, inner]: rows of `inner` values are accumulated column-wise (vectorisable).
  const int64_t nblk = (inner + kCols - 1) / kCols;
  const int64_t items = outer * nblk;
  const int64_t n_out = outer * inner;
  const int64_t work = R * n_out;
  if (items >= nthreads || work < 4 * kGrain || n_out > (int64_t{1} << 16) || R < 2 * nthreads) {
    const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(R * std::min(inner, kCols), 1));
    parallel_for(0, items, grain, [&](int64_t b, int64_t e) {
      Acc acc[kCols];
      for (int64_t it = b; it < e; ++it) {
        const int64_t o = it / nblk, j0 = (it % nblk) * kCols, w = std::min(kCols, inner - j0);
        reduce_cols(pol, src + o * R * inner + j0, R, inner, w, acc);
        for (int64_t j = 0; j < w; ++j) out[o * inner + j0 + j] = pol.finish(acc[j], R);
      }
    });
    return;
  }
  // Few outputs and a long reduction: split R among the threads, then combine the columns.
  int64_t nchunks = std::min<int64_t>(nthreads, std::max<int64_t>(1, work / kGrain));
  const int64_t chunk = (R + nchunks - 1) / nchunks;
  nchunks = (R + chunk - 1) / chunk;
  std::unique_ptr<Acc[]> parts(new Acc[nchunks * n_out]);
  parallel_for(0, nchunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      const int64_t r0 = c * chunk, rn = std::min(chunk, R - r0);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j0 = 0; j0 < inner; j0 += kCols)
          reduce_cols(pol, src + (o * R + r0) * inner + j0, rn, inner, std::min(kCols, inner - j0),
                      parts.get() + c * n_out + o * inner + j0);
    }
  });
  for (int64_t i = 0; i < n_out; ++i) {
    Acc acc = parts[i];
    for (int64_t c = 1; c < nchunks; ++c) acc = pol.combine(acc, parts[c * n_out + i]);
    out[i] = pol.finish(acc, R);
  }
}

// Runs `pol` writing into out (through a temporary when out is not contiguous).
template <typename P>
void run(const P& pol, const Plan& pl, const Tensor& out) {
  if (out.is_contiguous()) {
    run_plan(pol, pl, static_cast<typename P::Out*>(out.raw_data()));
    return;
  }
  Tensor tmp = Tensor::make(out.shape(), out.dtype());
  run_plan(pol, pl, static_cast<typename P::Out*>(tmp.raw_data()));
  copy(tmp, out);
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
      case ReduceOp::Mean: return fill(out, Scalar(std::numeric_limits<double>::quiet_NaN()));
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
      return dispatch_numeric(t, name, true, [&](auto tag) { run(MeanPolicy<decltype(tag)>{}, pl, out); });
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

// Whether x replaces the current best b: strictly better, or the first NaN.
template <typename C, bool IsMin>
inline bool arg_better(C x, C b) {
  const bool better = IsMin ? (x < b) : (x > b);
  if constexpr (std::is_floating_point_v<C>) return better || (x != x && b == b);
  else return better;
}

template <typename T, typename I, bool IsMin>
void arg_impl(const T* src, int64_t outer, int64_t R, int64_t inner, I* out) {
  using C = compute_t<T>;
  const int64_t nthreads = std::max(1, get_num_threads());
  // First best of [r0, r1) in a strided row.
  auto scan_row = [](const T* p, int64_t r0, int64_t r1, int64_t stride, C& best, int64_t& idx) {
    best = load(p[r0 * stride]);
    idx = r0;
    for (int64_t r = r0 + 1; r < r1; ++r) {
      const C v = load(p[r * stride]);
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
          scan_row(src + o * R, 0, R, 1, best, idx);
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
          scan_row(src + o * R, c * chunk, std::min(R, (c + 1) * chunk), 1, bests[c].first,
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
        for (int64_t o = b; o < e; ++o) {
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
