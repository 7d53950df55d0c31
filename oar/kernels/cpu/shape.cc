#include "oar/kernels/cpu/shape.h"

#include <algorithm>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/elementwise.h"

namespace oar::kernels {

void write_shape(const Tensor& x, const Tensor& out) {
  int64_t* o = out.data<int64_t>();
  for (int64_t d = 0; d < x.ndim(); ++d) o[d] = x.shape()[d];
}

void write_numel(const Tensor& x, const Tensor& out) { *out.data<int64_t>() = x.numel(); }


namespace {

// Bytes per parallel chunk for plain memory copies.
constexpr int64_t kCopyGrainBytes = int64_t{1} << 16;

int64_t grain_for(int64_t bytes_per_item) {
  return std::max<int64_t>(1, kCopyGrainBytes / std::max<int64_t>(bytes_per_item, 1));
}

char* bytes_of(const Tensor& t) { return static_cast<char*>(t.raw_data()); }

}  // namespace

Tensor as_contiguous(const Tensor& t) {
  if (!t.defined() || t.is_contiguous()) return t;
  // A view of device memory (reshape_view reaches here for every place): copied on its device.
  if (!t.place().is_host()) [[unlikely]] return t.contiguous();
  Tensor c = Tensor::make(t.shape(), t.dtype());
  copy(t, c);
  return c;
}

Tensor as_contiguous(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return as_contiguous(t);
  Tensor c = Tensor::make(t.shape(), dtype);
  copy(t, c);
  return c;
}

bool view_strides(const Shape& shape, const Strides& strides, const Shape& new_shape,
                  Strides& out) {
  const int64_t n = static_cast<int64_t>(new_shape.size());
  if (numel_of(shape) == 0) {  // nothing is addressed: any strides do
    out = contiguous_strides(new_shape);
    return true;
  }
  // Runs of old dims (size-1 dims ignored) that are laid out back to back: each run behaves
  // like one dimension of `size` elements with stride `stride`.
  struct Run {
    int64_t size, stride;
  };
  std::vector<Run> runs;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (!runs.empty() && runs.back().stride == shape[i] * strides[i]) {
      runs.back().size *= shape[i];
      runs.back().stride = strides[i];
    } else {
      runs.push_back({shape[i], strides[i]});
    }
  }
  // Hand new dims to runs from the innermost outwards; each run must be covered exactly.
  out.assign(new_shape.size(), 0);
  int64_t j = n - 1;
  for (size_t r = runs.size(); r-- > 0;) {
    int64_t acc = 1;
    while (acc < runs[r].size) {
      if (j < 0) return false;
      out[j] = acc * runs[r].stride;
      acc *= new_shape[j];
      --j;
    }
    if (acc != runs[r].size) return false;
  }
  for (; j >= 0; --j) {  // what is left may only be size-1 dims
    if (new_shape[j] != 1) return false;
    out[j] = j + 1 < n ? out[j + 1] * new_shape[j + 1] : 1;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Views

Tensor reshape_view(const Tensor& x, const Shape& shape) {
  if (x.is_contiguous()) return Tensor::make_view(x, shape, contiguous_strides(shape), x.offset());
  Strides st;
  if (view_strides(x.shape(), x.strides(), shape, st)) return Tensor::make_view(x, shape, st, x.offset());
  const Tensor c = as_contiguous(x);  // no view exists: copy, then view the copy
  return Tensor::make_view(c, shape, contiguous_strides(shape), c.offset());
}

Tensor permute_view(const Tensor& x, const std::vector<int64_t>& perm) {
  Shape shape(perm.size());
  Strides st(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    shape[i] = x.shape()[perm[i]];
    st[i] = x.strides()[perm[i]];
  }
  return Tensor::make_view(x, shape, st, x.offset());
}

Tensor expand_view(const Tensor& x, const Shape& shape) {
  const size_t lead = shape.size() - x.shape().size();
  Strides st(shape.size(), 0);
  for (size_t i = 0; i < x.shape().size(); ++i)
    st[lead + i] = x.shape()[i] == shape[lead + i] ? x.strides()[i] : 0;
  return Tensor::make_view(x, shape, st, x.offset());
}

Tensor slice_view(const Tensor& x, const SlicePlan& plan) {
  Strides st(x.shape().size());
  int64_t offset = x.offset();
  const bool empty = numel_of(plan.shape) == 0;
  for (size_t d = 0; d < st.size(); ++d) {
    st[d] = x.strides()[d] * plan.step[d];
    if (!empty) offset += plan.start[d] * x.strides()[d];
  }
  return Tensor::make_view(x, plan.shape, st, offset);
}

std::vector<Tensor> split_views(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis) {
  std::vector<Tensor> out;
  out.reserve(sizes.size());
  int64_t start = 0;
  for (int64_t size : sizes) {
    Shape shape = x.shape();
    shape[axis] = size;
    const int64_t offset = x.offset() + (numel_of(shape) == 0 ? 0 : start * x.strides()[axis]);
    out.push_back(Tensor::make_view(x, shape, x.strides(), offset));
    start += size;
  }
  return out;
}

std::vector<Tensor> unbind_views(const Tensor& x, int64_t axis) {
  Shape shape = x.shape();
  Strides st = x.strides();
  shape.erase(shape.begin() + axis);
  st.erase(st.begin() + axis);
  std::vector<Tensor> out;
  const int64_t n = x.shape()[axis];
  out.reserve(n);
  for (int64_t i = 0; i < n; ++i)
    out.push_back(Tensor::make_view(x, shape, st, x.offset() + i * x.strides()[axis]));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Copies

void concat(const std::vector<Tensor>& xs, int64_t axis, const Tensor& out) {
  if (out.numel() == 0) return;
  axis = normalize_axis(axis, out.ndim(), "concat");
  const Shape& os = out.shape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= os[d];
  for (int64_t d = axis + 1; d < out.ndim(); ++d) inner *= os[d];
  const int64_t es = static_cast<int64_t>(out.element_size());
  const int64_t out_row = os[axis] * inner * es;  // bytes of one outer row of out
  char* obase = bytes_of(out);
  int64_t at = 0;  // position along axis where the next input goes
  for (const Tensor& x : xs) {
    if (x.numel() == 0) continue;  // adds nothing (or is one of the zero-size inputs Paddle skips)
    const int64_t size = x.shape()[axis];
    if (x.dtype() == out.dtype() && x.is_contiguous()) {
      const int64_t row = size * inner * es;
      const char* xbase = bytes_of(x);
      char* dst = obase + at * inner * es;
      parallel_for(0, outer, grain_for(row), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) std::memcpy(dst + o * out_row, xbase + o * row, row);
      });
    } else {
      copy(x, Tensor::make_view(out, x.shape(), out.strides(), out.offset() + at * inner));
    }
    at += size;
  }
}

void tile(const Tensor& x, const Tensor& out) {
  if (out.numel() == 0) return;
  const int64_t rank = out.ndim();
  const int64_t lead = rank - x.ndim();
  // x's shape and strides left-padded to out's rank.
  Shape xs(rank, 1);
  Strides xst(rank, 0);
  for (int64_t i = 0; i < x.ndim(); ++i) {
    xs[lead + i] = x.shape()[i];
    xst[lead + i] = x.strides()[i];
  }
  const Strides& ost = out.strides();  // out is contiguous
  // 1. x goes to the block of out at the origin.
  copy(Tensor::make_view(x, xs, xst, x.offset()), Tensor::make_view(out, xs, ost, out.offset()));
  // 2. From the innermost dim outwards, replicate the filled block along each repeated dim.
  //    Before step d, for every index of dims < d inside x's extent, the xs[d] * ost[d] elements
  //    starting there are filled; they are copied reps[d] - 1 times right after themselves.
  const int64_t es = static_cast<int64_t>(out.element_size());
  char* base = bytes_of(out);
  for (int64_t d = rank - 1; d >= 0; --d) {
    const int64_t reps = out.shape()[d] / xs[d];
    if (reps <= 1) continue;
    const int64_t block = xs[d] * ost[d] * es, total = block * reps;
    int64_t prefixes = 1;
    for (int64_t j = 0; j < d; ++j) prefixes *= xs[j];
    parallel_for(0, prefixes, grain_for(total), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        int64_t rem = p, off = 0;
        for (int64_t j = d - 1; j >= 0; --j) {
          off += (rem % xs[j]) * ost[j];
          rem /= xs[j];
        }
        char* start = base + off * es;
        // Doubling copies: log2(reps) memcpy calls per prefix.
        for (int64_t filled = block; filled < total;) {
          const int64_t n = std::min(filled, total - filled);
          std::memcpy(start + filled, start, n);
          filled += n;
        }
      }
    });
  }
}

