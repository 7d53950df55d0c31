#include "oar/kernels/cpu/lapack.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/lapack_common.h"

// LAPACK's Fortran entry points (gfortran ABI: arguments by pointer, hidden string lengths last).
extern "C" {
void sgetrf_(const int*, const int*, float*, const int*, int*, int*);
void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void sgetri_(const int*, float*, const int*, const int*, float*, const int*, int*);
void dgetri_(const int*, double*, const int*, const int*, double*, const int*, int*);
void sgesv_(const int*, const int*, float*, const int*, int*, float*, const int*, int*);
void dgesv_(const int*, const int*, double*, const int*, int*, double*, const int*, int*);
void spotrf_(const char*, const int*, float*, const int*, int*, size_t);
void dpotrf_(const char*, const int*, double*, const int*, int*, size_t);
void strtrs_(const char*, const char*, const char*, const int*, const int*, const float*, const int*,
             float*, const int*, int*, size_t, size_t, size_t);
void dtrtrs_(const char*, const char*, const char*, const int*, const int*, const double*, const int*,
             double*, const int*, int*, size_t, size_t, size_t);
void ssyevd_(const char*, const char*, const int*, float*, const int*, float*, float*, const int*,
             int*, const int*, int*, size_t, size_t);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*,
             const int*, int*, const int*, int*, size_t, size_t);
void sgesdd_(const char*, const int*, const int*, float*, const int*, float*, float*, const int*,
             float*, const int*, float*, const int*, int*, int*, size_t);
void dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*, const int*,
             double*, const int*, double*, const int*, int*, int*, size_t);
void sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void sorgqr_(const int*, const int*, const int*, float*, const int*, const float*, float*, const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*, const int*, int*);
}

