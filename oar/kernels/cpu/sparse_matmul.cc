#include "oar/kernels/cpu/sparse_matmul.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "oar/core/cpu_isa.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"

namespace oar::kernels {
namespace {

// Checks that (crows, cols) describe a valid [m, k] pattern; returns nnz.
// crows and cols must be contiguous.
int64_t check_pattern(const char* op, const Tensor& crows, const Tensor& cols, int64_t m, int64_t k) {
  OAR_ENFORCE(crows.dtype() == DType::Int64 && cols.dtype() == DType::Int64, TypeMismatch, op,
              ": crows and cols must be int64, got ", dtype_name(crows.dtype()), " and ", dtype_name(cols.dtype()));
  OAR_ENFORCE_ARG(crows.ndim() == 1 && crows.numel() == m + 1, op, ": crows must have rows + 1 = ", m + 1,
                  " entries, got ", crows.numel());
  const int64_t* cr = crows.data<int64_t>();
  const int64_t nnz = cols.numel();
  OAR_ENFORCE_ARG(cr[0] == 0, op, ": crows[0] must be 0, got ", cr[0]);
  OAR_ENFORCE_ARG(cr[m] == nnz, op, ": crows[-1] must equal the number of entries ", nnz, ", got ", cr[m]);
  for (int64_t i = 0; i < m; ++i)
    OAR_ENFORCE_ARG(cr[i] <= cr[i + 1], op, ": crows must not decrease, but crows[", i, "] = ", cr[i],
                    " > crows[", i + 1, "] = ", cr[i + 1]);
  const int64_t* c = cols.data<int64_t>();
  for (int64_t p = 0; p < nnz; ++p)
    OAR_ENFORCE(c[p] >= 0 && c[p] < k, OutOfRange, op, ": cols[", p, "] = ", c[p],
                " is out of range: columns must lie in [0, ", k, ")");
  return nnz;
}

// The grain of a row loop: about 16K multiply-adds per chunk.
int64_t row_grain(int64_t nnz, int64_t m, int64_t n) {
  const int64_t per_row = std::max<int64_t>(1, (nnz / std::max<int64_t>(m, 1)) * n);
  return std::max<int64_t>(1, 16384 / per_row);
}

// The row kernel is written once over GCC vector lanes of W bytes and compiled per ISA
// (AVX-512, AVX2, SSE2), picked at run time. Written with explicit lanes, not left to the
// auto-vectoriser: GCC compiled the plain loop's copy inside the OpenMP region into scalar FMAs
// with the sums on the stack (2 threads ran 2.5x slower than 1). The element type of each lane
// type is spelled out: on a template-dependent element type GCC drops vector_size silently.
#define OAR_INLINE __attribute__((always_inline)) inline
#pragma GCC diagnostic ignored "-Wpsabi"  // the lanes never cross a call: moot ABI note

template <typename T, int W>
struct Lanes;
template <int W>
struct Lanes<float, W> {
  typedef float V __attribute__((vector_size(W)));
};
template <int W>
struct Lanes<double, W> {
  typedef double V __attribute__((vector_size(W)));
};

template <typename V, typename T>
OAR_INLINE V load(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}
template <typename V, typename T>
OAR_INLINE void store(T* p, const V& v) { std::memcpy(p, &v, sizeof(V)); }

// One output row: out_row = sum over the row's entries p of v[p] * b[c[p]]. Columns go in blocks
// of 256 bytes (4 AVX-512 or 8 AVX2 registers of sums, kept across the row's entries, so a row
// of the result is written once, not once per entry), then single vectors, then scalars.
template <typename T, int W>
OAR_INLINE void matmul_row(const int64_t* c, const T* v, int64_t p0, int64_t p1, const T* b, T* o, int64_t n) {
  using V = typename Lanes<T, W>::V;
  constexpr int64_t L = W / sizeof(T);
  constexpr int R = 256 / W;
  int64_t j0 = 0;
  for (; j0 + R * L <= n; j0 += R * L) {
    V acc[R] = {};
    for (int64_t p = p0; p < p1; ++p) {
      const V a = V{} + v[p];
      const T* row = b + c[p] * n + j0;
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) acc[r] += a * load<V>(row + r * L);
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) store(o + j0 + r * L, acc[r]);
  }
  for (; j0 + L <= n; j0 += L) {
    V acc = {};
    for (int64_t p = p0; p < p1; ++p) acc += (V{} + v[p]) * load<V>(b + c[p] * n + j0);
    store(o + j0, acc);
  }
  for (int64_t j = j0; j < n; ++j) {
    T s = 0;
    for (int64_t p = p0; p < p1; ++p) s += v[p] * b[c[p] * n + j];
    o[j] = s;
  }
}

template <typename T, int W>
OAR_INLINE void rows_of(const int64_t* cr, const int64_t* c, const T* v, const T* b, T* out, int64_t r0,
                        int64_t r1, int64_t n) {
  for (int64_t i = r0; i < r1; ++i) matmul_row<T, W>(c, v, cr[i], cr[i + 1], b, out + i * n, n);
}

// The sum of v's lanes by halving (a tree of log2(lanes) vector adds): a lane-by-lane sum
// is a chain of dependent adds that dominated the sampled dot (about 3x slower).
template <typename T, int W>
OAR_INLINE T lane_sum(const typename Lanes<T, W>::V& v) {
  if constexpr (W == 16) {
    if constexpr (sizeof(T) == 4) return (v[0] + v[2]) + (v[1] + v[3]);
    else return v[0] + v[1];
  } else {
    using H = typename Lanes<T, W / 2>::V;
    H lo, hi;
    std::memcpy(&lo, &v, sizeof(H));
    std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof(H), sizeof(H));
    return lane_sum<T, W / 2>(lo + hi);
  }
}

