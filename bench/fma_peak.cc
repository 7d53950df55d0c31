// Measures this machine's float32 FMA peak (GFLOP/s) with every OpenMP thread running
// independent chains of 256-bit FMAs, so bench_core.py can report matmul as a share of it.
#include <immintrin.h>
#include <omp.h>

#include <cstdio>

int main() {
#ifdef __AVX2__
  constexpr long kIters = 20000000;
  constexpr int kChains = 10;  // enough independent FMAs in flight to cover the latency
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    float sink = 0;
    const double t0 = omp_get_wtime();
#pragma omp parallel reduction(+ : sink)
    {
      __m256 acc[kChains];
      for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(i * 1e-3f);
      const __m256 a = _mm256_set1_ps(0.9999f), b = _mm256_set1_ps(1e-4f);
      for (long it = 0; it < kIters; ++it)
#pragma GCC unroll 10
        for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
      for (int i = 0; i < kChains; ++i) sink += acc[i][0];
    }
    const double secs = omp_get_wtime() - t0;
    const double gflops = omp_get_max_threads() * kIters * kChains * 16.0 / secs / 1e9;
    if (gflops > best) best = gflops;
    if (sink == 12345.f) std::printf("-");  // keeps the chains alive
  }
  std::printf("%.1f\n", best);
#else
  std::printf("0\n");
#endif
}
