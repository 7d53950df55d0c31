#include "oar/kernels/cpu/search.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"

namespace oar::kernels {
namespace {

// Orders with NaNs last (ascending) or first (descending); ties broken by index, so every sort
// below is stable and the result does not depend on the algorithm.
template <typename C>
struct Order {
  bool descending;
  bool operator()(C a, int64_t ia, C b, int64_t ib) const {
    if constexpr (std::is_floating_point_v<C>) {
      const bool na = a != a, nb = b != b;
      if (na || nb) {
        if (na && nb) return ia < ib;
        return descending ? na : nb;
      }
    }
    if (a != b) return descending ? a > b : a < b;
    return ia < ib;
  }
};

// x as [outer, n, inner] around `axis` (a contiguous copy when needed).
struct Slices {
  Tensor x;
  int64_t outer = 1, n = 1, inner = 1;
  Slices(const Tensor& t, int64_t axis) : x(t.contiguous()) {
    const Shape& s = x.shape();
    for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
      if (d < axis) outer *= s[d];
      else if (d == axis) n = s[d];
      else inner *= s[d];
    }
  }
};

// A key whose unsigned order is the value order: NaNs (either sign) above +inf, -0 equal to +0.
// Keys of types up to 32 bits fit in 32 bits.
template <typename T>
inline uint64_t order_key(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v;
  } else if constexpr (std::is_same_v<T, double>) {
    if (v != v) return ~uint64_t{0};
    uint64_t b;
    const double z = v == 0 ? 0.0 : v;
    std::memcpy(&b, &z, 8);
    return (b >> 63) ? ~b : b | (uint64_t{1} << 63);
  } else if constexpr (std::is_floating_point_v<compute_t<T>>) {  // float, float16, bfloat16
    const float f = static_cast<float>(v);
    if (f != f) return 0xFFFFFFFFu;
    uint32_t b;
    const float z = f == 0 ? 0.0f : f;
    std::memcpy(&b, &z, 4);
    return (b >> 31) ? uint32_t(~b) : (b | 0x80000000u);
  } else if constexpr (std::is_signed_v<T>) {  // shifted to start at 0
    if constexpr (sizeof(T) == 8) return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63);
    else return static_cast<uint64_t>(static_cast<int64_t>(v) - std::numeric_limits<T>::min());
  } else {
    return static_cast<uint64_t>(v);
  }
}

// Puts the k smallest elements of v first, in order.
template <typename V>
void select_first(V& v, int64_t k) {
  // partial_sort's heap rejects most elements with one comparison: 3-4x nth_element + sort
  // for top-10 of 4096 (bench_search).
  if (k < static_cast<int64_t>(v.size())) std::partial_sort(v.begin(), v.begin() + k, v.end());
  else std::sort(v.begin(), v.end());
}

// For every slice: the first k positions of its order, written as [outer, k, inner] indices.
// Each slice sorts (key, index) pairs -- packed into one word for keys of up to 32 bits --
// so equal values keep their index order and descending is the inverted key.
template <typename T>
void order_slices(const Slices& sl, int64_t k, bool descending, int64_t* out) {
  constexpr bool kNarrow = sizeof(T) <= 4;
  const T* x = static_cast<const T*>(sl.x.raw_data());
  const int64_t n = sl.n, inner = sl.inner, rows = sl.outer * inner;
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(n, 1));
  const uint64_t flip = descending ? (kNarrow ? 0xFFFFFFFFull : ~uint64_t{0}) : 0;
  parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
    std::vector<uint64_t> packed;
    std::vector<std::pair<uint64_t, int64_t>> pairs;
    for (int64_t r = b; r < e; ++r) {
      const int64_t o = r / inner, i = r % inner;
      const T* base = x + o * n * inner + i;
      int64_t* dst = out + o * k * inner + i;
      if (kNarrow && n <= (int64_t{1} << 32)) {
        packed.resize(n);
        for (int64_t j = 0; j < n; ++j) packed[j] = ((order_key(base[j * inner]) ^ flip) << 32) | uint64_t(j);
        select_first(packed, k);
        for (int64_t j = 0; j < k; ++j) dst[j * inner] = static_cast<int64_t>(packed[j] & 0xFFFFFFFFu);
      } else {
        pairs.resize(n);
        for (int64_t j = 0; j < n; ++j) pairs[j] = {order_key(base[j * inner]) ^ flip, j};
        select_first(pairs, k);
        for (int64_t j = 0; j < k; ++j) dst[j * inner] = pairs[j].second;
      }
    }
  });
}