// a · b over r elements: two vectors of partial sums, then their lanes, then the tail.
template <typename T, int W>
OAR_INLINE T dot(const T* a, const T* b, int64_t r) {
  using V = typename Lanes<T, W>::V;
  constexpr int64_t L = W / sizeof(T);
  V s0 = {}, s1 = {};
  int64_t j = 0;
  for (; j + 2 * L <= r; j += 2 * L) {
    s0 += load<V>(a + j) * load<V>(b + j);
    s1 += load<V>(a + j + L) * load<V>(b + j + L);
  }
  if (j + L <= r) {
    s0 += load<V>(a + j) * load<V>(b + j);
    j += L;
  }
  T s = lane_sum<T, W>(s0 + s1);
  for (; j < r; ++j) s += a[j] * b[j];
  return s;
}

// Entries of rows [r0, r1): out[p] = x[row] · y[c[p]], rows of x and y of length r.
template <typename T, int W>
OAR_INLINE void sampled_rows_of(const int64_t* cr, const int64_t* c, const T* x, const T* y, T* out, int64_t r0,
                                int64_t r1, int64_t r) {
  for (int64_t i = r0; i < r1; ++i)
    for (int64_t p = cr[i]; p < cr[i + 1]; ++p) out[p] = dot<T, W>(x + i * r, y + c[p] * r, r);
}

// Rows [r0, r1) of one of the two products for W-byte lanes: the sampled dot (out[p] = x[row] ·
// y[c[p]], rows of length n) or the CSR x dense rows (out rows of length n).
template <bool Sampled, typename T, int W>
OAR_INLINE void product_rows(const int64_t* cr, const int64_t* c, const T* a, const T* b, T* out, int64_t r0,
                             int64_t r1, int64_t n) {
  if constexpr (Sampled) sampled_rows_of<T, W>(cr, c, a, b, out, r0, r1, n);
  else rows_of<T, W>(cr, c, a, b, out, r0, r1, n);
}

template <typename T>
using RowsFn = void (*)(const int64_t*, const int64_t*, const T*, const T*, T*, int64_t, int64_t, int64_t);

template <bool Sampled, typename T>
OAR_TARGET_AVX512 void rows_avx512(const int64_t* cr, const int64_t* c, const T* a, const T* b, T* out,
                                   int64_t r0, int64_t r1, int64_t n) {
  product_rows<Sampled, T, 64>(cr, c, a, b, out, r0, r1, n);
}
template <bool Sampled, typename T>
OAR_TARGET_AVX2 void rows_avx2(const int64_t* cr, const int64_t* c, const T* a, const T* b, T* out,
                               int64_t r0, int64_t r1, int64_t n) {
  product_rows<Sampled, T, 32>(cr, c, a, b, out, r0, r1, n);
}
template <bool Sampled, typename T>
void rows_base(const int64_t* cr, const int64_t* c, const T* a, const T* b, T* out, int64_t r0, int64_t r1,
               int64_t n) {
  product_rows<Sampled, T, 16>(cr, c, a, b, out, r0, r1, n);
}

