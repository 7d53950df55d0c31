// Common nn.functional kernels: embedding lookup and its gradient, one_hot, the dropout mask,
// and padding (constant, reflect, replicate, circular) with its gradient.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "oar/core/tensor.h"

namespace oar::kernels {

// out[..., :] = weight[ids[...], :]; rows equal to padding_idx (>= 0; -1: none) are zeros.
// Ids outside [0, rows) raise ValueError (as Paddle).
void embedding(const Tensor& ids, const Tensor& weight, int64_t padding_idx, const Tensor& out);
// d weight [rows, D] = scatter-add of grad rows by id (padding_idx rows stay zero).
void embedding_grad(const Tensor& ids, const Tensor& grad, int64_t padding_idx,
                    const Tensor& dweight);
// out[..., c] = (x[...] == c) as out's dtype; x outside [0, num_classes) raises ValueError.
void one_hot(const Tensor& x, const Tensor& out);
// mask[i] = `keep_value` with probability 1 - p, else 0 (Philox counters offset .. offset+n).
void dropout_mask(double p, double keep_value, uint64_t seed, uint64_t offset, const Tensor& mask);

// Padding: pads[2*d], pads[2*d+1] are the amounts before and after dim d of x.
enum class PadMode { Constant, Reflect, Replicate, Circular };
PadMode pad_mode(const std::string& mode, const char* op);
void pad(const Tensor& x, const std::vector<int64_t>& pads, PadMode mode, double value,
         const Tensor& out);
// d x for d out = grad (the sum of the grads of the output positions each input feeds).
void pad_grad(const Tensor& grad, const std::vector<int64_t>& pads, PadMode mode,
              const Tensor& dx);

}  // namespace oar::kernels