template <typename F>
void dispatch_sortable(DType t, const char* op, F&& f) {
  if (t == DType::Bool) return f(bool{});
  dispatch_real(t, op, std::forward<F>(f));
}

}  // namespace

void argsort(const Tensor& x, int64_t axis, bool descending, const Tensor& out) {
  if (x.numel() == 0) return;
  const Slices sl(x, axis);
  dispatch_sortable(x.dtype(), "argsort", [&](auto tag) {
    order_slices<decltype(tag)>(sl, sl.n, descending, out.data<int64_t>());
  });
}

void topk_indices(const Tensor& x, int64_t k, int64_t axis, bool largest, const Tensor& out) {
  if (out.numel() == 0) return;
  const Slices sl(x, axis);
  dispatch_sortable(x.dtype(), "topk", [&](auto tag) {
    order_slices<decltype(tag)>(sl, k, largest, out.data<int64_t>());
  });
}

Tensor nonzero(const Tensor& x) {
  const Tensor c = x.contiguous();
  const int64_t n = c.numel(), nd = c.ndim();
  std::vector<int64_t> hits;
  dispatch_all(c.dtype(), "nonzero", [&](auto tag) {
    using T = decltype(tag);
    const T* p = static_cast<const T*>(c.raw_data());
    for (int64_t i = 0; i < n; ++i)
      if (p[i] != T(0)) hits.push_back(i);
  });
  Tensor out = Tensor::make({static_cast<int64_t>(hits.size()), nd}, DType::Int64);
  int64_t* o = out.data<int64_t>();
  const Shape& s = c.shape();
  for (size_t h = 0; h < hits.size(); ++h) {
    int64_t rem = hits[h];
    for (int64_t d = nd - 1; d >= 0; --d) {
      o[h * nd + d] = rem % s[d];
      rem /= s[d];
    }
  }
  return out;
}

void searchsorted(const Tensor& seq, const Tensor& values, bool right, const Tensor& out) {
  const Tensor s = seq.contiguous(), v = values.contiguous();
  const int64_t m = s.ndim() ? s.shape().back() : 1;
  const int64_t per = v.ndim() ? v.shape().back() : 1;  // values sharing one sequence row
  const bool shared = s.ndim() <= 1;
  const int64_t total = v.numel();
  dispatch_real(s.dtype(), "searchsorted", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* sp = static_cast<const T*>(s.raw_data());
    const T* vp = static_cast<const T*>(v.raw_data());
    auto find = [&](int64_t i) -> int64_t {
      const T* row = sp + (shared ? 0 : (i / per) * m);
      const C val = static_cast<C>(vp[i]);
      int64_t lo = 0, hi = m;  // first position whose element is >= val (> val when right)
      while (lo < hi) {
        const int64_t mid = (lo + hi) / 2;
        const C e = static_cast<C>(row[mid]);
        if (right ? !(val < e) : e < val) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    if (out.dtype() == DType::Int32) {
      int32_t* o = out.data<int32_t>();
      parallel_for(0, total, 4096, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) o[i] = static_cast<int32_t>(find(i));
      });
    } else {
      int64_t* o = out.data<int64_t>();
      parallel_for(0, total, 4096, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) o[i] = find(i);
      });
    }
  });
}

