// The CUDA backend through oar's op layer: every op with a CUDA kernel against the CPU kernel on
// the same inputs (forward and gradients), dtypes float32/float64/bfloat16/float16, a small
// training loop, host reads, allocator statistics. Skips where no GPU is present (CI); runs on
// a GPU machine through tools/gpu_check.sh.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "oar/autograd/engine.h"
#include "oar/autograd/grad_mode.h"
#include "oar/device/device_registry.h"
#include "oar/ops/device_ops.h"
#include "oar/ops/generated/api.h"
#include "oar/ops/op_helpers.h"

namespace oar {
namespace {

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (device::device_count("gpu") == 0) GTEST_SKIP() << "no GPU (or no CUDA backend) here";
  }
  const Place gpu = GPUPlace(0);
};

Tensor random(const Shape& shape, uint32_t seed, DType dtype = DType::Float32) {
  std::mt19937 g(seed);
  std::normal_distribution<float> n(0.f, 1.f);
  std::vector<float> v(static_cast<size_t>(numel_of(shape)));
  for (float& x : v) x = n(g);
  Tensor t = Tensor::from_vector<float>(v, shape);
  return dtype == DType::Float32 ? t : cast(t, dtype);
}

// max |a - b| / (1 + |b|) over all elements, computed on the host in double.
double rel_err(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  const auto x = a.to_vector<double>(), y = b.to_vector<double>();
  double e = 0;
  for (size_t i = 0; i < x.size(); ++i) e = std::max(e, std::abs(x[i] - y[i]) / (1 + std::abs(y[i])));
  return e;
}

double tolerance(DType t) {
  switch (t) {
    case DType::Float64: return 1e-12;
    case DType::Float32: return 2e-5;
    case DType::BFloat16: return 3e-2;
    default: return 5e-3;
  }
}

TEST_F(GpuTest, ElementwiseAndReductionsMatchCpu) {
  for (DType dt : {DType::Float32, DType::Float64, DType::BFloat16, DType::Float16}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor a = random({37, 129}, 1, dt), b = random({129}, 2, dt);
    const Tensor ga = a.to(gpu), gb = b.to(gpu);
    const double tol = tolerance(dt);
    EXPECT_LE(rel_err(add(ga, gb), add(a, b)), tol);
    EXPECT_LE(rel_err(multiply(ga, gb), multiply(a, b)), tol);
    EXPECT_LE(rel_err(subtract(ga, gb), subtract(a, b)), tol);
    EXPECT_LE(rel_err(exp(ga), exp(a)), tol);
    EXPECT_LE(rel_err(tanh(ga), tanh(a)), tol);
    EXPECT_LE(rel_err(relu(ga), relu(a)), tol);
    EXPECT_LE(rel_err(sigmoid(ga), sigmoid(a)), tol);
    // reductions accumulate in float: compare against the float32/64 CPU result
    EXPECT_LE(rel_err(ga.sum(IntArray{1}, std::nullopt, false), a.sum(IntArray{1}, std::nullopt, false)),
              tol * 20);
    EXPECT_LE(rel_err(ga.mean(IntArray{0}, true), a.mean(IntArray{0}, true)), tol * 20);
    // a transposed (strided) view
    EXPECT_LE(rel_err(transpose(ga, {1, 0}) + 1.0, transpose(a, {1, 0}) + 1.0), tol);
  }
  // 0-size and 0-D tensors
  const Tensor e = Tensor::make({0, 3}, DType::Float32, gpu);
  EXPECT_EQ(add(e, e).numel(), 0);
  EXPECT_FLOAT_EQ(full(IntArray{}, 2.5, DType::Float32).to(gpu).item<float>(), 2.5f);
}

