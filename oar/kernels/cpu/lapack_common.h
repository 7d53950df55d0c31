// What the LAPACK-backed kernels share (oar/kernels/cpu/lapack.cc, eig.cc): the batch of
// matrices of a tensor, row-major <-> column-major copies, a parallel loop over the batch, and
// turning LAPACK's per-matrix info codes into errors.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "oar/core/error.h"
#include "oar/core/parallel.h"
#include "oar/core/tensor.h"

namespace oar::kernels::lapack_common {

// The batch of [..., m, n] matrices of a tensor (a contiguous copy when x is a view).
struct Batch {
  Tensor t;
  int64_t count = 1, m = 1, n = 1;
  explicit Batch(const Tensor& x) : t(x.contiguous()) {
    const Shape& s = t.shape();
    m = s[s.size() - 2];
    n = s[s.size() - 1];
    for (size_t d = 0; d + 2 < s.size(); ++d) count *= s[d];
  }
};

// Copies matrix b of a row-major [m, n] batch into a column-major buffer (ld = m), and back.
template <typename T, typename S>
inline void to_colmajor(const S* src, int64_t m, int64_t n, T* dst) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) dst[j * m + i] = static_cast<T>(src[i * n + j]);
}
template <typename T, typename D>
inline void from_colmajor(const T* src, int64_t m, int64_t n, D* dst) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) dst[i * n + j] = static_cast<D>(src[j * m + i]);
}

// Runs body(b) for every matrix of the batch, in parallel (LAPACK calls are independent).
template <typename Body>
inline void for_each_matrix(int64_t count, int64_t work_per_matrix, const Body& body) {
  parallel_for(0, count, std::max<int64_t>(1, 32768 / std::max<int64_t>(work_per_matrix, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t k = b; k < e; ++k) body(k);
               });
}

// The batch index of the first matrix whose LAPACK info is nonzero, or -1.
inline int64_t first_failed(const std::vector<int>& infos) {
  for (size_t b = 0; b < infos.size(); ++b)
    if (infos[b] != 0) return static_cast<int64_t>(b);
  return -1;
}

// The info recorded for a matrix holding NaN or Inf, which the iterative drivers (?gesdd,
// ?syevd) are never given: on such input they may loop forever.
constexpr int kNonFinite = std::numeric_limits<int>::min();

template <typename T>
inline bool all_finite(const T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i])) return false;
  return true;
}

// Throws for the first failed matrix: InvalidArgument for non-finite input, else External
// naming the LAPACK routine and its info.
inline void check_converged(const std::vector<int>& infos, const char* op, const char* routine) {
  const int64_t bad = first_failed(infos);
  if (bad < 0) return;
  OAR_ENFORCE_ARG(infos[bad] != kNonFinite, op, ": matrix ", bad,
                  " of the batch holds NaN or Inf values, which have no decomposition");
  OAR_THROW(External, op, ": LAPACK ", routine, " did not converge (matrix ", bad, " of the batch, info ",
            infos[bad], ")");
}

}  // namespace oar::kernels::lapack_common
