#include "oar/kernels/cpu/check_values.h"

#include <algorithm>

#include "oar/core/error.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/shape.h"

namespace oar::kernels {

void check_values(const Tensor& x, const Tensor& ok, const std::string& message, const Tensor& out) {
  OAR_ENFORCE(ok.dtype() == DType::Bool, TypeMismatch, "check_values: argument 'ok' must be a bool tensor, ",
              "but received dtype ", dtype_name(ok.dtype()), ".");
  const Tensor flags = as_contiguous(ok);
  const bool* p = flags.data<bool>();
  for (int64_t i = 0, n = flags.numel(); i < n; ++i)
    OAR_ENFORCE(p[i], InvalidArgument, message);
  copy(x, out);
}

Tensor keep_if_all(const Tensor& x, const Tensor& ok) {
  OAR_ENFORCE(ok.dtype() == DType::Bool, TypeMismatch, "keep_if_all: argument 'ok' must be a bool tensor, ",
              "but received dtype ", dtype_name(ok.dtype()), ".");
  const Tensor flags = as_contiguous(ok);
  const bool* p = flags.data<bool>();
  const bool all = std::all_of(p, p + flags.numel(), [](bool b) { return b; });
  Tensor out = Tensor::make(all ? x.shape() : Shape{0}, x.dtype());
  if (all) copy(x, out);
  return out;
}

}  // namespace oar::kernels
