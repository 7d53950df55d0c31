// Composite ops of the nn_common family (oar/ops/specs/nn_common.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include "oar/ops/composite/composite.h"

#include "oar/ops/infer_meta/nn_common.h"
#ifndef OAR_SHAPE_ONLY  // used by the eager-only parts below
#include "oar/kernels/cpu/nn_common.h"
#include "oar/core/random.h"
#include "oar/ops/device_random.h"
#endif

namespace OAR_COMPOSITE_NAMESPACE {

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  infer_meta::linear(x, weight, bias);
  Tensor direct = matmul_bias_act_direct(x, weight, bias, false, false, "none");
  if (direct.defined()) return direct;
  Tensor out = matmul(x, weight);
  if (!bias.defined()) return out;
  return out + bias;
}

Tensor dropout(const Tensor& x, double p, const IntArray& axis, bool training, const std::string& mode) {
  const Shape mshape = infer_meta::dropout(x, p, axis, mode);
  const bool upscale = mode == "upscale_in_train";
  if (!training) return upscale ? assign(x) : scale(x, 1.0 - p);  // a new tensor, as Paddle
  if (p == 0.0) return x;
  const double keep = upscale ? (p >= 1.0 ? 0.0 : 1.0 / (1.0 - p)) : 1.0;
  return x * dropout_mask(IntArray(std::vector<int64_t>(mshape.begin(), mshape.end())), p, keep, x.dtype());
}

Tensor embedding(const Tensor& x, const Tensor& weight, std::optional<int64_t> padding_idx, bool sparse) {
  const int64_t pad = infer_meta::embedding_padding(x, weight, padding_idx, sparse);
  return embedding_base(x, weight, pad);
}

Tensor dropout_mask(const IntArray& shape, double p, double keep_value, DType dtype) {
  Tensor mask = Tensor::make(Shape(shape.begin(), shape.end()), dtype, expected_place());
#ifndef OAR_SHAPE_ONLY  // the draw; a program knows the type above and draws when it runs
  Generator& g = default_generator();
  const uint64_t offset = g.reserve(static_cast<uint64_t>((mask.numel() + 3) / 4));
  ops::draw_into("random_dropout_mask", mask, {}, {{"p", ir::to_attribute(p)}, {"keep_value", ir::to_attribute(keep_value)}},
                 g.seed(), offset,
                 [&](const Tensor& o, const std::vector<Tensor>&) { kernels::dropout_mask(p, keep_value, g.seed(), offset, o); });
#endif
  return mask;
}

}  // namespace OAR_COMPOSITE_NAMESPACE
