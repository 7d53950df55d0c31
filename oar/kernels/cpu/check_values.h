// A check on a tensor's values that runs when the op runs: eager code checks at once, a static
// program when it is executed (building it reads no data). Python layers use it for argument
// checks such as "variance must not be negative".
#pragma once
#include <string>

#include "oar/core/tensor.h"

namespace oar::kernels {

// out = x when every element of the bool tensor `ok` is true; otherwise raises InvalidArgument
// (Python ValueError) with `message`.
void check_values(const Tensor& x, const Tensor& ok, const std::string& message, const Tensor& out);
// A copy of x when every element of the bool tensor `ok` is true, else an empty [0] tensor of
// x's dtype (lstsq's residuals, present only at full rank).
Tensor keep_if_all(const Tensor& x, const Tensor& ok);

}  // namespace oar::kernels
