#include "oar/kernels/cpu/matmul.h"
#include "oar/kernels/cpu/transpose.h"

#include <oneapi/dnnl/dnnl.h>

#include <atomic>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <cstring>
#include <vector>

#include "oar/core/cpu_isa.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/gemm_bf16.h"

namespace oar::kernels {
namespace {

// ---- tuning ----
constexpr int64_t kTinyF32Work = 1024;      // M*N*K up to this: direct loops beat sgemm's overhead
constexpr int64_t kSmallWork = 32 * 32 * 32;  // generic kernel: direct loops below this
constexpr int64_t kParallelWork = 1 << 17;    // M*N*K below this runs on one thread
constexpr int64_t kTransposeBMinRows = 512;   // from here a transposed B is copied plain (see sgemm)
constexpr int64_t kBlasParallelWork = 1 << 20;  // below this one-threaded sgemm beats two threads
constexpr int kMaxBatchDims = 16;

// A matrix operand op(A): element (i, j) sits at p[i * rs + j * cs].
template <typename T>
struct Mat {
  const T* p;
  int64_t rs, cs;
  const T& at(int64_t i, int64_t j) const { return p[i * rs + j * cs]; }
};

// Accumulator types: floats accumulate in themselves; integers in unsigned words, whose
// wrap-around leaves the same low bits as two's complement arithmetic in T (without the UB).
template <typename T> struct AccOf { using type = T; };
template <> struct AccOf<int8_t> { using type = uint32_t; };
template <> struct AccOf<uint8_t> { using type = uint32_t; };
template <> struct AccOf<int16_t> { using type = uint32_t; };
template <> struct AccOf<int32_t> { using type = uint32_t; };
template <> struct AccOf<int64_t> { using type = uint64_t; };
template <typename T> using acc_t = typename AccOf<T>::type;

template <typename T> constexpr bool kIsComplex =
    std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;

// C (+)= A @ B by direct loops: small problems, and complex types.
template <typename T>
void gemm_simple(int64_t M, int64_t N, int64_t K, const Mat<T>& a, const Mat<T>& b, T* c,
                 int64_t ldc, bool accumulate) {
  using A = acc_t<T>;
  if (b.cs == 1 || N == 1) {
    // i-k-j: rows of B stream through a row of C.
    for (int64_t i = 0; i < M; ++i) {
      T* cr = c + i * ldc;
      if (!accumulate) for (int64_t j = 0; j < N; ++j) cr[j] = T(0);
      for (int64_t k = 0; k < K; ++k) {
        const A av = static_cast<A>(a.at(i, k));
        const T* br = b.p + k * b.rs;
        for (int64_t j = 0; j < N; ++j)
          cr[j] = static_cast<T>(static_cast<A>(cr[j]) + av * static_cast<A>(br[j]));
      }
    }
    return;
  }
  for (int64_t i = 0; i < M; ++i) {
    T* cr = c + i * ldc;
    for (int64_t j = 0; j < N; ++j) {
      A s = accumulate ? static_cast<A>(cr[j]) : A(0);
      for (int64_t k = 0; k < K; ++k) s += static_cast<A>(a.at(i, k)) * static_cast<A>(b.at(k, j));
      cr[j] = static_cast<T>(s);
    }
  }
}

// ---- the blocked kernel (Goto-style: packed panels, an MR x NR register tile) ----
// The whole blocked GEMM is compiled three times (AVX-512, AVX2+FMA, baseline), each with a
// register tile sized for that ISA's vectors, and picked at run time: no -march flag needed.
template <typename A, int VecBytes, int VecsPerRow, int Rows>
struct Cfg {
  static constexpr int W = VecBytes, NV = VecsPerRow, MR = Rows;
  static constexpr int NR = NV * W / static_cast<int>(sizeof(A));
  static constexpr int64_t KC = 256;
  static constexpr int64_t MC = MR * (144 / MR);
  static constexpr int64_t NC = NR * (4096 / NR);
};
// AVX-512: 12 x 2 zmm accumulators; AVX2: 6 x 2 ymm; baseline (SSE2): 6 x 2 xmm.
template <typename A> using CfgAvx512 = Cfg<A, 64, 2, 12>;
template <typename A> using CfgAvx2 = Cfg<A, 32, 2, 6>;
template <typename A> using CfgBase = Cfg<A, 16, 2, 6>;

#define OAR_INLINE __attribute__((always_inline)) inline

// Packs rows [i0, i0+mc) x cols [p0, p0+kc) of a into MR-row panels: dst[panel][p][i].
template <typename T, typename A, int MR>
OAR_INLINE void pack_a(const Mat<T>& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc, A* dst) {
  for (int64_t ip = 0; ip < mc; ip += MR) {
    const int mr = static_cast<int>(std::min<int64_t>(MR, mc - ip));
    const T* base = a.p + (i0 + ip) * a.rs + p0 * a.cs;
    if (mr == MR && a.rs == 1) {
      for (int64_t p = 0; p < kc; ++p, dst += MR) {
        const T* src = base + p * a.cs;
        for (int i = 0; i < MR; ++i) dst[i] = static_cast<A>(src[i]);
      }
      continue;
    }
    if (mr == MR) {
      for (int64_t p = 0; p < kc; ++p, dst += MR) {
        const T* src = base + p * a.cs;
        for (int i = 0; i < MR; ++i) dst[i] = static_cast<A>(src[i * a.rs]);
      }
      continue;
    }
    for (int64_t p = 0; p < kc; ++p, dst += MR) {
      const T* src = base + p * a.cs;
      int i = 0;
      for (; i < mr; ++i) dst[i] = static_cast<A>(src[i * a.rs]);
      for (; i < MR; ++i) dst[i] = A(0);
    }
  }
}

// Packs rows [p0, p0+kc) x cols [j0, j0+nc) of b into NR-column panels: dst[panel][p][j].
template <typename T, typename A, int NR>
OAR_INLINE void pack_b(const Mat<T>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, A* dst) {
  for (int64_t jp = 0; jp < nc; jp += NR) {
    const int nr = static_cast<int>(std::min<int64_t>(NR, nc - jp));
    const T* base = b.p + p0 * b.rs + (j0 + jp) * b.cs;
    if (nr == NR && b.cs == 1) {
      for (int64_t p = 0; p < kc; ++p, dst += NR) {
        const T* src = base + p * b.rs;
        for (int j = 0; j < NR; ++j) dst[j] = static_cast<A>(src[j]);
      }
      continue;
    }
    for (int64_t p = 0; p < kc; ++p, dst += NR) {
      const T* src = base + p * b.rs;
      int j = 0;
      for (; j < nr; ++j) dst[j] = static_cast<A>(src[j * b.cs]);
      for (; j < NR; ++j) dst[j] = A(0);
    }
  }
}

// C[mc, nc] (+)= packed A[mc, kc] @ packed B[kc, nc], one MR x NR tile at a time.
template <typename T, typename A, typename K>
OAR_INLINE void macro_kernel(int64_t mc, int64_t nc, int64_t kc, const A* pa, const A* pb, T* c,
                             int64_t ldc, bool accumulate) {
  constexpr int MR = K::MR, NR = K::NR, NV = K::NV;
  typedef A V __attribute__((vector_size(K::W)));
  constexpr int L = K::W / static_cast<int>(sizeof(A));
  for (int64_t jp = 0; jp < nc; jp += NR) {
    const int nr = static_cast<int>(std::min<int64_t>(NR, nc - jp));
    const A* bpanel = pb + jp * kc;
    for (int64_t ip = 0; ip < mc; ip += MR) {
      const int mr = static_cast<int>(std::min<int64_t>(MR, mc - ip));
      const A* ap = pa + ip * kc;
      const A* bp = bpanel;
      V acc[MR][NV];
#pragma GCC unroll 32
      for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i][v] = V{};
      for (int64_t p = 0; p < kc; ++p, ap += MR, bp += NR) {
        V bv[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) std::memcpy(&bv[v], bp + v * L, sizeof(V));
#pragma GCC unroll 32
        for (int i = 0; i < MR; ++i) {
          const A av = ap[i];
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v) acc[i][v] += av * bv[v];
        }
      }
      T* cp = c + ip * ldc + jp;
      if constexpr (std::is_same_v<T, A>) {
        if (mr == MR && nr == NR) {
#pragma GCC unroll 32
          for (int i = 0; i < MR; ++i) {
            T* cr = cp + i * ldc;
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) {
              V out = acc[i][v];
              if (accumulate) {
                V old;
                std::memcpy(&old, cr + v * L, sizeof(V));
                out += old;
              }
              std::memcpy(cr + v * L, &out, sizeof(V));
            }
          }
          continue;
        }
      }
      alignas(64) A tile[MR][NR];
#pragma GCC unroll 32
      for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) std::memcpy(&tile[i][v * L], &acc[i][v], sizeof(V));
      for (int i = 0; i < mr; ++i) {
        T* cr = cp + i * ldc;
        if (accumulate) {
          for (int j = 0; j < nr; ++j) cr[j] = static_cast<T>(static_cast<A>(cr[j]) + tile[i][j]);
        } else {
          for (int j = 0; j < nr; ++j) cr[j] = static_cast<T>(tile[i][j]);
        }
      }
    }
  }
}

