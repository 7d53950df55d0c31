#include "oar/kernels/cpu/eig.h"

#include <complex>
#include <type_traits>
#include <vector>

#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/lapack_common.h"

extern "C" {
void sgeev_(const char*, const char*, const int*, float*, const int*, float*, float*, float*, const int*, float*,
            const int*, float*, const int*, int*, size_t, size_t);
void dgeev_(const char*, const char*, const int*, double*, const int*, double*, double*, double*, const int*,
            double*, const int*, double*, const int*, int*, size_t, size_t);
void cgeev_(const char*, const char*, const int*, std::complex<float>*, const int*, std::complex<float>*,
            std::complex<float>*, const int*, std::complex<float>*, const int*, std::complex<float>*, const int*,
            float*, int*, size_t, size_t);
void zgeev_(const char*, const char*, const int*, std::complex<double>*, const int*, std::complex<double>*,
            std::complex<double>*, const int*, std::complex<double>*, const int*, std::complex<double>*,
            const int*, double*, int*, size_t, size_t);
void zgesv_(const int*, const int*, std::complex<double>*, const int*, int*, std::complex<double>*, const int*,
            int*);
}

namespace oar::kernels {

using namespace lapack_common;  // NOLINT: the shared batch helpers

namespace {

template <typename T> struct RealOf { using type = T; };
template <typename R> struct RealOf<std::complex<R>> { using type = R; };
template <typename T> constexpr bool kIsComplex = !std::is_same_v<T, typename RealOf<T>::type>;

template <typename T> bool finite(const T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (kIsComplex<T>) {
      if (!std::isfinite(p[i].real()) || !std::isfinite(p[i].imag())) return false;
    } else if (!std::isfinite(p[i])) {
      return false;
    }
  }
  return true;
}

// ?geev on one column-major matrix a [n, n] (overwritten): w [n] complex, vr [n, n] complex
// column-major (when wanted). Returns LAPACK's info.
template <typename T, typename R = typename RealOf<T>::type>
int geev(int n, T* a, std::complex<R>* w, std::complex<R>* vr) {
  const char jobvl = 'N', jobvr = vr ? 'V' : 'N';
  const int ld = std::max(n, 1), ldvl = 1, ldvr = vr ? ld : 1;
  int info = 0, lwork = -1;
  if constexpr (kIsComplex<T>) {
    std::vector<T> v(vr ? static_cast<size_t>(n) * n : 1), dummy(1);
    std::vector<R> rwork(std::max(1, 2 * n));
    T query;
    auto call = [&](T* work, int lw) {
      if constexpr (std::is_same_v<R, float>)
        cgeev_(&jobvl, &jobvr, &n, a, &ld, w, dummy.data(), &ldvl, v.data(), &ldvr, work, &lw, rwork.data(), &info, 1, 1);
      else
        zgeev_(&jobvl, &jobvr, &n, a, &ld, w, dummy.data(), &ldvl, v.data(), &ldvr, work, &lw, rwork.data(), &info, 1, 1);
    };
    call(&query, -1);
    lwork = std::max(1, static_cast<int>(query.real()));
    std::vector<T> work(lwork);
    call(work.data(), lwork);
    if (vr) std::copy(v.begin(), v.end(), vr);
  } else {
    std::vector<R> wr(std::max(n, 1)), wi(std::max(n, 1)), v(vr ? static_cast<size_t>(n) * n : 1), dummy(1);
    R query;
    auto call = [&](R* work, int lw) {
      if constexpr (std::is_same_v<R, float>)
        sgeev_(&jobvl, &jobvr, &n, a, &ld, wr.data(), wi.data(), dummy.data(), &ldvl, v.data(), &ldvr, work, &lw, &info,
               1, 1);
      else
        dgeev_(&jobvl, &jobvr, &n, a, &ld, wr.data(), wi.data(), dummy.data(), &ldvl, v.data(), &ldvr, work, &lw, &info,
               1, 1);
    };
    call(&query, -1);
    lwork = std::max(1, static_cast<int>(query));
    std::vector<R> work(lwork);
    call(work.data(), lwork);
    for (int j = 0; j < n; ++j) w[j] = {wr[j], wi[j]};
    if (vr) {
      // A complex pair j, j+1 (wi[j] > 0) is stored as columns re, im: v_j = re + i im, v_{j+1} its conjugate.
      for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
          const size_t at = static_cast<size_t>(j) * n + i;
          if (wi[j] == 0) {
            vr[at] = {v[at], 0};
          } else if (wi[j] > 0) {
            vr[at] = {v[at], v[at + n]};
            vr[at + n] = {v[at], -v[at + n]};
          }
        }
        if (wi[j] > 0) ++j;
      }
    }
  }
  return info;
}

}  // namespace

