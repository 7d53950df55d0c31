// Samplers that need a varying number of random numbers per element (rejection methods):
// gamma, Poisson and binomial draws (paddle.standard_gamma, poisson, binomial). Element i reads
// its own Philox stream (counter offset + i, subsequence 0, 1, 2, ...), so a draw is the same
// whatever the thread count. Invalid parameters (negative, NaN, a probability outside [0, 1])
// raise InvalidArgument naming the op and the value.
#pragma once
#include <cstdint>

#include "oar/core/tensor.h"

namespace oar::kernels {

// out (x's floating dtype) ~ Gamma(x, 1): Marsaglia and Tsang's method (x < 1 boosted by U^(1/x)).
void standard_gamma(const Tensor& x, uint64_t seed, uint64_t offset, const Tensor& out);
// out (x's floating dtype) ~ Poisson(x): multiplication of uniforms below rate 10, Hoermann's
// transformed rejection (PTRS) above.
void poisson(const Tensor& x, uint64_t seed, uint64_t offset, const Tensor& out);
// out (int64) ~ Binomial(count, prob), count (int64) and prob (float64) of out's shape: waiting times below mean 10,
// Hoermann's BTRS above (on min(p, 1 - p), mirrored).
void binomial(const Tensor& count, const Tensor& prob, uint64_t seed, uint64_t offset, const Tensor& out);

}  // namespace oar::kernels