namespace oar::kernels {

using namespace lapack_common;  // NOLINT: the shared batch helpers

namespace {

// Overloads and templates picking the s/d routine by element type.
// Leading dimensions are max(rows, 1): LAPACK refuses 0 even for an empty matrix (and its
// reference XERBLA then stops the process).
void getrf(int m, int n, float* a, int* ipiv, int& info) {
  const int ld = std::max(m, 1);
  sgetrf_(&m, &n, a, &ld, ipiv, &info);
}
void getrf(int m, int n, double* a, int* ipiv, int& info) {
  const int ld = std::max(m, 1);
  dgetrf_(&m, &n, a, &ld, ipiv, &info);
}

template <typename T> void getri(int n, T* a, const int* ipiv, int& info) {
  const int ld = std::max(n, 1);
  T q;
  int lw = -1;
  if constexpr (std::is_same_v<T, float>) sgetri_(&n, a, &ld, ipiv, &q, &lw, &info);
  else dgetri_(&n, a, &ld, ipiv, &q, &lw, &info);
  lw = std::max(1, static_cast<int>(q));
  std::vector<T> work(lw);
  if constexpr (std::is_same_v<T, float>) sgetri_(&n, a, &ld, ipiv, work.data(), &lw, &info);
  else dgetri_(&n, a, &ld, ipiv, work.data(), &lw, &info);
}

}  // namespace

// LAPACK reports a bad argument through XERBLA, whose reference version prints and stops the
// process. Ours, found before liblapack's, only returns: the routine then returns info < 0,
// which the callers here turn into an error. (No exception: it would unwind through Fortran.)
extern "C" void xerbla_(const char*, const int*, size_t) {}

namespace {

// For each pair of a square matrix of x [n, n] and a right-hand side of y [n, k]: both copied
// to column-major buffers, call(a, rhs, n, k) runs the LAPACK solver and returns its info, and
// the solution (left in rhs) is written to out. Returns the infos.
template <typename T, typename Call>
std::vector<int> solve_each(const Batch& a_in, const Batch& b_in, const Tensor& out,
                            int64_t work_per_matrix, const Call& call) {
  const int64_t n = a_in.n, k = b_in.n;
  const T* ap = a_in.t.data<T>();
  const T* bp = b_in.t.data<T>();
  T* o = out.data<T>();
  std::vector<int> infos(a_in.count, 0);
  for_each_matrix(a_in.count, work_per_matrix, [&](int64_t b) {
    std::vector<T> a(n * n), rhs(n * k);
    to_colmajor(ap + b * n * n, n, n, a.data());
    to_colmajor(bp + b * n * k, n, k, rhs.data());
    infos[b] = call(a.data(), rhs.data(), static_cast<int>(n), static_cast<int>(k));
    from_colmajor(rhs.data(), n, k, o + b * n * k);
  });
  return infos;
}

// For each [m, n] matrix of x: copied to a column-major buffer, call(a, m, n, b) runs LAPACK on
// it in place and returns its info, and the buffer is written to out. Returns the infos.
template <typename T, typename Call>
std::vector<int> factor_each(const Batch& in, const Tensor& out, int64_t work_per_matrix,
                             const Call& call) {
  const int64_t m = in.m, n = in.n;
  const T* src = in.t.data<T>();
  T* dst = out.data<T>();
  std::vector<int> infos(in.count, 0);
  for_each_matrix(in.count, work_per_matrix, [&](int64_t b) {
    std::vector<T> a(m * n);
    to_colmajor(src + b * m * n, m, n, a.data());
    infos[b] = call(a.data(), static_cast<int>(m), static_cast<int>(n), b);
    from_colmajor(a.data(), m, n, dst + b * m * n);
  });
  return infos;
}

}  // namespace

void lu_factor(const Tensor& x, const Tensor& lu, const Tensor& pivots, const Tensor& infos) {
  const Batch in(x);
  const int64_t k = std::min(in.m, in.n);
  dispatch_f32_f64(x.dtype(), "lu", [&](auto tag) {
    using T = decltype(tag);
    const std::vector<int> info = factor_each<T>(in, lu, in.m * in.n * k, [&](T* a, int m, int n, int64_t b) {
      std::vector<int> ipiv(std::max<int64_t>(k, 1));
      int i = 0;
      getrf(m, n, a, ipiv.data(), i);
      for (int64_t j = 0; j < k; ++j) pivots.data<int32_t>()[b * k + j] = ipiv[j];
      return i;
    });
    if (infos.defined()) std::copy(info.begin(), info.end(), infos.data<int32_t>());
  });
}

void inverse(const Tensor& x, const Tensor& out) {
  const Batch in(x);
  dispatch_f32_f64(x.dtype(), "inv", [&](auto tag) {
    using T = decltype(tag);
    const std::vector<int> failed = factor_each<T>(in, out, in.n * in.n * in.n, [](T* a, int n, int, int64_t) {
      std::vector<int> ipiv(std::max(n, 1));
      int info = 0;
      getrf(n, n, a, ipiv.data(), info);
      if (info == 0) getri<T>(n, a, ipiv.data(), info);
      return info;
    });
    const int64_t bad = first_failed(failed);
    OAR_ENFORCE_ARG(bad < 0, "inv: the input is not invertible (matrix ", bad, " of the batch ",
                    "has a zero pivot U[", failed[bad] - 1, ", ", failed[bad] - 1, "])");
  });
}

namespace {
// sign and log|det| of each matrix, from its LU factorization.
template <typename T>
void sign_logdet(const Batch& in, T* sign, T* logabs) {
  const int64_t n = in.n;
  const T* src = in.t.data<T>();
  for_each_matrix(in.count, n * n * n, [&](int64_t b) {
    std::vector<T> a(n * n);
    std::vector<int> ipiv(std::max<int64_t>(n, 1));
    to_colmajor(src + b * n * n, n, n, a.data());
    int info = 0;
    getrf(static_cast<int>(n), static_cast<int>(n), a.data(), ipiv.data(), info);
    T s = 1, l = 0;
    for (int64_t i = 0; i < n; ++i) {
      const T d = a[i * n + i];
      if (ipiv[i] != i + 1) s = -s;
      if (d < 0) s = -s;
      l += std::log(std::abs(d));
    }
    if (info > 0) s = 0, l = -std::numeric_limits<T>::infinity();
    sign[b] = s;
    logabs[b] = l;
  });
}
}  // namespace

void slogdet(const Tensor& x, const Tensor& out) {
  const Batch in(x);
  dispatch_f32_f64(x.dtype(), "slogdet", [&](auto tag) {
    using T = decltype(tag);
    T* o = out.data<T>();
    sign_logdet<T>(in, o, o + in.count);
  });
}

void det(const Tensor& x, const Tensor& out) {
  const Batch in(x);
  dispatch_f32_f64(x.dtype(), "det", [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> sign(in.count), logabs(in.count);
    sign_logdet<T>(in, sign.data(), logabs.data());
    T* o = out.data<T>();
    for (int64_t b = 0; b < in.count; ++b) o[b] = sign[b] == 0 ? T(0) : sign[b] * std::exp(logabs[b]);
  });
}

void solve(const Tensor& x, const Tensor& y, const Tensor& out) {
  const Batch a_in(x), b_in(y);
  dispatch_f32_f64(x.dtype(), "solve", [&](auto tag) {
    using T = decltype(tag);
    const int64_t bad = first_failed(solve_each<T>(a_in, b_in, out, a_in.n * a_in.n * a_in.n,
                                                   [](T* a, T* rhs, int n, int k) {
      std::vector<int> ipiv(std::max(n, 1));
      int info = 0;
      const int ld = std::max(n, 1);
      if constexpr (std::is_same_v<T, float>) sgesv_(&n, &k, a, &ld, ipiv.data(), rhs, &ld, &info);
      else dgesv_(&n, &k, a, &ld, ipiv.data(), rhs, &ld, &info);
      return info;
    }));
    OAR_ENFORCE_ARG(bad < 0, "solve: the matrix 'x' is singular (matrix ", bad,
                    " of the batch has a zero pivot)");
  });
}

void cholesky(const Tensor& x, bool upper, const Tensor& out) {
  const Batch in(x);
  const char uplo = upper ? 'U' : 'L';
  dispatch_f32_f64(x.dtype(), "cholesky", [&](auto tag) {
    using T = decltype(tag);
    const std::vector<int> failed = factor_each<T>(in, out, in.n * in.n * in.n, [&](T* a, int n, int, int64_t) {
      int info = 0;
      const int ld = std::max(n, 1);
      if constexpr (std::is_same_v<T, float>) spotrf_(&uplo, &n, a, &ld, &info, 1);
      else dpotrf_(&uplo, &n, a, &ld, &info, 1);
      for (int j = 0; j < n; ++j)  // zero the triangle LAPACK leaves untouched
        for (int i = 0; i < n; ++i)
          if (upper ? i > j : i < j) a[j * n + i] = 0;
      return info;
    });
    const int64_t bad = first_failed(failed);
    OAR_ENFORCE_ARG(bad < 0, "cholesky: the input is not positive definite (matrix ", bad,
                    " of the batch: the leading minor of order ", failed[bad], " is not positive)");
  });
}

void triangular_solve(const Tensor& x, const Tensor& y, bool upper, bool transpose,
                      bool unitriangular, const Tensor& out) {
  const Batch a_in(x), b_in(y);
  const char uplo = upper ? 'U' : 'L', trans = transpose ? 'T' : 'N', diag = unitriangular ? 'U' : 'N';
  dispatch_f32_f64(x.dtype(), "triangular_solve", [&](auto tag) {
    using T = decltype(tag);
    const int64_t bad = first_failed(solve_each<T>(a_in, b_in, out, a_in.n * a_in.n * b_in.n,
                                                   [&](T* a, T* rhs, int n, int k) {
      int info = 0;
      const int ld = std::max(n, 1);
      if constexpr (std::is_same_v<T, float>)
        strtrs_(&uplo, &trans, &diag, &n, &k, a, &ld, rhs, &ld, &info, 1, 1, 1);
      else
        dtrtrs_(&uplo, &trans, &diag, &n, &k, a, &ld, rhs, &ld, &info, 1, 1, 1);
      return info;
    }));
    OAR_ENFORCE_ARG(bad < 0, "triangular_solve: the matrix 'x' is singular (matrix ", bad,
                    " of the batch has a zero on its diagonal)");
  });
}

void eigh(const Tensor& x, bool lower, const Tensor& values, const Tensor& vectors) {
  const Batch in(x);
  const int64_t n = in.n;
  dispatch_f32_f64(x.dtype(), "eigh", [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.t.data<T>();
    std::vector<int> failed(in.count, 0);
    for_each_matrix(in.count, n * n * n, [&](int64_t b) {
      if (!all_finite(src + b * n * n, n * n)) {
        failed[b] = kNonFinite;
        return;
      }
      std::vector<T> a(n * n), w(std::max<int64_t>(n, 1));
      to_colmajor(src + b * n * n, n, n, a.data());
      const int ni = static_cast<int>(n), ld = std::max(ni, 1);
      const char jobz = vectors.defined() ? 'V' : 'N', uplo = lower ? 'L' : 'U';
      int info = 0, lw = -1, liw = -1, iq = 0;
      T q = 0;
      if constexpr (std::is_same_v<T, float>)
        ssyevd_(&jobz, &uplo, &ni, a.data(), &ld, w.data(), &q, &lw, &iq, &liw, &info, 1, 1);
      else
        dsyevd_(&jobz, &uplo, &ni, a.data(), &ld, w.data(), &q, &lw, &iq, &liw, &info, 1, 1);
      lw = std::max(1, static_cast<int>(q));
      liw = std::max(1, iq);
      std::vector<T> work(lw);
      std::vector<int> iwork(liw);
      if constexpr (std::is_same_v<T, float>)
        ssyevd_(&jobz, &uplo, &ni, a.data(), &ld, w.data(), work.data(), &lw, iwork.data(), &liw, &info, 1, 1);
      else
        dsyevd_(&jobz, &uplo, &ni, a.data(), &ld, w.data(), work.data(), &lw, iwork.data(), &liw, &info, 1, 1);
      failed[b] = info;
      std::copy(w.begin(), w.begin() + n, values.data<T>() + b * n);
      if (vectors.defined()) from_colmajor(a.data(), n, n, vectors.data<T>() + b * n * n);
    });
    check_converged(failed, "eigh", "?syevd");
  });
}

void svd(const Tensor& x, bool full_matrices, const Tensor& u, const Tensor& s, const Tensor& vh) {
  const Batch in(x);
  const int64_t m = in.m, n = in.n, k = std::min(m, n);
  const bool vectors = u.defined();
  const int64_t ucols = full_matrices ? m : k, vrows = full_matrices ? n : k;
  dispatch_f32_f64(x.dtype(), "svd", [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.t.data<T>();
    std::vector<int> failed(in.count, 0);
    for_each_matrix(in.count, m * n * k, [&](int64_t b) {
      if (!all_finite(src + b * m * n, m * n)) {
        failed[b] = kNonFinite;
        return;
      }
      std::vector<T> a(m * n), sv(std::max<int64_t>(k, 1)), uu(vectors ? m * ucols : 1), vt(vectors ? vrows * n : 1);
      std::vector<int> iwork(8 * std::max<int64_t>(k, 1));
      to_colmajor(src + b * m * n, m, n, a.data());
      const int mi = static_cast<int>(m), ni = static_cast<int>(n), lda = std::max(mi, 1);
      const int ldu = static_cast<int>(std::max<int64_t>(m, 1)), ldvt = static_cast<int>(std::max<int64_t>(vrows, 1));
      const char jobz = !vectors ? 'N' : (full_matrices ? 'A' : 'S');
      int info = 0, lw = -1;
      T q = 0;
      if constexpr (std::is_same_v<T, float>)
        sgesdd_(&jobz, &mi, &ni, a.data(), &lda, sv.data(), uu.data(), &ldu, vt.data(), &ldvt, &q, &lw, iwork.data(), &info, 1);
      else
        dgesdd_(&jobz, &mi, &ni, a.data(), &lda, sv.data(), uu.data(), &ldu, vt.data(), &ldvt, &q, &lw, iwork.data(), &info, 1);
      lw = std::max(1, static_cast<int>(q));
      std::vector<T> work(lw);
      if constexpr (std::is_same_v<T, float>)
        sgesdd_(&jobz, &mi, &ni, a.data(), &lda, sv.data(), uu.data(), &ldu, vt.data(), &ldvt, work.data(), &lw, iwork.data(), &info, 1);
      else
        dgesdd_(&jobz, &mi, &ni, a.data(), &lda, sv.data(), uu.data(), &ldu, vt.data(), &ldvt, work.data(), &lw, iwork.data(), &info, 1);
      failed[b] = info;
      if (k == 0 && vectors) {  // LAPACK returns at once; the full bases of an empty matrix are identities
        for (int64_t i = 0; i < std::min(m, ucols); ++i) uu[i * ldu + i] = T(1);
        for (int64_t i = 0; i < std::min(vrows, n); ++i) vt[i * ldvt + i] = T(1);
      }
      std::copy(sv.begin(), sv.begin() + k, s.data<T>() + b * k);
      if (vectors) {
        from_colmajor(uu.data(), m, ucols, u.data<T>() + b * m * ucols);
        from_colmajor(vt.data(), vrows, n, vh.data<T>() + b * vrows * n);
      }
    });
    check_converged(failed, "svd", "?gesdd");
  });
}

void qr(const Tensor& x, bool complete, const Tensor& q, const Tensor& r) {
  const Batch in(x);
  const int64_t m = in.m, n = in.n, k = std::min(m, n);
  const int64_t qcols = complete ? m : k, rrows = complete ? m : k;
  dispatch_f32_f64(x.dtype(), "qr", [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.t.data<T>();
    for_each_matrix(in.count, m * n * k, [&](int64_t b) {
      const int64_t cols = std::max(n, qcols);  // room for the extra columns of a complete Q
      std::vector<T> a(m * cols, T(0)), tau(std::max<int64_t>(k, 1));
      to_colmajor(src + b * m * n, m, n, a.data());
      const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k), lda = std::max(mi, 1);
      int info = 0, lw = -1;
      T wq = 0;
      if constexpr (std::is_same_v<T, float>) sgeqrf_(&mi, &ni, a.data(), &lda, tau.data(), &wq, &lw, &info);
      else dgeqrf_(&mi, &ni, a.data(), &lda, tau.data(), &wq, &lw, &info);
      lw = std::max(1, static_cast<int>(wq));
      std::vector<T> work(lw);
      if constexpr (std::is_same_v<T, float>) sgeqrf_(&mi, &ni, a.data(), &lda, tau.data(), work.data(), &lw, &info);
      else dgeqrf_(&mi, &ni, a.data(), &lda, tau.data(), work.data(), &lw, &info);
      T* rp = r.data<T>() + b * rrows * n;  // R: the upper triangle of the first rrows rows
      for (int64_t i = 0; i < rrows; ++i)
        for (int64_t j = 0; j < n; ++j) rp[i * n + j] = (i <= j && i < m) ? a[j * m + i] : T(0);
      if (!q.defined()) return;
      const int qc = static_cast<int>(qcols);
      lw = -1;
      if constexpr (std::is_same_v<T, float>) sorgqr_(&mi, &qc, &ki, a.data(), &lda, tau.data(), &wq, &lw, &info);
      else dorgqr_(&mi, &qc, &ki, a.data(), &lda, tau.data(), &wq, &lw, &info);
      lw = std::max(1, static_cast<int>(wq));
      work.assign(lw, T(0));
      if constexpr (std::is_same_v<T, float>) sorgqr_(&mi, &qc, &ki, a.data(), &lda, tau.data(), work.data(), &lw, &info);
      else dorgqr_(&mi, &qc, &ki, a.data(), &lda, tau.data(), work.data(), &lw, &info);
      from_colmajor(a.data(), m, qcols, q.data<T>() + b * m * qcols);
    });
  });
}

}  // namespace oar::kernels
