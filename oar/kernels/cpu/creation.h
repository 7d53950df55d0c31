// Creation kernels: ranges, identity, and counter-based random draws.
#pragma once
#include <optional>

#include "oar/core/scalar.h"
#include "oar/core/tensor.h"

namespace oar::kernels {

void arange(const Scalar& start, const Scalar& step, const Tensor& out);
// arange over the one value each of start, end and step holds (any shape of one element): a new
// tensor of max(0, ceil((end - start) / step)) values of dtype (int64 when all three are integer
// tensors, else the default float dtype).
Tensor arange_tensor(const Tensor& start, const Tensor& end, const Tensor& step,
                     std::optional<DType> dtype);
void linspace(const Scalar& start, const Scalar& stop, const Tensor& out);
// linspace between the one value each of start and stop holds.
void linspace_tensor(const Tensor& start, const Tensor& stop, const Tensor& out);
void eye(const Tensor& out);
// Random draws take (seed, offset) from the generator so results do not depend on threads.
void uniform(double low, double high, uint64_t seed, uint64_t offset, const Tensor& out);
void normal(double mean, double std, uint64_t seed, uint64_t offset, const Tensor& out);
void randint(int64_t low, int64_t high, uint64_t seed, uint64_t offset, const Tensor& out);
void bernoulli(const Tensor& p, uint64_t seed, uint64_t offset, const Tensor& out);
void randperm(uint64_t seed, uint64_t offset, const Tensor& out);

}  // namespace oar::kernels