void flip(const Tensor& x, const std::vector<int64_t>& axes, const Tensor& out) {
  if (out.numel() == 0) return;
  const int64_t rank = x.ndim();
  if (rank >= 1 && x.is_contiguous()) {
    // Row by row over the last dim: a memcpy, or an element-wise reversal when it is flipped.
    std::vector<bool> flipped(rank, false);
    for (int64_t a : axes) flipped[a] = true;
    const Shape& shape = x.shape();
    const Strides cst = contiguous_strides(shape);
    const int64_t inner = shape[rank - 1], rows = x.numel() / inner;
    const int64_t es = static_cast<int64_t>(x.element_size());
    const char* src = bytes_of(x);
    char* dst = bytes_of(out);
    dispatch_by_size(static_cast<size_t>(es), [&](auto tag) {
      constexpr int64_t E = sizeof(decltype(tag));
      parallel_for(0, rows, grain_for(inner * E), [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          int64_t rem = r, soff = 0;
          for (int64_t d = rank - 2; d >= 0; --d) {
            int64_t i = rem % shape[d];
            rem /= shape[d];
            if (flipped[d]) i = shape[d] - 1 - i;
            soff += i * cst[d];
          }
          char* drow = dst + r * inner * E;
          const char* srow = src + soff * E;
          if (!flipped[rank - 1]) {
            std::memcpy(drow, srow, inner * E);
          } else {
            for (int64_t k = 0; k < inner; ++k) std::memcpy(drow + k * E, srow + (inner - 1 - k) * E, E);
          }
        }
      });
    });
    return;
  }
  Strides st = x.strides();
  int64_t offset = x.offset();
  for (int64_t a : axes) {
    offset += (x.shape()[a] - 1) * st[a];
    st[a] = -st[a];
  }
  copy(Tensor::make_view(x, x.shape(), st, offset), out);
}

