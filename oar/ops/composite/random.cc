// Composite ops of the random family (oar/ops/specs/random.yaml): the rejection samplers, drawn
// through ops::draw_into (a device backend's kernel, or a host draw copied over).
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include "oar/ops/composite/composite.h"

#include "oar/ops/infer_meta/elementwise.h"
#ifndef OAR_SHAPE_ONLY  // used by the eager-only parts below
#include "oar/core/random.h"
#include "oar/kernels/cpu/random_samplers.h"
#include "oar/ops/device_random.h"
#endif

namespace OAR_COMPOSITE_NAMESPACE {

namespace {
void check_float(const char* op, const char* arg, const Tensor& t) {
  OAR_ENFORCE(is_floating(t.dtype()), TypeMismatch, op, ": argument '", arg, "' must be a float tensor, got ",
              dtype_name(t.dtype()));
}
}  // namespace

Tensor standard_gamma(const Tensor& x) {
  check_float("standard_gamma", "x", x);
  Tensor out = Tensor::make(x.shape(), x.dtype(), x.place());
#ifndef OAR_SHAPE_ONLY  // the draw; a program knows the type above and draws when it runs
  Generator& g = default_generator();
  const uint64_t offset = g.reserve(out.numel());
  ops::draw_into("random_standard_gamma", out, {x}, {}, g.seed(), offset,
                 [&](const Tensor& o, const std::vector<Tensor>& in) {
                   kernels::standard_gamma(in[0], g.seed(), offset, o);
                 });
#endif
  return out;
}

Tensor poisson(const Tensor& x) {
  check_float("poisson", "x", x);
  Tensor out = Tensor::make(x.shape(), x.dtype(), x.place());
#ifndef OAR_SHAPE_ONLY
  Generator& g = default_generator();
  const uint64_t offset = g.reserve(out.numel());
  ops::draw_into("random_poisson", out, {x}, {}, g.seed(), offset,
                 [&](const Tensor& o, const std::vector<Tensor>& in) { kernels::poisson(in[0], g.seed(), offset, o); });
#endif
  return out;
}

Tensor binomial(const Tensor& count, const Tensor& prob) {
  OAR_ENFORCE(is_integral(count.dtype(), false) || is_floating(count.dtype()), TypeMismatch,
              "binomial: argument 'count' must be an integer or float tensor, got ", dtype_name(count.dtype()));
  check_float("binomial", "prob", prob);
  const Shape shape = infer_meta::broadcast("binomial", count, prob).shape;
  // The kernel reads int64 counts and float64 probabilities of the result's shape.
  const Tensor n = expand(count.dtype() == DType::Int64 ? count : cast(count, DType::Int64), IntArray(shape));
  const Tensor p = expand(prob.dtype() == DType::Float64 ? prob : cast(prob, DType::Float64), IntArray(shape));
  Tensor out = Tensor::make(shape, DType::Int64, count.place());
#ifndef OAR_SHAPE_ONLY
  Generator& g = default_generator();
  const uint64_t offset = g.reserve(out.numel());
  ops::draw_into("random_binomial", out, {n, p}, {}, g.seed(), offset,
                 [&](const Tensor& o, const std::vector<Tensor>& in) {
                   kernels::binomial(in[0], in[1], g.seed(), offset, o);
                 });
#endif
  return out;
}

}  // namespace OAR_COMPOSITE_NAMESPACE
