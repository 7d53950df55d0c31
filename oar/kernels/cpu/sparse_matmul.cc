#include "oar/kernels/cpu/sparse_matmul.h"

#include <algorithm>
#include <vector>

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

// One output row: out_row = sum over the row's entries p of v[p] * b[c[p]]. Columns go in
// blocks of kBlock, each block's sums held in registers across the row's entries (a row of
// the result is read and written once, not once per entry).
template <typename T>
void matmul_row(const int64_t* c, const T* v, int64_t p0, int64_t p1, const T* b, T* o, int64_t n) {
  constexpr int64_t kBlock = 256 / sizeof(T);  // 64 floats: 8 AVX2 or 4 AVX-512 registers
  int64_t j0 = 0;
  for (; j0 + kBlock <= n; j0 += kBlock) {
    T acc[kBlock] = {};
    for (int64_t p = p0; p < p1; ++p) {
      const T a = v[p];
      const T* row = b + c[p] * n + j0;
#pragma GCC unroll 64
      for (int64_t j = 0; j < kBlock; ++j) acc[j] += a * row[j];
    }
    std::copy(acc, acc + kBlock, o + j0);
  }
  if (j0 == n) return;
  std::fill(o + j0, o + n, T(0));
  for (int64_t p = p0; p < p1; ++p) {
    const T a = v[p];
    const T* row = b + c[p] * n;
    for (int64_t j = j0; j < n; ++j) o[j] += a * row[j];
  }
}

template <typename T>
void matmul_rows(const int64_t* cr, const int64_t* c, const T* v, const T* b, T* out, int64_t m, int64_t n,
                 int64_t nnz) {
  parallel_for(0, m, row_grain(nnz, m, n), [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i) matmul_row(c, v, cr[i], cr[i + 1], b, out + i * n, n);
  });
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
    const T* xd = xc.data<T>();
    const T* yd = yc.data<T>();
    T* o = out.data<T>();
    parallel_for(0, m, row_grain(nnz, m, r), [&](int64_t r0, int64_t r1) {
      for (int64_t i = r0; i < r1; ++i) {
        const T* xr = xd + i * r;
        for (int64_t p = cr[i]; p < cr[i + 1]; ++p) {
          const T* yr = yd + c[p] * r;
          T s = 0;
#pragma omp simd reduction(+ : s)
          for (int64_t j = 0; j < r; ++j) s += xr[j] * yr[j];
          o[p] = s;
        }
      }
    });
  });
}

}  // namespace oar::kernels
