#include "oar/kernels/cpu/index.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/loops.h"
#include "oar/kernels/cpu/shape.h"

namespace oar::kernels {

namespace {

constexpr int64_t kCopyGrainBytes = int64_t{1} << 16;

int64_t grain_for(int64_t work_per_item, int64_t budget = kElementwiseGrain) {
  return std::max<int64_t>(1, budget / std::max<int64_t>(work_per_item, 1));
}

char* bytes_of(const Tensor& t) { return static_cast<char*>(t.raw_data()); }

// dst row r (row_elems elements, rows back to back) = the row of src starting at element
// src_offset(r). Works on raw bytes, so every dtype goes through it.
template <typename SrcOffset>
void gather_rows(char* dst, const char* src, int64_t rows, int64_t row_elems, int64_t es,
                 const SrcOffset& src_offset) {
  if (rows == 0 || row_elems == 0) return;
  if (row_elems == 1) {
    dispatch_by_size(static_cast<size_t>(es), [&](auto tag) {
      constexpr int64_t E = sizeof(decltype(tag));
      parallel_for(0, rows, kElementwiseGrain, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) std::memcpy(dst + r * E, src + src_offset(r) * E, E);
      });
    });
    return;
  }
  const int64_t rb = row_elems * es;
  parallel_for(0, rows, grain_for(rb, kCopyGrainBytes), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) std::memcpy(dst + r * rb, src + src_offset(r) * es, rb);
  });
}

template <typename T>
inline void add_into(T& a, const T& b) {
  if constexpr (std::is_same_v<T, bool>) {
    a = a || b;
  } else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    a = T(static_cast<float>(a) + static_cast<float>(b));
  } else {
    a = static_cast<T>(a + b);
  }
}

template <typename T>
T scalar_as(const Scalar& s) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) return T(s.to<float>());
  else return s.to<T>();
}

// t broadcast to `shape` as a contiguous tensor (t itself when it already is one).
Tensor broadcast_dense(const Tensor& t, const Shape& shape) {
  if (t.shape() == shape) return as_contiguous(t);
  Tensor c = Tensor::make(shape, t.dtype());
  copy(t, c);
  return c;
}

// Positions of the true values of a bool array, counted per chunk so that the compaction can
// run in parallel: chunk c's first true value has rank first[c].
struct TrueCounts {
  static constexpr int64_t kChunk = 1 << 16;
  int64_t chunks = 0;
  std::vector<int64_t> first;
  int64_t total = 0;

  TrueCounts(const bool* m, int64_t n) {
    chunks = (n + kChunk - 1) / kChunk;
    std::vector<int64_t> counts(chunks, 0);
    parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        const int64_t lo = c * kChunk, hi = std::min(n, lo + kChunk);
        int64_t k = 0;
        for (int64_t i = lo; i < hi; ++i) k += m[i] ? 1 : 0;
        counts[c] = k;
      }
    });
    first.resize(chunks);
    for (int64_t c = 0; c < chunks; ++c) {
      first[c] = total;
      total += counts[c];
    }
  }

  // f(i, k) for every true position i, k being its rank among the true positions.
  template <typename F>
  void for_each(const bool* m, int64_t n, const F& f) const {
    parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        const int64_t lo = c * kChunk, hi = std::min(n, lo + kChunk);
        int64_t k = first[c];
        for (int64_t i = lo; i < hi; ++i)
          if (m[i]) f(i, k++);
      }
    });
  }
};

// ---- advanced indexing ----

// The resolved form of a list of index tensors against x.
struct IndexComponent {
  Shape shape;
  std::vector<int64_t> values;  // already wrapped into [0, dim)
  int64_t dim;
};

// Whether dims [from, rank) of t are laid out contiguously (size-1 dims ignored).
bool trailing_contiguous(const Tensor& t, int64_t from) {
  int64_t expected = 1;
  for (int64_t d = t.ndim() - 1; d >= from; --d) {
    if (t.shape()[d] == 1) continue;
    if (t.strides()[d] != expected) return false;
    expected *= t.shape()[d];
  }
  return true;
}

}  // namespace

