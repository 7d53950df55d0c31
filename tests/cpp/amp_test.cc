// auto_cast from C++ (oar/ops/amp.h): which dtype each kind of op computes in at each level, that
// gradients come back in the parameters' dtype, and GradScaler's unscale pass (oar/ops/grad_scale.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "oar/oar.h"

namespace oar {
namespace {

using amp::AutoCast;
using amp::Level;

Tensor f32(const Shape& shape) { return randn(IntArray(shape), DType::Float32); }

TEST(Amp, O1WhiteOpsRunInTheLowDtypeBlackOpsInFloat32GrayOpsPromote) {
  const Tensor x = f32({4, 8}), w = f32({8, 3});
  AutoCast on(Level::O1, DType::BFloat16);
  const Tensor y = matmul(x, w);  // white
  EXPECT_EQ(y.dtype(), DType::BFloat16);
  EXPECT_EQ(exp(y).dtype(), DType::Float32);            // black: cast up
  EXPECT_EQ(add(y, y).dtype(), DType::BFloat16);        // gray, all bf16: stays
  EXPECT_EQ(add(y, f32({4, 3})).dtype(), DType::Float32);  // gray with a float32 input: promoted
  EXPECT_EQ(add(cast(y, DType::Float64), cast(y, DType::Float64)).dtype(), DType::Float64);  // not castable
}

TEST(Amp, O2AndODLevels) {
  const Tensor x = f32({2, 5});
  {
    AutoCast o2(Level::O2, DType::Float16);
    EXPECT_EQ(exp(cast(x, DType::Float16)).dtype(), DType::Float16);  // black only at O1
    EXPECT_EQ(sum(cast(x, DType::Float16)).dtype(), DType::Float16);
  }
  {
    AutoCast od(Level::OD, DType::BFloat16);
    EXPECT_EQ(matmul(x, x, false, true).dtype(), DType::BFloat16);
    EXPECT_EQ(relu(cast(x, DType::BFloat16)).dtype(), DType::Float32);  // OD: only white ops are low
  }
  EXPECT_EQ(matmul(x, x, false, true).dtype(), DType::Float32);  // off again after the scope
}

TEST(Amp, ScopesNestAndInPlaceOpsKeepTheirDtype) {
  Tensor x = f32({3});
  AutoCast outer(Level::O1, DType::BFloat16);
  {
    AutoCast inner(Level::O1, DType::Float16);
    EXPECT_EQ(matmul(f32({2, 2}), f32({2, 2})).dtype(), DType::Float16);
  }
  EXPECT_EQ(matmul(f32({2, 2}), f32({2, 2})).dtype(), DType::BFloat16);
  exp_(x);  // black, but in place: never cast
  EXPECT_EQ(x.dtype(), DType::Float32);
}

TEST(Amp, GradientsComeBackInTheParametersDtype) {
  Tensor w = f32({8, 3});
  w.set_stop_gradient(false);
  Tensor loss;
  {
    AutoCast on(Level::O1, DType::BFloat16);
    loss = sum(matmul(f32({4, 8}), w));  // matmul in bf16, sum (black) in float32
  }
  EXPECT_EQ(loss.dtype(), DType::Float32);
  autograd::backward({loss}, {}, false);
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().dtype(), DType::Float32);
}

TEST(Amp, UnscaleGradsScalesAndReportsNonFinite) {
  Tensor a = full({1000}, 4.0, DType::Float32), b = full({7}, 2.0, DType::BFloat16);
  EXPECT_TRUE(amp::unscale_grads({a, b}, 0.25));
  EXPECT_FLOAT_EQ(a.to_vector<float>()[999], 1.0f);
  EXPECT_FLOAT_EQ(static_cast<float>(b.to_vector<bfloat16>()[0]), 0.5f);
  Tensor c = full({70000}, 1.0, DType::Float32);
  c = index_put(c, {full({1}, 65536.0, DType::Int64)}, full({1}, std::numeric_limits<double>::infinity(), DType::Float32));
  EXPECT_FALSE(amp::unscale_grads({a, c}, 1.0));
  Tensor d = full({3}, std::nan(""), DType::Float64);
  EXPECT_FALSE(amp::unscale_grads({d}, 1.0));
}

}  // namespace
}  // namespace oar