// Per-thread buffers, grown on demand and kept for later calls: 0 and 1 pack A and B in the
// blocked kernel, 2 holds sgemm's untransposed copy of B.
template <typename A>
A* scratch(size_t n, int which) {
  thread_local std::vector<A> bufs[3];
  std::vector<A>& v = bufs[which];
  if (v.size() < n) v.resize(n);
  return v.data();
}

// The blocked kernel on one rectangle of C (single thread).
template <typename T, typename K>
OAR_INLINE void blocked_body(int64_t M, int64_t N, int64_t K_, const Mat<T>& a, const Mat<T>& b,
                             T* c, int64_t ldc, bool accumulate) {
  using A = acc_t<T>;
  const int64_t kc_max = std::min(K_, K::KC);
  const int64_t nc_max = std::min((N + K::NR - 1) / K::NR * K::NR, K::NC);
  const int64_t mc_max = std::min((M + K::MR - 1) / K::MR * K::MR, K::MC);
  A* pa = scratch<A>(static_cast<size_t>(mc_max * kc_max), 0);
  A* pb = scratch<A>(static_cast<size_t>(nc_max * kc_max), 1);
  for (int64_t jc = 0; jc < N; jc += K::NC) {
    const int64_t nc = std::min(K::NC, N - jc);
    for (int64_t pc = 0; pc < K_; pc += K::KC) {
      const int64_t kc = std::min(K::KC, K_ - pc);
      pack_b<T, A, K::NR>(b, pc, kc, jc, nc, pb);
      for (int64_t ic = 0; ic < M; ic += K::MC) {
        const int64_t mc = std::min(K::MC, M - ic);
        pack_a<T, A, K::MR>(a, ic, mc, pc, kc, pa);
        macro_kernel<T, A, K>(mc, nc, kc, pa, pb, c + ic * ldc + jc, ldc, accumulate || pc > 0);
      }
    }
  }
}