AdvancedIndex resolve_indices(const char* op, const Shape& x_shape, const Strides& strides,
                              const std::vector<Tensor>& indices) {
  const int64_t rank = static_cast<int64_t>(x_shape.size());
  std::vector<IndexComponent> comps;
  int64_t d = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const Tensor& t = indices[i];
    OAR_ENFORCE(t.defined(), InvalidArgument, op, ": indices[", i, "] is not an initialised tensor.");
    if (t.dtype() == DType::Bool) {
      const int64_t r = t.ndim();
      OAR_ENFORCE(r > 0, InvalidArgument, op, ": indices[", i, "] is a 0-D bool tensor; ",
                  "a 0-D bool index is not supported here (index with a 1-D mask instead).");
      OAR_ENFORCE(d + r <= rank, OutOfRange, op, ": too many indices for a tensor of dimension ",
                  rank, " (indices[", i, "] is a ", r, "-D bool mask starting at dimension ", d,
                  "); x's shape = ", shape_str(x_shape), ".");
      for (int64_t k = 0; k < r; ++k)
        OAR_ENFORCE(t.shape()[k] == x_shape[d + k], OutOfRange, op, ": The shape of the bool ",
                    "mask indices[", i, "] = ", shape_str(t.shape()), " does not match the shape ",
                    "of the indexed tensor ", shape_str(x_shape), " starting at dimension ", d,
                    " (mask dimension ", k, " is ", t.shape()[k], ", tensor dimension ", d + k,
                    " is ", x_shape[d + k], ").");
      const Tensor m = as_contiguous(t);
      const bool* mp = m.data<bool>();
      const int64_t n = m.numel();
      int64_t count = 0;
      for (int64_t j = 0; j < n; ++j) count += mp[j] ? 1 : 0;
      const size_t first = comps.size();
      for (int64_t k = 0; k < r; ++k) {
        IndexComponent c{Shape{count}, {}, d + k};
        c.values.reserve(count);
        comps.push_back(std::move(c));
      }
      // Coordinates of each true element, in row-major order.
      std::vector<int64_t> coord(r, 0);
      for (int64_t j = 0; j < n; ++j) {
        if (mp[j])
          for (int64_t k = 0; k < r; ++k) comps[first + k].values.push_back(coord[k]);
        for (int64_t k = r - 1; k >= 0; --k) {
          if (++coord[k] < t.shape()[k]) break;
          coord[k] = 0;
        }
      }
      d += r;
    } else {
      OAR_ENFORCE(t.dtype() == DType::Int32 || t.dtype() == DType::Int64, TypeMismatch, op,
                  ": indices[", i, "] must be an int32, int64 or bool tensor, but received dtype ",
                  dtype_name(t.dtype()), ".");
      OAR_ENFORCE(d < rank, OutOfRange, op, ": too many indices for a tensor of dimension ", rank,
                  " (indices[", i, "] would address dimension ", d, "); x's shape = ",
                  shape_str(x_shape), ".");
      comps.push_back({t.shape(), read_index(op, "indices", t, x_shape[d], d), d});
      ++d;
    }
  }
  AdvancedIndex adv;
  adv.dims = d;
  // Broadcast the index shapes (IndexError on mismatch, as NumPy).
  Shape b = comps.empty() ? Shape{} : comps[0].shape;
  for (size_t i = 1; i < comps.size(); ++i) {
    const Shape& s = comps[i].shape;
    const size_t n = std::max(b.size(), s.size());
    Shape r(n);
    bool ok = true;
    for (size_t j = 0; j < n; ++j) {
      const int64_t x1 = j < n - b.size() ? 1 : b[j - (n - b.size())];
      const int64_t x2 = j < n - s.size() ? 1 : s[j - (n - s.size())];
      ok &= x1 == x2 || x1 == 1 || x2 == 1;
      r[j] = x1 == 1 ? x2 : x1;
    }
    if (!ok) {
      std::string shapes;
      for (const auto& c : comps) shapes += (shapes.empty() ? "" : " ") + shape_str(c.shape);
      OAR_THROW(OutOfRange, op, ": shape mismatch: indexing tensors could not be broadcast ",
                "together with shapes ", shapes, ".");
    }
    b = r;
  }
  adv.shape = b;
  const int64_t positions = numel_of(b);
  adv.offsets.assign(positions, 0);
  const int64_t br = static_cast<int64_t>(b.size());
  for (const IndexComponent& c : comps) {
    const int64_t stride = strides[c.dim];
    if (c.shape == b) {
      for (int64_t p = 0; p < positions; ++p) adv.offsets[p] += c.values[p] * stride;
      continue;
    }
    // Element strides of c within B (0 along broadcast dims).
    std::vector<int64_t> cst(br, 0);
    const int64_t lead = br - static_cast<int64_t>(c.shape.size());
    int64_t acc = 1;
    for (int64_t j = static_cast<int64_t>(c.shape.size()) - 1; j >= 0; --j) {
      cst[lead + j] = c.shape[j] == 1 ? 0 : acc;
      acc *= c.shape[j];
    }
    std::vector<int64_t> idx(br, 0);
    int64_t src = 0;
    for (int64_t p = 0; p < positions; ++p) {
      adv.offsets[p] += c.values[src] * stride;
      for (int64_t j = br - 1; j >= 0; --j) {
        src += cst[j];
        if (++idx[j] < b[j]) break;
        src -= cst[j] * idx[j];
        idx[j] = 0;
      }
    }
  }
  return adv;
}