namespace {

// dst = src rolled by dims[k].second along dims[k].first (shifts already in [1, n)): every
// combination of "head" and "tail" pieces of the rolled dims is one strided block copy.
void roll_dims(const Tensor& src, const Tensor& dst,
               const std::vector<std::pair<int64_t, int64_t>>& dims) {
  if (dims.empty()) {
    copy(src, dst);
    return;
  }
  const size_t k = dims.size();
  for (uint64_t mask = 0; mask < (uint64_t{1} << k); ++mask) {
    Shape shape = src.shape();
    int64_t soff = src.offset(), doff = dst.offset();
    for (size_t i = 0; i < k; ++i) {
      const auto [a, s] = dims[i];
      const int64_t n = src.shape()[a];
      if (mask & (uint64_t{1} << i)) {  // src [n - s, n) -> dst [0, s)
        shape[a] = s;
        soff += (n - s) * src.strides()[a];
      } else {  // src [0, n - s) -> dst [s, n)
        shape[a] = n - s;
        doff += s * dst.strides()[a];
      }
    }
    copy(Tensor::make_view(src, shape, src.strides(), soff),
         Tensor::make_view(dst, shape, dst.strides(), doff));
  }
}

int64_t positive_mod(int64_t v, int64_t n) {
  const int64_t r = v % n;
  return r < 0 ? r + n : r;
}

}  // namespace

void roll(const Tensor& x, const IntArray& shifts, const IntArray& axis, const Tensor& out) {
  if (out.numel() == 0) return;
  if (axis.empty()) {  // roll the flattened tensor, keep the shape
    const Tensor xc = as_contiguous(x);
    const int64_t n = x.numel();
    const Tensor src = Tensor::make_view(xc, {n}, {1}, xc.offset());
    const Tensor dst = Tensor::make_view(out, {n}, {1}, out.offset());
    const int64_t s = positive_mod(shifts.empty() ? 0 : shifts[0], n);
    roll_dims(src, dst, s == 0 ? std::vector<std::pair<int64_t, int64_t>>{}
                               : std::vector<std::pair<int64_t, int64_t>>{{0, s}});
    return;
  }
  const int64_t rank = x.ndim();
  std::vector<int64_t> total(std::max<int64_t>(rank, 1), 0);
  for (size_t i = 0; i < axis.size(); ++i) {
    const int64_t a = normalize_axis(axis[i], rank, "roll");
    total[a] = rank == 0 ? 0 : positive_mod(total[a] + positive_mod(shifts[i], x.shape()[a]), x.shape()[a]);
  }
  std::vector<std::pair<int64_t, int64_t>> dims;
  for (int64_t a = 0; a < rank; ++a)
    if (total[a] != 0) dims.emplace_back(a, total[a]);
  roll_dims(x, out, dims);
}

void tril_triu(const Tensor& x, int64_t diagonal, bool lower, const Tensor& out) {
  copy(x, out);
  if (out.numel() == 0) return;
  const int64_t rows = out.shape()[out.ndim() - 2], cols = out.shape()[out.ndim() - 1];
  const int64_t es = static_cast<int64_t>(out.element_size());
  diagonal = std::clamp<int64_t>(diagonal, -rows - 1, cols + 1);
  char* base = bytes_of(out);
  const int64_t total_rows = out.numel() / cols;
  parallel_for(0, total_rows, grain_for(cols * es), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t i = r % rows;
      char* row = base + r * cols * es;
      if (lower) {  // keep j <= i + diagonal
        const int64_t first = std::clamp<int64_t>(i + diagonal + 1, 0, cols);
        std::memset(row + first * es, 0, (cols - first) * es);
      } else {  // keep j >= i + diagonal
        const int64_t stop = std::clamp<int64_t>(i + diagonal, 0, cols);
        std::memset(row, 0, stop * es);
      }
    }
  });
}

void slice_scatter(const Tensor& src, const SlicePlan& plan, const Tensor& out) {
  if (out.numel() > 0) std::memset(out.raw_data(), 0, out.numel() * out.element_size());
  if (numel_of(plan.shape) == 0) return;
  copy(src, slice_view(out, plan));
}

}  // namespace oar::kernels