template <typename T>
OAR_TARGET_AVX512 void blocked_avx512(
    int64_t M, int64_t N, int64_t K, const Mat<T>& a, const Mat<T>& b, T* c, int64_t ldc,
    bool acc) {
  blocked_body<T, CfgAvx512<acc_t<T>>>(M, N, K, a, b, c, ldc, acc);
}
template <typename T>
OAR_TARGET_AVX2 void blocked_avx2(int64_t M, int64_t N, int64_t K, const Mat<T>& a, const Mat<T>& b,
                                  T* c, int64_t ldc, bool acc) {
  blocked_body<T, CfgAvx2<acc_t<T>>>(M, N, K, a, b, c, ldc, acc);
}
template <typename T>
void blocked_base(int64_t M, int64_t N, int64_t K, const Mat<T>& a, const Mat<T>& b, T* c,
                  int64_t ldc, bool acc) {
  blocked_body<T, CfgBase<acc_t<T>>>(M, N, K, a, b, c, ldc, acc);
}

template <typename T>
void gemm_blocked(int64_t M, int64_t N, int64_t K, const Mat<T>& a, const Mat<T>& b, T* c,
                  int64_t ldc, bool accumulate) {
  switch (cpu_isa()) {
    case CpuIsa::Avx512: return blocked_avx512<T>(M, N, K, a, b, c, ldc, accumulate);
    case CpuIsa::Avx2: return blocked_avx2<T>(M, N, K, a, b, c, ldc, accumulate);
    default: return blocked_base<T>(M, N, K, a, b, c, ldc, accumulate);
  }
}

