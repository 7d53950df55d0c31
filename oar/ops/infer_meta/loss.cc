#include "oar/ops/infer_meta/loss.h"

namespace oar::infer_meta {

std::vector<Meta> hard_cross_entropy(const char*, const Tensor& input, const Tensor& label,
                                     const Tensor& weight, int64_t, int64_t input_kind) {
  OAR_ENFORCE(input.dtype() == DType::Float32 || input.dtype() == DType::Float64, TypeMismatch,
              "cross_entropy: argument 'input' must be a float32 or float64 tensor, got ",
              dtype_name(input.dtype()));
  OAR_ENFORCE(label.dtype() == DType::Int32 || label.dtype() == DType::Int64, TypeMismatch,
              "cross_entropy: argument 'label' must be an int32 or int64 tensor of class "
              "indices, got ", dtype_name(label.dtype()));
  OAR_ENFORCE_ARG(input.ndim() == 2, "cross_entropy: input must be 2-D [N, C] here, got shape ",
                  shape_str(input.shape()));
  const int64_t M = input.shape()[0], C = input.shape()[1];
  OAR_ENFORCE_ARG(label.ndim() == 1 && label.shape()[0] == M, "cross_entropy: argument 'label' expected shape [",
                  M, "], got ", shape_str(label.shape()));
  OAR_ENFORCE_ARG(input_kind >= 0 && input_kind <= 2, "cross_entropy: input_kind must be 0, 1 or 2, got ",
                  input_kind);
  if (weight.defined()) {
    OAR_ENFORCE(weight.dtype() == input.dtype(), TypeMismatch,
                "cross_entropy: argument 'weight' must have input's dtype ",
                dtype_name(input.dtype()), ", got ", dtype_name(weight.dtype()));
    OAR_ENFORCE_ARG(weight.ndim() == 1 && weight.numel() == C, "cross_entropy: argument 'weight' expected shape [",
                    C, "], got ", shape_str(weight.shape()));
  }
  return {{{M}, input.dtype()}, {{M}, input.dtype()}, {{M}, input.dtype()}};
}

}  // namespace oar::infer_meta