std::vector<int64_t> read_index(const char* op, const char* arg, const Tensor& index, int64_t n,
                                int64_t axis) {
  OAR_ENFORCE(index.dtype() == DType::Int32 || index.dtype() == DType::Int64, TypeMismatch, op,
              ": argument '", arg, "' must be an int32 or int64 tensor, but received dtype ",
              dtype_name(index.dtype()), ".");
  const Tensor c = as_contiguous(index);
  std::vector<int64_t> out(static_cast<size_t>(c.numel()));
  auto fill = [&](const auto* p) {
    for (size_t i = 0; i < out.size(); ++i) {
      const int64_t v = static_cast<int64_t>(p[i]);
      if (v < -n || v >= n)
        OAR_THROW(OutOfRange, op, ": index ", v, " is out of bounds for axis ", axis, " with size ",
                  n, " (argument '", arg, "', position ", i, "); it should be in the range [", -n,
                  ", ", n, ").");
      out[i] = v < 0 ? v + n : v;
    }
  };
  if (c.dtype() == DType::Int32) fill(c.data<int32_t>());
  else fill(c.data<int64_t>());
  return out;
}

void index_select(const char* op, const Tensor& x, const Tensor& index, int64_t axis,
                  const Tensor& out) {
  axis = normalize_axis(axis, x.ndim(), op, "axis");
  const int64_t n = x.shape()[axis];
  const std::vector<int64_t> idx = read_index(op, "index", index, n, axis);
  if (out.numel() == 0) return;
  const Tensor xc = as_contiguous(x);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (int64_t d = axis + 1; d < x.ndim(); ++d) inner *= x.shape()[d];
  const int64_t m = static_cast<int64_t>(idx.size());
  gather_rows(bytes_of(out), bytes_of(xc), outer * m, inner, static_cast<int64_t>(x.element_size()),
              [&](int64_t r) { return ((r / m) * n + idx[r % m]) * inner; });
}

void index_add(const char* op, const Tensor& x, const Tensor& index, int64_t axis,
               const Tensor& value, const Tensor& out) {
  axis = normalize_axis(axis, x.ndim(), op, "axis");
  const int64_t n = x.shape()[axis];
  const std::vector<int64_t> idx = read_index(op, "index", index, n, axis);
  copy(x, out);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (int64_t d = axis + 1; d < x.ndim(); ++d) inner *= x.shape()[d];
  const int64_t m = static_cast<int64_t>(idx.size());
  if (outer == 0 || inner == 0 || m == 0) return;
  const Tensor v = as_contiguous(value, out.dtype());
  dispatch_all(out.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* o = static_cast<T*>(out.raw_data());
    const T* vp = static_cast<const T*>(v.raw_data());
    // Each thread owns whole outer rows or a range of inner positions, so repeated indices
    // accumulate without races and in a fixed order.
    auto body = [&](int64_t ob, int64_t oe, int64_t kb, int64_t ke) {
      for (int64_t oi = ob; oi < oe; ++oi)
        for (int64_t j = 0; j < m; ++j) {
          T* dst = o + (oi * n + idx[j]) * inner;
          const T* src = vp + (oi * m + j) * inner;
          for (int64_t k = kb; k < ke; ++k) add_into(dst[k], src[k]);
        }
    };
    if (outer >= inner) {
      parallel_for(0, outer, grain_for(m * inner), [&](int64_t b, int64_t e) { body(b, e, 0, inner); });
    } else {
      parallel_for(0, inner, grain_for(outer * m), [&](int64_t b, int64_t e) { body(0, outer, b, e); });
    }
  });
}

void masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value, const Tensor& out) {
  dispatch_all(out.dtype(), "masked_fill", [&](auto tag) {
    using T = decltype(tag);
    const T v = scalar_as<T>(value);
    binary_loop<T, T, bool>(x, mask, out, [v](T a, bool m) { return m ? v : a; });
  });
}

Tensor repeat_interleave_index(const Tensor& repeats, int64_t n) {
  OAR_ENFORCE(repeats.dtype() == DType::Int32 || repeats.dtype() == DType::Int64, TypeMismatch,
              "repeat_interleave: argument 'repeats' must be an int32 or int64 tensor, but received dtype ",
              dtype_name(repeats.dtype()), ".");
  OAR_ENFORCE_ARG(repeats.numel() == 1 || repeats.numel() == n, "repeat_interleave: 'repeats' must hold one ",
                  "count or ", n, " (one per element along the axis), got ", repeats.numel());
  OAR_ENFORCE_ARG(n >= 0, "repeat_interleave: the number of elements must be >= 0, got ", n);
  const Tensor r = as_contiguous(repeats, DType::Int64);
  const int64_t* c = r.data<int64_t>();
  const bool one_count = r.numel() == 1;
  // One count for all: n * count, checked, with no walk over n (n may be huge when count is 0).
  int64_t total = 0;
  if (one_count) {
    OAR_ENFORCE_ARG(c[0] >= 0, "repeat_interleave: 'repeats' must be non-negative, got ", c[0]);
    total = checked_mul(n, c[0], "repeat_interleave", "the output size");
  } else {
    for (int64_t i = 0; i < n; ++i) {
      OAR_ENFORCE_ARG(c[i] >= 0, "repeat_interleave: 'repeats' must be non-negative, got ", c[i]);
      total = checked_add(total, c[i], "repeat_interleave", "the output size");
    }
  }
  Tensor out = Tensor::make({total}, DType::Int64);
  int64_t* o = out.data<int64_t>();
  if (total > 0)
    for (int64_t i = 0; i < n; ++i) o = std::fill_n(o, c[one_count ? 0 : i], i);
  return out;
}

Tensor masked_select(const Tensor& x, const Tensor& mask) {
  OAR_ENFORCE(mask.dtype() == DType::Bool, TypeMismatch, "masked_select: argument 'mask' must be ",
              "a bool tensor, but received dtype ", dtype_name(mask.dtype()), ".");
  const Shape shape = broadcast_shapes(x.shape(), mask.shape(), "masked_select");
  const Tensor xb = broadcast_dense(x, shape);
  const Tensor mb = broadcast_dense(mask, shape);
  const bool* m = mb.data<bool>();
  const int64_t n = mb.numel();
  const TrueCounts counts(m, n);
  Tensor out = Tensor::make({counts.total}, x.dtype());
  if (counts.total == 0) return out;
  char* o = bytes_of(out);
  const char* src = bytes_of(xb);
  dispatch_by_size(x.element_size(), [&](auto tag) {
    constexpr int64_t E = sizeof(decltype(tag));
    counts.for_each(m, n, [&](int64_t i, int64_t k) { std::memcpy(o + k * E, src + i * E, E); });
  });
  return out;
}

void masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& value, const Tensor& out) {
  copy(x, out);
  const Tensor mb = broadcast_dense(mask, out.shape());
  const bool* m = mb.data<bool>();
  const int64_t n = mb.numel();
  const TrueCounts counts(m, n);
  OAR_ENFORCE_ARG(value.numel() >= counts.total, "masked_scatter: argument 'value' must have at ",
                  "least as many elements as 'mask' has True values, but received value's shape = ",
                  shape_str(value.shape()), " (", value.numel(), " elements) and ", counts.total,
                  " True values in mask (mask broadcast to ", shape_str(out.shape()), ").");
  if (counts.total == 0) return;
  const Tensor vc = as_contiguous(value, out.dtype());
  char* o = bytes_of(out);
  const char* src = bytes_of(vc);
  dispatch_by_size(out.element_size(), [&](auto tag) {
    constexpr int64_t E = sizeof(decltype(tag));
    counts.for_each(m, n, [&](int64_t i, int64_t k) { std::memcpy(o + i * E, src + k * E, E); });
  });
}

