// Composite ops of the creation family (oar/ops/specs/creation.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include "oar/ops/composite/composite.h"

#include "oar/ops/infer_meta/creation.h"
#ifndef OAR_SHAPE_ONLY  // used by the eager-only parts below
#include "oar/kernels/cpu/creation.h"
#include "oar/core/random.h"
#include "oar/ops/device_random.h"
#endif

namespace OAR_COMPOSITE_NAMESPACE {

Tensor zeros(const IntArray& shape, std::optional<DType> dtype) {
  return full(shape, 0, dtype.value_or(default_float_dtype()));
}

Tensor ones(const IntArray& shape, std::optional<DType> dtype) {
  return full(shape, 1, dtype.value_or(default_float_dtype()));
}

Tensor empty(const IntArray& shape, std::optional<DType> dtype) {
  const Meta m = infer_meta::from_shape("empty", shape, dtype, default_float_dtype());
  return Tensor::make(m.shape, m.dtype, expected_place());
}

Tensor full_like(const Tensor& x, const Scalar& fill_value, std::optional<DType> dtype) {
  return full(x.shape(), fill_value, dtype.value_or(x.dtype()));
}

Tensor zeros_like(const Tensor& x, std::optional<DType> dtype) {
  return full(x.shape(), 0, dtype.value_or(x.dtype()));
}

Tensor ones_like(const Tensor& x, std::optional<DType> dtype) {
  return full(x.shape(), 1, dtype.value_or(x.dtype()));
}

Tensor empty_like(const Tensor& x, std::optional<DType> dtype) {
  return Tensor::make(x.shape(), dtype.value_or(x.dtype()), x.place());
}

Tensor rand(const IntArray& shape, std::optional<DType> dtype) { return uniform(shape, dtype, 0.0, 1.0, 0); }

Tensor randn(const IntArray& shape, std::optional<DType> dtype) {
  return gaussian(shape, 0.0, 1.0, 0, dtype);
}

Tensor standard_normal(const IntArray& shape, std::optional<DType> dtype) {
  return gaussian(shape, 0.0, 1.0, 0, dtype);
}

Tensor randint(int64_t low, int64_t high, const IntArray& shape, std::optional<DType> dtype) {
  const Meta m = infer_meta::randint("randint", low, high, shape, dtype);
  Tensor out = Tensor::make(m.shape, m.dtype, expected_place());
#ifndef OAR_SHAPE_ONLY  // the draw; a program knows the type above and draws when it runs
  Generator& g = default_generator();
  const uint64_t offset = g.reserve(out.numel());
  ops::draw_into("random_randint", out, {}, {{"low", ir::to_attribute(low)}, {"high", ir::to_attribute(high)}},
                 g.seed(), offset, [&](const Tensor& o, const std::vector<Tensor>&) {
                   kernels::randint(low, high, g.seed(), offset, o);
                 });
#endif
  return out;
}

Tensor bernoulli(const Tensor& x) {
  OAR_ENFORCE(is_floating(x.dtype()), TypeMismatch,
              "bernoulli: argument 'x' must be a float tensor of probabilities, got ", dtype_name(x.dtype()));
  Tensor out = Tensor::make(x.shape(), x.dtype(), x.place());
#ifndef OAR_SHAPE_ONLY  // the draw; a program knows the type above and draws when it runs
  Generator& g = default_generator();
  const uint64_t offset = g.reserve(out.numel());
  ops::draw_into("random_bernoulli", out, {x}, {}, g.seed(), offset,
                 [&](const Tensor& o, const std::vector<Tensor>& in) { kernels::bernoulli(in[0], g.seed(), offset, o); });
#endif
  return out;
}

Tensor randperm(int64_t n, DType dtype) {
  OAR_ENFORCE_ARG(n >= 0, "randperm: argument 'n' must be >= 0, got ", n);
  Tensor out = Tensor::make({n}, dtype, expected_place());
#ifndef OAR_SHAPE_ONLY  // the draw; a program knows the type above and draws when it runs
  Generator& g = default_generator();
  const uint64_t offset = g.reserve(static_cast<uint64_t>(n));
  ops::draw_into(nullptr, out, {}, {}, g.seed(), offset,  // a permutation: drawn on the host
                 [&](const Tensor& o, const std::vector<Tensor>&) { kernels::randperm(g.seed(), offset, o); });
#endif
  return out;
}

Tensor uniform(const IntArray& shape, std::optional<DType> dtype, double min, double max, int64_t seed) {
  const Meta m = infer_meta::from_shape("uniform", shape, dtype, default_float_dtype());
  Tensor out = Tensor::make(m.shape, m.dtype, expected_place());
#ifndef OAR_SHAPE_ONLY  // the draw; a program knows the type above and draws when it runs
  Generator& g = default_generator();
  const uint64_t s = seed != 0 ? static_cast<uint64_t>(seed) : g.seed();
  const uint64_t offset = seed != 0 ? 0 : g.reserve(out.numel());
  ops::draw_into("random_uniform", out, {}, {{"low", ir::to_attribute(min)}, {"high", ir::to_attribute(max)}}, s,
                 offset, [&](const Tensor& o, const std::vector<Tensor>&) { kernels::uniform(min, max, s, offset, o); });
#endif
  return out;
}

Tensor gaussian(const IntArray& shape, double mean, double std, int64_t seed, std::optional<DType> dtype) {
  const Meta m = infer_meta::from_shape("gaussian", shape, dtype, default_float_dtype());
  OAR_ENFORCE_ARG(std >= 0, "gaussian: argument 'std' must be >= 0, got ", std);
  Tensor out = Tensor::make(m.shape, m.dtype, expected_place());
#ifndef OAR_SHAPE_ONLY  // the draw; a program knows the type above and draws when it runs
  Generator& g = default_generator();
  const uint64_t s = seed != 0 ? static_cast<uint64_t>(seed) : g.seed();
  const uint64_t offset = seed != 0 ? 0 : g.reserve(out.numel());
  ops::draw_into("random_normal", out, {}, {{"mean", ir::to_attribute(mean)}, {"std", ir::to_attribute(std)}}, s,
                 offset, [&](const Tensor& o, const std::vector<Tensor>&) { kernels::normal(mean, std, s, offset, o); });
#endif
  return out;
}

}  // namespace OAR_COMPOSITE_NAMESPACE
