// Trains a two-layer MLP on synthetic regression data with oar's C++ API alone (no Python).
#include <cstdio>

#include "oar/oar.h"

using oar::Tensor;

namespace {
Tensor parameter(const oar::IntArray& shape, double scale) {
  Tensor p = oar::randn(shape) * scale;
  p.set_stop_gradient(false);
  return p;
}
}  // namespace

int main() {
  oar::manual_seed(42);
  // Targets: y = sin(3 x0) + x1 * x2 - 0.5 x3, on 512 random points.
  Tensor x = oar::uniform({512, 4}, std::nullopt, -1.0, 1.0);
  Tensor cols = oar::transpose(x, {1, 0});
  auto c = oar::unbind(cols, 0);
  Tensor y = oar::unsqueeze(oar::sin(c[0] * 3.0) + c[1] * c[2] - c[3] * 0.5, {1});

  Tensor w1 = parameter({4, 64}, 0.5), b1 = parameter({64}, 0.0);
  Tensor w2 = parameter({64, 1}, 0.1), b2 = parameter({1}, 0.0);
  std::vector<Tensor> params{w1, b1, w2, b2};
  const double lr = 0.1;
  double first = 0, last = 0;
  for (int step = 0; step <= 300; ++step) {
    Tensor h = oar::tanh(oar::matmul(x, w1) + b1);
    Tensor pred = oar::matmul(h, w2) + b2;
    Tensor loss = oar::mean(oar::square(pred - y));
    loss.backward();
    {
      oar::NoGradGuard no_grad;
      for (Tensor& p : params) {
        p.subtract_(p.grad() * lr);
        p.clear_grad();
      }
    }
    const double l = loss.item<double>();
    if (step == 0) first = l;
    last = l;
    if (step % 50 == 0) std::printf("step %3d  loss %.5f\n", step, l);
  }
  std::printf("loss %.5f -> %.5f (%s)\n", first, last, last < first * 0.2 ? "falling" : "NOT falling");
  return last < first * 0.2 ? 0 : 1;
}