// C[M, N] (+)= A @ B for any real or complex T (not half types), threaded over rows or columns.
template <typename T>
void gemm_generic(int64_t M, int64_t N, int64_t K, const Mat<T>& a, const Mat<T>& b, T* c,
                  int64_t ldc, bool accumulate) {
  if (M <= 0 || N <= 0) return;
  if (K == 0) {
    if (!accumulate)
      for (int64_t i = 0; i < M; ++i) std::fill(c + i * ldc, c + i * ldc + N, T(0));
    return;
  }
  const int64_t work = M * N * K;
  const bool simple = kIsComplex<T> || work <= kSmallWork;
  const int64_t threads = work >= kParallelWork ? get_num_threads() : 1;
  auto run = [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    const Mat<T> as{a.p + i0 * a.rs, a.rs, a.cs};
    const Mat<T> bs{b.p + j0 * b.cs, b.rs, b.cs};
    T* cs = c + i0 * ldc + j0;
    if constexpr (kIsComplex<T>) {
      gemm_simple<T>(i1 - i0, j1 - j0, K, as, bs, cs, ldc, accumulate);
    } else {
      if (simple) gemm_simple<T>(i1 - i0, j1 - j0, K, as, bs, cs, ldc, accumulate);
      else gemm_blocked<T>(i1 - i0, j1 - j0, K, as, bs, cs, ldc, accumulate);
    }
  };
  if (threads <= 1) {
    run(0, M, 0, N);
    return;
  }
  // One block of rows per thread, or of columns when there are too few rows to share.
  constexpr int64_t kRowQuantum = 12 * 2;
  if (M >= threads * kRowQuantum || M >= N) {
    parallel_for(0, M, std::max<int64_t>(1, M / threads), [&](int64_t b0, int64_t b1) {
      run(b0, b1, 0, N);
    });
  } else {
    parallel_for(0, N, std::max<int64_t>(1, N / threads), [&](int64_t b0, int64_t b1) {
      run(0, M, b0, b1);
    });
  }
}

// How BLAS reads a rows x cols matrix with element strides (rs, cs): 'N' (row-major, ld = rs)
// or 'T' (column-major, ld = cs). False when neither fits (the caller copies it first).
bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, char& trans, int64_t& ld) {
  const int64_t r = std::max<int64_t>(rows, 1), k = std::max<int64_t>(cols, 1);
  if (cs == 1 || cols == 1) {
    const int64_t l = rows == 1 ? k : rs;
    if (l >= k) { trans = 'N'; ld = l; return true; }
  }
  if (rs == 1 || rows == 1) {
    const int64_t l = cols == 1 ? r : cs;
    if (l >= r) { trans = 'T'; ld = l; return true; }
  }
  return false;
}

// ---- matmul: operands as (batched) matrices ----
struct Plan {
  int64_t M = 1, N = 1, K = 1;
  int64_t xrs = 0, xcs = 0, yrs = 0, ycs = 0;  // op(x): M x K, op(y): K x N
  int nb = 0;                                   // batch dims after merging
  int64_t bsize[kMaxBatchDims], bx[kMaxBatchDims], by[kMaxBatchDims];
  int64_t batch = 1;
};