TEST_F(GpuTest, SoftmaxAndLogSoftmaxMatchCpu) {
  for (DType dt : {DType::Float32, DType::Float64, DType::BFloat16, DType::Float16}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor a = random({6, 1000, 7}, 11, dt) * 4.0;
    for (int64_t axis : {-1, 1, 0}) {
      EXPECT_LE(rel_err(softmax(a.to(gpu), axis, std::nullopt), softmax(a, axis, std::nullopt)), tolerance(dt));
      EXPECT_LE(rel_err(log_softmax(a.to(gpu), axis, std::nullopt), log_softmax(a, axis, std::nullopt)),
                tolerance(dt) * 10);
    }
    // a transposed view and a 0-D tensor
    EXPECT_LE(rel_err(softmax(transpose(a.to(gpu), {2, 1, 0}), 0, std::nullopt),
                      softmax(transpose(a, {2, 1, 0}), 0, std::nullopt)), tolerance(dt));
  }
  // gradient through log_softmax (the cross-entropy path)
  auto grad_of = [](const Place& p) {
    Tensor w = random({32, 10}, 12).to(p);
    w.set_stop_gradient(false);
    Tensor loss = (log_softmax(w, -1, std::nullopt) * random({32, 10}, 13).to(p)).sum(IntArray{}, std::nullopt, false);
    loss.backward();
    return w.grad();
  };
  EXPECT_LE(rel_err(grad_of(gpu), grad_of(CPUPlace())), 1e-5);
}

TEST_F(GpuTest, MatmulAllDtypesAndLayouts) {
  for (DType dt : {DType::Float32, DType::Float64, DType::BFloat16, DType::Float16}) {
    SCOPED_TRACE(dtype_name(dt));
    for (bool tx : {false, true}) {
      for (bool ty : {false, true}) {
        const Tensor a = random(tx ? Shape{3, 65, 33} : Shape{3, 33, 65}, 3, dt);
        const Tensor b = random(ty ? Shape{17, 65} : Shape{65, 17}, 4, dt);
        const Tensor want = matmul(cast(a, DType::Float64), cast(b, DType::Float64), tx, ty);
        const Tensor got = matmul(a.to(gpu), b.to(gpu), tx, ty);
        EXPECT_EQ(got.place(), gpu);
        EXPECT_LE(rel_err(cast(got, DType::Float64), want), dt == DType::Float64 ? 1e-10 : tolerance(dt) * 8);
      }
    }
  }
}

TEST_F(GpuTest, GradientsMatchCpu) {
  auto run = [](const Place& p) {
    Tensor x = random({8, 16}, 5).to(p);
    Tensor w = random({16, 4}, 6).to(p);
    w.set_stop_gradient(false);
    Tensor y = relu(matmul(x, w));
    Tensor loss = (y * y).mean(IntArray{}, false);
    loss.backward();
    return std::make_pair(loss, w.grad());
  };
  auto [lg, gg] = run(gpu);
  auto [lc, gc] = run(CPUPlace());
  EXPECT_EQ(gg.place(), gpu);
  EXPECT_LE(rel_err(lg, lc), 1e-5);
  EXPECT_LE(rel_err(gg, gc), 1e-5);
}

TEST_F(GpuTest, TrainingLoopConverges) {
  const Tensor x = random({256, 8}, 7).to(gpu);
  const Tensor true_w = random({8, 1}, 8).to(gpu);
  const Tensor y = matmul(x, true_w);
  Tensor w = full(IntArray{8, 1}, 0.0, DType::Float32).to(gpu);
  w.set_stop_gradient(false);
  float last = 0;
  for (int step = 0; step < 200; ++step) {
    Tensor diff = matmul(x, w) - y;
    Tensor loss = (diff * diff).mean(IntArray{}, false);
    loss.backward();
    {
      autograd::NoGradGuard no_grad;
      w.copy_(w - w.grad() * 0.1);
    }
    w.clear_grad();
    last = loss.item<float>();
  }
  EXPECT_LT(last, 1e-4);
}

TEST_F(GpuTest, MemoryStatisticsAndPinnedCopies) {
  CachingAllocator& a = device::allocator(gpu);
  const int64_t before = a.stats().allocated;
  {
    Tensor t = Tensor::make({1 << 20}, DType::Float32, gpu);
    EXPECT_GE(a.stats().allocated - before, 4 << 20);
  }
  EXPECT_EQ(a.stats().allocated, before);
  const Tensor h = random({1000}, 9);
  const Tensor pinned = h.to(GPUPinnedPlace());
  EXPECT_EQ(pinned.place(), GPUPinnedPlace());
  EXPECT_EQ(pinned.to(gpu).to_vector<float>(), h.to_vector<float>());
}

}  // namespace
}  // namespace oar