Tensor index_tensor(const char* op, const Tensor& x, const std::vector<Tensor>& indices) {
  OAR_ENFORCE_ARG(!indices.empty(), op, ": argument 'indices' must hold at least one index tensor.");
  // Read x in place when the part of it that is copied row by row is contiguous.
  int64_t k_max = 0;
  for (const Tensor& t : indices) k_max += t.defined() && t.dtype() == DType::Bool ? t.ndim() : 1;
  const Tensor src = trailing_contiguous(x, std::min<int64_t>(k_max, x.ndim())) ? x : as_contiguous(x);
  const AdvancedIndex adv = resolve_indices(op, src.shape(), src.strides(), indices);
  Shape out_shape = adv.shape;
  int64_t inner = 1;
  for (int64_t d = adv.dims; d < x.ndim(); ++d) {
    out_shape.push_back(x.shape()[d]);
    inner *= x.shape()[d];
  }
  Tensor out = Tensor::make(out_shape, x.dtype());
  const std::vector<int64_t>& offsets = adv.offsets;
  gather_rows(bytes_of(out), bytes_of(src), static_cast<int64_t>(offsets.size()), inner,
              static_cast<int64_t>(x.element_size()), [&](int64_t r) { return offsets[r]; });
  return out;
}

void index_put(const char* op, const Tensor& x, const std::vector<Tensor>& indices,
               const Tensor& value, bool accumulate, const Tensor& out) {
  const AdvancedIndex adv = resolve_indices(op, out.shape(), out.strides(), indices);
  Shape target = adv.shape;
  int64_t inner = 1;
  for (int64_t d = adv.dims; d < x.ndim(); ++d) {
    target.push_back(x.shape()[d]);
    inner *= x.shape()[d];
  }
  bool fits = value.ndim() <= static_cast<int64_t>(target.size());
  for (int64_t i = 0; fits && i < value.ndim(); ++i) {
    const int64_t v = value.shape()[value.ndim() - 1 - i], t = target[target.size() - 1 - i];
    fits = v == t || v == 1;
  }
  OAR_ENFORCE_ARG(fits, op, ": shape mismatch: value tensor of shape ", shape_str(value.shape()),
                  " cannot be broadcast to the indexing result of shape ", shape_str(target),
                  " (x's shape = ", shape_str(x.shape()), ").");
  copy(x, out);
  const int64_t positions = static_cast<int64_t>(adv.offsets.size());
  if (positions == 0 || inner == 0) return;
  Tensor vb = value;  // value broadcast to `target` in out's dtype, contiguous
  if (value.shape() != target || value.dtype() != out.dtype() || !value.is_contiguous()) {
    vb = Tensor::make(target, out.dtype());
    copy(value, vb);
  }
  const std::vector<int64_t>& off = adv.offsets;
  // Threads split the inner block; each walks the positions in order, so with repeats the last
  // write wins (assignment) or all of them add up (accumulate), deterministically.
  if (!accumulate) {
    const int64_t es = static_cast<int64_t>(out.element_size());
    char* o = bytes_of(out);
    const char* v = bytes_of(vb);
    if (inner == 1) {  // one element per position: a serial scatter (later repeats win)
      dispatch_by_size(static_cast<size_t>(es), [&](auto tag) {
        constexpr int64_t E = sizeof(decltype(tag));
        for (int64_t p = 0; p < positions; ++p) std::memcpy(o + off[p] * E, v + p * E, E);
      });
      return;
    }
    parallel_for(0, inner, grain_for(positions * es, kCopyGrainBytes), [&](int64_t b, int64_t e) {
      for (int64_t p = 0; p < positions; ++p)
        std::memcpy(o + (off[p] + b) * es, v + (p * inner + b) * es, (e - b) * es);
    });
    return;
  }
  dispatch_all(out.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* o = static_cast<T*>(out.raw_data());
    const T* v = static_cast<const T*>(vb.raw_data());
    parallel_for(0, inner, grain_for(positions), [&](int64_t b, int64_t e) {
      for (int64_t p = 0; p < positions; ++p)
        for (int64_t k = b; k < e; ++k) add_into(o[off[p] + k], v[p * inner + k]);
    });
  });
}

}  // namespace oar::kernels
