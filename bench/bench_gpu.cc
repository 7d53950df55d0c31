// GPU benchmark through oar's op layer (the path a user's code takes, minus Python): a bf16 GEMM
// 8192^3 and the eager cost of a small add. tools/gpu_check.sh runs it beside the same cases in
// PyTorch on the same GPU and prints the ratios.
#include <chrono>
#include <cmath>
#include <cstdio>

#include "oar/device/device_registry.h"
#include "oar/ops/device_ops.h"
#include "oar/ops/generated/api.h"
#include "oar/ops/op_helpers.h"

using namespace oar;

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main() {
  if (device::device_count("gpu") == 0) {
    std::printf("SKIP: no GPU\n");
    return 0;
  }
  const Place gpu = GPUPlace(0);
  for (DType dt : {DType::BFloat16, DType::Float16, DType::Float32}) {
    const int64_t n = dt == DType::Float32 ? 4096 : 8192;
    ExpectedPlaceGuard on(gpu);
    const Tensor a = cast(uniform(IntArray{n, n}, DType::Float32, -1, 1, 1), dt);
    const Tensor b = cast(uniform(IntArray{n, n}, DType::Float32, -1, 1, 2), dt);
    for (int i = 0; i < 3; ++i) matmul(a, b);
    device::synchronize(gpu);
    const int reps = 10;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) matmul(a, b);
    device::synchronize(gpu);
    const double s = seconds_since(t0) / reps;
    // A few entries against float64 on the host: the algorithm chosen by timing computes the
    // right product too.
    const Tensor c = matmul(a, b);
    const Tensor a_rows = cast(slice(a, {0}, {0}, {4}), DType::Float64).cpu();
    const Tensor b_cols = cast(slice(b, {1}, {0}, {4}), DType::Float64).cpu();
    const std::vector<double> av = a_rows.to_vector<double>(), bv = b_cols.contiguous().to_vector<double>();
    const std::vector<double> cv = cast(slice(slice(c, {0}, {0}, {4}), {1}, {0}, {4}),
                                        DType::Float64).to_vector<double>();
    double worst = 0;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        double ref = 0;
        for (int64_t t = 0; t < n; ++t) ref += av[i * n + t] * bv[t * 4 + j];
        worst = std::max(worst, std::abs(cv[i * 4 + j] - ref) / (1 + std::abs(ref)));
      }
    std::printf("oar matmul %s %lld^3: %.1f TFLOP/s (%.3f ms); max rel. error of 16 entries %.1e\n",
                dtype_name(dt), static_cast<long long>(n), 2.0 * n * n * n / s / 1e12, s * 1e3, worst);
  }
  {
    const Tensor x = full(IntArray{1000}, 1.0, DType::Float32).to(gpu);
    const Tensor y = full(IntArray{1000}, 2.0, DType::Float32).to(gpu);
    for (int i = 0; i < 1000; ++i) add(x, y);
    device::synchronize(gpu);
    const int reps = 20000;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) add(x, y);
    const double host = seconds_since(t0) / reps;
    device::synchronize(gpu);
    const double total = seconds_since(t0) / reps;
    std::printf("oar eager add 1000 float32 (C++): %.2f us/call issued, %.2f us/call completed\n",
                host * 1e6, total * 1e6);
  }
  return 0;
}