// The variant of the product for this CPU's widest vectors.
template <bool Sampled, typename T>
RowsFn<T> rows_for_this_cpu() {
  switch (cpu_isa()) {
    case CpuIsa::Avx512: return rows_avx512<Sampled, T>;
    case CpuIsa::Avx2: return rows_avx2<Sampled, T>;
    default: return rows_base<Sampled, T>;
  }
}

template <typename T>
void matmul_rows(const int64_t* cr, const int64_t* c, const T* v, const T* b, T* out, int64_t m, int64_t n,
                 int64_t nnz) {
  const RowsFn<T> rows = rows_for_this_cpu<false, T>();
  parallel_for(0, m, row_grain(nnz, m, n), [&](int64_t r0, int64_t r1) { rows(cr, c, v, b, out, r0, r1, n); });
}

}  // namespace

void csr_matmul(const char* op, const Tensor& crows, const Tensor& cols, const Tensor& values, const Tensor& b,
                const Tensor& out) {
  const int64_t m = out.shape()[0], n = out.shape()[1], k = b.shape()[0];
  const Tensor crc = crows.contiguous(), cc = cols.contiguous();
  const int64_t nnz = check_pattern(op, crc, cc, m, k);
  const Tensor bc = b.contiguous(), vc = values.contiguous();
  dispatch_f32_f64(values.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    matmul_rows<T>(crc.data<int64_t>(), cc.data<int64_t>(), vc.data<T>(), bc.data<T>(), out.data<T>(), m, n,
                   nnz);
  });
}

void csr_matmul_transposed(const char* op, const Tensor& crows, const Tensor& cols, const Tensor& values,
                           const Tensor& g, const Tensor& out) {
  const int64_t m = g.shape()[0], n = g.shape()[1], k = out.shape()[0];
  const Tensor crc = crows.contiguous(), cc = cols.contiguous();
  const int64_t nnz = check_pattern(op, crc, cc, m, k);
  const int64_t* cr = crc.data<int64_t>();
  const int64_t* c = cc.data<int64_t>();
  // Aᵀ in CSR: entries grouped by column, rows in increasing order within a column.
  std::vector<int64_t> tcr(k + 1, 0), trow(nnz), tpos(nnz);
  for (int64_t p = 0; p < nnz; ++p) ++tcr[c[p] + 1];
  for (int64_t j = 0; j < k; ++j) tcr[j + 1] += tcr[j];
  std::vector<int64_t> next(tcr.begin(), tcr.end() - 1);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = cr[i]; p < cr[i + 1]; ++p) {
      const int64_t q = next[c[p]]++;
      trow[q] = i;
      tpos[q] = p;
    }
  const Tensor gc = g.contiguous(), vc = values.contiguous();
  dispatch_f32_f64(values.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> tv(nnz);
    const T* v = vc.data<T>();
    for (int64_t q = 0; q < nnz; ++q) tv[q] = v[tpos[q]];
    matmul_rows<T>(tcr.data(), trow.data(), tv.data(), gc.data<T>(), out.data<T>(), k, n, nnz);
  });
}

void csr_sampled_dot(const char* op, const Tensor& crows, const Tensor& cols, const Tensor& x, const Tensor& y,
                     const Tensor& out) {
  const int64_t m = x.shape()[0], r = x.shape()[1], k = y.shape()[0];
  const Tensor crc = crows.contiguous(), cc = cols.contiguous();
  const int64_t nnz = check_pattern(op, crc, cc, m, k);
  const int64_t* cr = crc.data<int64_t>();
  const int64_t* c = cc.data<int64_t>();
  const Tensor xc = x.contiguous(), yc = y.contiguous();
  dispatch_f32_f64(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const RowsFn<T> rows = rows_for_this_cpu<true, T>();
    parallel_for(0, m, row_grain(nnz, m, r), [&](int64_t r0, int64_t r1) {
      rows(cr, c, xc.data<T>(), yc.data<T>(), out.data<T>(), r0, r1, r);
    });
  });
}

}  // namespace oar::kernels
