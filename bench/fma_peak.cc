// Measures this machine's float32 FMA peak (GFLOP/s) with every OpenMP thread running
// independent chains of the widest FMAs the build targets (512-bit with AVX-512, else 256-bit),
// so bench_core.py can report matmul as a share of it.
#include <immintrin.h>
#include <omp.h>

#include <cstdio>

int main() {
#if defined(__AVX512F__)
  using Vec = __m512;
  constexpr int kLanes = 16;
  auto splat = [](float v) { return _mm512_set1_ps(v); };
  auto fma = [](Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); };
  auto lane0 = [](Vec a) { return _mm512_cvtss_f32(a); };
#elif defined(__AVX2__)
  using Vec = __m256;
  constexpr int kLanes = 8;
  auto splat = [](float v) { return _mm256_set1_ps(v); };
  auto fma = [](Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); };
  auto lane0 = [](Vec a) { return _mm256_cvtss_f32(a); };
#endif
#if defined(__AVX2__)
  constexpr long kIters = 20000000;
  constexpr int kChains = 10;  // enough independent FMAs in flight to cover the latency
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    float sink = 0;
    const double t0 = omp_get_wtime();
#pragma omp parallel reduction(+ : sink)
    {
      Vec acc[kChains];
      for (int i = 0; i < kChains; ++i) acc[i] = splat(i * 1e-3f);
      const Vec a = splat(0.9999f), b = splat(1e-4f);
      for (long it = 0; it < kIters; ++it)
#pragma GCC unroll 10
        for (int i = 0; i < kChains; ++i) acc[i] = fma(acc[i], a, b);
      for (int i = 0; i < kChains; ++i) sink += lane0(acc[i]);
    }
    const double secs = omp_get_wtime() - t0;
    const double gflops = omp_get_max_threads() * kIters * kChains * 2.0 * kLanes / secs / 1e9;
    if (gflops > best) best = gflops;
    if (sink == 12345.f) std::printf("-");  // keeps the chains alive
  }
  std::printf("%.1f\n", best);
#else
  std::printf("0\n");
#endif
}