void make_plan(const Tensor& x, const Tensor& y, bool tx, bool ty, Plan& p) {
  const Shape& xs = x.shape();
  const Shape& ys = y.shape();
  const Strides& xst = x.strides();
  const Strides& yst = y.strides();
  const int xn = static_cast<int>(xs.size()), yn = static_cast<int>(ys.size());
  if (xn == 1) {
    p.M = 1, p.K = xs[0], p.xrs = 0, p.xcs = xst[0];
  } else {
    const int64_t r = xs[xn - 2], c = xs[xn - 1], sr = xst[xn - 2], sc = xst[xn - 1];
    if (tx) p.M = c, p.K = r, p.xrs = sc, p.xcs = sr;
    else p.M = r, p.K = c, p.xrs = sr, p.xcs = sc;
  }
  if (yn == 1) {
    p.N = 1, p.yrs = yst[0], p.ycs = 0;
  } else {
    const int64_t r = ys[yn - 2], c = ys[yn - 1], sr = yst[yn - 2], sc = yst[yn - 1];
    if (ty) p.N = r, p.yrs = sc, p.ycs = sr;
    else p.N = c, p.yrs = sr, p.ycs = sc;
  }
  // Batch dims, right-aligned; size-1 dims dropped, neighbours merged where both strides allow.
  const int xb = std::max(xn - 2, 0), yb = std::max(yn - 2, 0), nb = std::max(xb, yb);
  p.nb = 0;
  p.batch = 1;
  for (int d = 0; d < nb; ++d) {
    const int dx = d - (nb - xb), dy = d - (nb - yb);
    const int64_t xsz = dx >= 0 ? xs[dx] : 1, ysz = dy >= 0 ? ys[dy] : 1;
    const int64_t size = std::max(xsz, ysz);
    if (size == 1) continue;
    const int64_t sx = xsz != 1 ? xst[dx] : 0, sy = ysz != 1 ? yst[dy] : 0;
    if (p.nb > 0 && p.bx[p.nb - 1] == sx * size && p.by[p.nb - 1] == sy * size) {
      p.bsize[p.nb - 1] *= size;
      p.bx[p.nb - 1] = sx;
      p.by[p.nb - 1] = sy;
    } else {
      OAR_ENFORCE(p.nb < kMaxBatchDims, Unimplemented, "matmul: more than ", kMaxBatchDims,
                  " batch dimensions are not supported");
      p.bsize[p.nb] = size, p.bx[p.nb] = sx, p.by[p.nb] = sy;
      ++p.nb;
    }
    p.batch *= size;
  }
  // y shared by every batch and x's batch laid out like rows: one tall GEMM.
  if (p.nb == 1 && p.by[0] == 0 && p.bx[0] != 0 && (p.M == 1 || p.bx[0] == p.M * p.xrs)) {
    if (p.M == 1) p.xrs = p.bx[0];
    p.M *= p.bsize[0];
    p.nb = 0;
    p.batch = 1;
  }
}

// Calls f(x_offset, y_offset, out_offset) for every batch entry (element offsets); small
// matrices are spread over threads, large ones run one after another (each GEMM threads itself).
template <typename F>
void for_each_batch(const Plan& p, const F& f) {
  if (p.batch == 1) {
    f(0, 0, 0);
    return;
  }
  const int64_t mn = p.M * p.N;
  const int64_t per = std::max<int64_t>(mn * p.K, 1);
  auto body = [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      int64_t rem = b, ox = 0, oy = 0;
      for (int d = p.nb - 1; d >= 0; --d) {
        const int64_t i = rem % p.bsize[d];
        rem /= p.bsize[d];
        ox += i * p.bx[d];
        oy += i * p.by[d];
      }
      f(ox, oy, b * mn);
    }
  };
  if (per < kBlasParallelWork && per * p.batch >= kParallelWork) {
    parallel_for(0, p.batch, std::max<int64_t>(1, kParallelWork / per), body);
  } else {
    body(0, p.batch);
  }
}

Tensor contiguous_copy(const Tensor& t) {
  Tensor c = Tensor::make(t.shape(), t.dtype());
  copy(t, c);
  return c;
}

// A batched product through a BLAS-style GEMM on element type T:
// gemm(trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc) for each batch entry.
template <typename T, typename Gemm>
void matmul_blas(const Tensor& x0, const Tensor& y0, bool tx, bool ty, const Tensor& out, const Gemm& gemm) {
  // Operands BLAS cannot read in place (neither row- nor column-contiguous) are copied first.
  const Tensor* x = &x0;
  const Tensor* y = &y0;
  Tensor xcopy, ycopy;
  Plan p;
  make_plan(*x, *y, tx, ty, p);
  char ta = 'N', tb = 'N';
  int64_t lda = 1, ldb = 1;
  if (!blas_layout(p.M, p.K, p.xrs, p.xcs, ta, lda)) {
    xcopy = contiguous_copy(x0);
    x = &xcopy;
    make_plan(*x, *y, tx, ty, p);
    blas_layout(p.M, p.K, p.xrs, p.xcs, ta, lda);
  }
  if (!blas_layout(p.K, p.N, p.yrs, p.ycs, tb, ldb)) {
    ycopy = contiguous_copy(y0);
    y = &ycopy;
    make_plan(*x, *y, tx, ty, p);
    blas_layout(p.M, p.K, p.xrs, p.xcs, ta, lda);
    blas_layout(p.K, p.N, p.yrs, p.ycs, tb, ldb);
  }
  const T* xp = static_cast<const T*>(x->raw_data());
  const T* yp = static_cast<const T*>(y->raw_data());
  T* op = static_cast<T*>(out.raw_data());
  for_each_batch(p, [&](int64_t ox, int64_t oy, int64_t oo) {
    gemm(ta == 'T', tb == 'T', p.M, p.N, p.K, xp + ox, lda, yp + oy, ldb, op + oo, p.N);
  });
}

