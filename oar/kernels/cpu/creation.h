// Creation kernels: ranges, identity, and counter-based random draws.
#pragma once
#include "oar/core/scalar.h"
#include "oar/core/tensor.h"

namespace oar::kernels {

void arange(const Scalar& start, const Scalar& step, const Tensor& out);
void linspace(const Scalar& start, const Scalar& stop, const Tensor& out);
void eye(const Tensor& out);
// Random draws take (seed, offset) from the generator so results do not depend on threads.
void uniform(double low, double high, uint64_t seed, uint64_t offset, const Tensor& out);
void normal(double mean, double std, uint64_t seed, uint64_t offset, const Tensor& out);
void randint(int64_t low, int64_t high, uint64_t seed, uint64_t offset, const Tensor& out);
void bernoulli(const Tensor& p, uint64_t seed, uint64_t offset, const Tensor& out);
void randperm(uint64_t seed, uint64_t offset, const Tensor& out);

}  // namespace oar::kernels