void eig(const Tensor& x, const Tensor& values, const Tensor& vectors) {
  const Batch in(x);
  const int64_t n = in.n;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    using R = typename RealOf<T>::type;
    using C = std::complex<R>;
    const T* src = in.t.data<T>();
    C* w_out = values.data<C>();
    C* v_out = vectors.defined() ? vectors.data<C>() : nullptr;
    std::vector<int> failed(in.count, 0);
    for_each_matrix(in.count, n * n * n, [&](int64_t b) {
      if (!finite(src + b * n * n, n * n)) {
        failed[b] = kNonFinite;
        return;
      }
      std::vector<T> a(static_cast<size_t>(n * n));
      to_colmajor(src + b * n * n, n, n, a.data());
      std::vector<C> vr(v_out ? static_cast<size_t>(n * n) : 0);
      failed[b] = geev<T>(static_cast<int>(n), a.data(), w_out + b * n, v_out ? vr.data() : nullptr);
      if (v_out) from_colmajor(vr.data(), n, n, v_out + b * n * n);
    });
    check_converged(failed, "eig", "?geev");
  };
  switch (x.dtype()) {
    case DType::Float32: return run(float{});
    case DType::Float64: return run(double{});
    case DType::Complex64: return run(complex64{});
    case DType::Complex128: return run(complex128{});
    default: unsupported_dtype("eig", x.dtype(), "float32, float64, complex64, complex128");
  }
}

namespace {

using Z = std::complex<double>;

// Row-major n x n products in double precision (n is small: eig's matrices).
std::vector<Z> matmul_nn(const std::vector<Z>& a, const std::vector<Z>& b, int64_t n) {
  std::vector<Z> c(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < n; ++k) {
      const Z aik = a[i * n + k];
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];
    }
  return c;
}

std::vector<Z> adjoint(const std::vector<Z>& a, int64_t n) {
  std::vector<Z> h(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) h[j * n + i] = std::conj(a[i * n + j]);
  return h;
}

template <typename C> std::vector<Z> load(const Tensor& t, int64_t b, int64_t size) {
  std::vector<Z> out(static_cast<size_t>(size));
  const C* p = t.data<C>() + b * size;
  for (int64_t i = 0; i < size; ++i) out[i] = Z(p[i]);
  return out;
}

// Writes matrix b of the gradient into out (its real part for a real out).
void store(const Tensor& out, int64_t b, int64_t size, const std::vector<Z>& g) {
  auto put = [&](auto* p, auto convert) {
    for (int64_t i = 0; i < size; ++i) p[b * size + i] = convert(g[i]);
  };
  switch (out.dtype()) {
    case DType::Float32: return put(out.data<float>(), [](Z z) { return static_cast<float>(z.real()); });
    case DType::Float64: return put(out.data<double>(), [](Z z) { return z.real(); });
    case DType::Complex64: return put(out.data<complex64>(), [](Z z) { return complex64(z); });
    default: return put(out.data<complex128>(), [](Z z) { return z; });
  }
}

}  // namespace

void eig_grad(const Tensor& values, const Tensor& vectors, const Tensor& grad_values, const Tensor& grad_vectors,
              const Tensor& out) {
  const Batch V(vectors);
  const int64_t n = V.n;
  const Tensor L = values.contiguous();
  const Tensor gL = grad_values.defined() ? grad_values.contiguous() : Tensor();
  const Tensor gV = grad_vectors.defined() ? grad_vectors.contiguous() : Tensor();
  auto run = [&](auto tag) {
    using C = decltype(tag);
    std::vector<int> failed(V.count, 0);
    for_each_matrix(V.count, n * n * n, [&](int64_t b) {
      const std::vector<Z> v = load<C>(V.t, b, n * n), l = load<C>(L, b, n);
      const std::vector<Z> vh = adjoint(v, n);
      std::vector<Z> m(static_cast<size_t>(n * n));
      if (gV.defined()) {
        const std::vector<Z> vhgv = matmul_nn(vh, load<C>(gV, b, n * n), n), vhv = matmul_nn(vh, v, n);
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            if (i == j) continue;
            // The normalisation of the vectors (unit norm) removes the real part of diag(V^H gV).
            const Z term = vhgv[i * n + j] - vhv[i * n + j] * vhgv[j * n + j].real();
            m[i * n + j] = term / std::conj(l[j] - l[i]);
          }
      }
      if (gL.defined()) {
        const std::vector<Z> gl = load<C>(gL, b, n);
        for (int64_t i = 0; i < n; ++i) m[i * n + i] = gl[i];
      }
      // gx = V^-H (M V^H): solve V^H gx = M V^H (column-major for zgesv).
      const std::vector<Z> rhs = matmul_nn(m, vh, n);
      std::vector<Z> a(static_cast<size_t>(n * n)), x(static_cast<size_t>(n * n));
      to_colmajor(vh.data(), n, n, a.data());
      to_colmajor(rhs.data(), n, n, x.data());
      const int ni = static_cast<int>(n), ld = std::max(ni, 1);
      std::vector<int> ipiv(std::max<int64_t>(n, 1));
      int info = 0;
      zgesv_(&ni, &ni, a.data(), &ld, ipiv.data(), x.data(), &ld, &info);
      failed[b] = info;
      std::vector<Z> gx(static_cast<size_t>(n * n));
      from_colmajor(x.data(), n, n, gx.data());
      store(out, b, n * n, gx);
    });
    const int64_t bad = first_failed(failed);
    OAR_ENFORCE_ARG(bad < 0, "eig_grad: the eigenvectors of matrix ", bad, " of the batch are linearly dependent ",
                    "(a defective matrix): its eigendecomposition has no gradient");
  };
  if (vectors.dtype() == DType::Complex64) run(complex64{});
  else run(complex128{});
}

}  // namespace oar::kernels