void matmul_f32(const Tensor& x, const Tensor& y, bool tx, bool ty, const Tensor& out, float beta = 0.0f) {
  matmul_blas<float>(x, y, tx, ty, out,
                     [beta](bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* a, int64_t lda,
                            const float* b, int64_t ldb, float* c, int64_t ldc) {
                       sgemm(ta, tb, M, N, K, 1.0f, a, lda, b, ldb, beta, c, ldc);
                     });
}

// bfloat16 in bfloat16 (oneDNN, float32 accumulation) on CPUs with bfloat16 dot products; false
// when oneDNN has no implementation for the shapes (the caller then converts to float32).
bool matmul_bf16_native(const Tensor& x, const Tensor& y, bool tx, bool ty, const Tensor& out) {
  std::atomic<bool> ok{true};
  matmul_blas<bfloat16>(x, y, tx, ty, out,
                        [&ok](bool ta, bool tb, int64_t M, int64_t N, int64_t K, const bfloat16* a,
                              int64_t lda, const bfloat16* b, int64_t ldb, bfloat16* c, int64_t ldc) {
                          if (!onednn::gemm_bf16(ta, tb, M, N, K, a, lda, b, ldb, c, ldc)) ok = false;
                        });
  return ok;
}

template <typename T>
void matmul_generic(const Tensor& x, const Tensor& y, bool tx, bool ty, const Tensor& out) {
  Plan p;
  make_plan(x, y, tx, ty, p);
  const T* xp = static_cast<const T*>(x.raw_data());
  const T* yp = static_cast<const T*>(y.raw_data());
  T* op = static_cast<T*>(out.raw_data());
  for_each_batch(p, [&](int64_t ox, int64_t oy, int64_t oo) {
    gemm_generic<T>(p.M, p.N, p.K, Mat<T>{xp + ox, p.xrs, p.xcs}, Mat<T>{yp + oy, p.yrs, p.ycs},
                    op + oo, p.N, false);
  });
}

}  // namespace

void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
           const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C,
           int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0 || alpha == 0.0f) {
    for (int64_t i = 0; i < M; ++i) {
      float* cr = C + i * ldc;
      for (int64_t j = 0; j < N; ++j) cr[j] = beta == 0.0f ? 0.0f : beta * cr[j];
    }
    return;
  }
  if (M * N * K <= kTinyF32Work && alpha == 1.0f && (beta == 0.0f || beta == 1.0f)) {
    const Mat<float> a = trans_a ? Mat<float>{A, 1, lda} : Mat<float>{A, lda, 1};
    const Mat<float> b = trans_b ? Mat<float>{B, 1, ldb} : Mat<float>{B, ldb, 1};
    gemm_simple<float>(M, N, K, a, b, C, ldc, beta == 1.0f);
    return;
  }
  // oneDNN's sgemm runs products with B transposed well below its plain speed (measured on a
  // Zen 4: 2048x4096 times (384x4096)^T at 155 GFLOP/s against 215 without the transpose), and
  // every linear layer's input gradient is one. From M = 512 rows, B is transposed into a
  // per-thread buffer first (1/M of the work). Below that the plain path is not faster: the
  // attention heads' 256 x 256 x 64 products ran at 135-143 GFLOP/s copied, 161 without.
  if (trans_b && M >= kTransposeBMinRows && M * N * K >= kBlasParallelWork) {
    float* bt = scratch<float>(static_cast<size_t>(K * N), 2);
    transpose_2d(B, N, K, ldb, bt, N);
    B = bt;
    ldb = N;
    trans_b = false;
  }
  // oneDNN threads through OpenMP with omp_get_max_threads() threads: one for small problems,
  // oar's thread count otherwise (inside a parallel region it runs on one thread by itself).
  struct ThreadGuard {
    int saved = 0;
    explicit ThreadGuard(int want) {
#ifdef _OPENMP
      if (!omp_in_parallel() && want != omp_get_max_threads()) {
        saved = omp_get_max_threads();
        omp_set_num_threads(want);
      }
#else
      (void)want;
#endif
    }
    ~ThreadGuard() {
#ifdef _OPENMP
      if (saved > 0) omp_set_num_threads(saved);
#endif
    }
  } guard(M * N * K < kBlasParallelWork ? 1 : get_num_threads());
  const dnnl_status_t st = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', M, N, K, alpha,
                                      A, lda, B, ldb, beta, C, ldc);
  OAR_ENFORCE(st == dnnl_success, External, "matmul: oneDNN sgemm failed with status ",
              static_cast<int>(st), " (M=", M, ", N=", N, ", K=", K, ", lda=", lda,
              ", ldb=", ldb, ", ldc=", ldc, ")");
}

void dgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const double* A,
           int64_t lda, const double* B, int64_t ldb, double* C, int64_t ldc, bool accumulate) {
  const Mat<double> a = trans_a ? Mat<double>{A, 1, lda} : Mat<double>{A, lda, 1};
  const Mat<double> b = trans_b ? Mat<double>{B, 1, ldb} : Mat<double>{B, ldb, 1};
  gemm_generic<double>(M, N, K, a, b, C, ldc, accumulate);
}

void matmul_accumulate_f32(const Tensor& x, const Tensor& y, bool transpose_x, bool transpose_y,
                           const Tensor& out) {
  OAR_ENFORCE(x.dtype() == DType::Float32 && y.dtype() == DType::Float32 && out.dtype() == DType::Float32 &&
                  out.is_contiguous(),
              InvalidArgument, "matmul_accumulate_f32: float32 operands and a contiguous float32 out expected, got ",
              dtype_name(x.dtype()), ", ", dtype_name(y.dtype()), ", ", dtype_name(out.dtype()));
  if (out.numel() == 0) return;
  const int64_t k = x.ndim() == 1 ? x.shape()[0] : x.shape()[x.ndim() - (transpose_x ? 2 : 1)];
  if (k == 0) return;
  matmul_f32(x, y, transpose_x, transpose_y, out, 1.0f);
}

void matmul(const Tensor& x, const Tensor& y, bool transpose_x, bool transpose_y,
            const Tensor& out) {
  if (out.numel() == 0) return;
  const DType dt = x.dtype();
  // An empty contraction gives zeros.
  const int64_t k = x.ndim() == 1 ? x.shape()[0] : x.shape()[x.ndim() - (transpose_x ? 2 : 1)];
  if (k == 0) {
    fill(out, Scalar(0));
    return;
  }
  if (dt == DType::BFloat16 && cpu_has_bf16_dot() && out.is_contiguous() &&
      matmul_bf16_native(x, y, transpose_x, transpose_y, out))
    return;
  if (dt == DType::Float16 || dt == DType::BFloat16) {
    // Half types without native products: multiply in float32, round once at the end.
    Tensor x32 = Tensor::make(x.shape(), DType::Float32);
    Tensor y32 = Tensor::make(y.shape(), DType::Float32);
    Tensor o32 = Tensor::make(out.shape(), DType::Float32);
    copy(x, x32);
    copy(y, y32);
    matmul_f32(x32, y32, transpose_x, transpose_y, o32);
    copy(o32, out);
    return;
  }
  if (!out.is_contiguous()) {
    Tensor tmp = Tensor::make(out.shape(), out.dtype());
    matmul(x, y, transpose_x, transpose_y, tmp);
    copy(tmp, out);
    return;
  }
  switch (dt) {
    case DType::Float32: return matmul_f32(x, y, transpose_x, transpose_y, out);
    case DType::Float64: return matmul_generic<double>(x, y, transpose_x, transpose_y, out);
    case DType::Int8: return matmul_generic<int8_t>(x, y, transpose_x, transpose_y, out);
    case DType::UInt8: return matmul_generic<uint8_t>(x, y, transpose_x, transpose_y, out);
    case DType::Int16: return matmul_generic<int16_t>(x, y, transpose_x, transpose_y, out);
    case DType::Int32: return matmul_generic<int32_t>(x, y, transpose_x, transpose_y, out);
    case DType::Int64: return matmul_generic<int64_t>(x, y, transpose_x, transpose_y, out);
    case DType::Complex64: return matmul_generic<complex64>(x, y, transpose_x, transpose_y, out);
    case DType::Complex128: return matmul_generic<complex128>(x, y, transpose_x, transpose_y, out);
    default:
      unsupported_dtype("matmul", dt,
                        "float16, bfloat16, float32, float64, int8, uint8, int16, int32, int64, "
                        "complex64, complex128");
  }
}

}  // namespace oar::kernels