namespace {

// The indices v as an int32 or int64 tensor of `shape` (v.size() elements).
Tensor index_values(const std::vector<int64_t>& v, const Shape& shape, DType index_dtype) {
  Tensor t = Tensor::make(shape, index_dtype);
  if (index_dtype == DType::Int32) {
    int32_t* d = t.data<int32_t>();
    for (size_t k = 0; k < v.size(); ++k) d[k] = static_cast<int32_t>(v[k]);
  } else {
    std::copy(v.begin(), v.end(), t.data<int64_t>());
  }
  return t;
}

}  // namespace

std::vector<Tensor> unique_rows(const Tensor& x, bool consecutive, DType index_dtype) {
  OAR_ENFORCE_ARG(x.ndim() == 2, "unique_rows: argument 'x' must be 2-D, got shape ",
                  shape_str(x.shape()));
  const Tensor c = x.contiguous();
  const int64_t n = c.shape()[0], m = c.shape()[1];
  std::vector<Tensor> result;
  dispatch_sortable(c.dtype(), consecutive ? "unique_consecutive" : "unique", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* p = static_cast<const T*>(c.raw_data());
    auto at = [&](int64_t r, int64_t k) { return static_cast<C>(p[r * m + k]); };
    // Lexicographic, NaNs after numbers in each column; ties by row index (a stable order, so
    // each group's first row is its first occurrence).
    auto less = [&](int64_t a, int64_t b) {
      for (int64_t k = 0; k < m; ++k) {
        const C u = at(a, k), v = at(b, k);
        if constexpr (std::is_floating_point_v<C>) {
          const bool nu = u != u, nv = v != v;
          if (nu != nv) return nv;
          if (nu) continue;
        }
        if (u != v) return u < v;
      }
      return a < b;
    };
    auto same = [&](int64_t a, int64_t b) {
      for (int64_t k = 0; k < m; ++k)
        if (!(at(a, k) == at(b, k))) return false;  // NaN == NaN is false
      return true;
    };
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), int64_t{0});
    if (!consecutive) std::sort(order.begin(), order.end(), less);
    std::vector<int64_t> first, counts, inverse(n);
    for (int64_t j = 0; j < n; ++j) {
      const int64_t r = order[j];
      if (j == 0 || !same(r, order[j - 1])) {
        first.push_back(r);
        counts.push_back(0);
      }
      ++counts.back();
      inverse[r] = static_cast<int64_t>(first.size()) - 1;
    }
    const auto sized = [](const std::vector<int64_t>& v) { return Shape{static_cast<int64_t>(v.size())}; };
    result = {index_values(first, sized(first), index_dtype), index_values(inverse, sized(inverse), index_dtype),
              index_values(counts, sized(counts), index_dtype)};
  });
  return result;
}

std::vector<Tensor> unique_flat(const Tensor& x, bool consecutive, DType index_dtype) {
  const Tensor c = x.contiguous();
  const int64_t n = c.numel();
  std::vector<Tensor> result;
  dispatch_sortable(c.dtype(), consecutive ? "unique_consecutive" : "unique", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* p = static_cast<const T*>(c.raw_data());
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), int64_t{0});
    const Order<C> asc{false};
    if (!consecutive)
      std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return asc(static_cast<C>(p[a]), a, static_cast<C>(p[b]), b);
      });
    // Equal neighbours in `order` form one group (NaNs are never equal, as Paddle).
    std::vector<int64_t> first, counts, inverse(n);
    for (int64_t j = 0; j < n; ++j) {
      const int64_t i = order[j];
      if (j == 0 || !(static_cast<C>(p[i]) == static_cast<C>(p[order[j - 1]]))) {
        first.push_back(i);
        counts.push_back(0);
      }
      ++counts.back();
      inverse[i] = static_cast<int64_t>(first.size()) - 1;
    }
    const int64_t u = static_cast<int64_t>(first.size());
    Tensor values = Tensor::make({u}, c.dtype());
    T* vp = static_cast<T*>(values.raw_data());
    for (int64_t g = 0; g < u; ++g) vp[g] = p[first[g]];
    result = {values, index_values(first, {u}, index_dtype), index_values(inverse, c.shape(), index_dtype),
              index_values(counts, {u}, index_dtype)};
  });
  return result;
}

}  // namespace oar::kernels
