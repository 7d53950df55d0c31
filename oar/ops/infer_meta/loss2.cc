#include "oar/ops/infer_meta/loss2.h"

namespace oar::infer_meta {

namespace {

bool is_int(DType t) { return t == DType::Int32 || t == DType::Int64; }

}  // namespace

std::vector<Meta> ctc_loss(const char*, const Tensor& logits, const Tensor& labels,
                           const Tensor& input_lengths, const Tensor& label_lengths,
                           int64_t blank, bool) {
  const char* op = "ctc_loss";
  OAR_ENFORCE(logits.dtype() == DType::Float32 || logits.dtype() == DType::Float64, TypeMismatch,
              op, ": argument 'log_probs' must be a float32 or float64 tensor, got ",
              dtype_name(logits.dtype()));
  OAR_ENFORCE_ARG(logits.ndim() == 3, op, ": argument 'log_probs' must be 3-D [T, N, C], got shape ",
                  shape_str(logits.shape()));
  const int64_t N = logits.shape()[1], C = logits.shape()[2];
  OAR_ENFORCE(is_int(labels.dtype()), TypeMismatch, op,
              ": argument 'labels' must be an int32 or int64 tensor, got ", dtype_name(labels.dtype()));
  OAR_ENFORCE_ARG(labels.ndim() == 2 && labels.shape()[0] == N, op,
                  ": argument 'labels' must be 2-D [N, max_label_length] with N = ", N,
                  ", got shape ", shape_str(labels.shape()));
  OAR_ENFORCE(is_int(input_lengths.dtype()), TypeMismatch, op,
              ": argument 'input_lengths' must be an int32 or int64 tensor, got ",
              dtype_name(input_lengths.dtype()));
  OAR_ENFORCE(is_int(label_lengths.dtype()), TypeMismatch, op,
              ": argument 'label_lengths' must be an int32 or int64 tensor, got ",
              dtype_name(label_lengths.dtype()));
  OAR_ENFORCE_ARG(input_lengths.ndim() == 1 && input_lengths.shape()[0] == N, op,
                  ": argument 'input_lengths' expected shape [", N, "], got ",
                  shape_str(input_lengths.shape()));
  OAR_ENFORCE_ARG(label_lengths.ndim() == 1 && label_lengths.shape()[0] == N, op,
                  ": argument 'label_lengths' expected shape [", N, "], got ",
                  shape_str(label_lengths.shape()));
  OAR_ENFORCE_ARG(blank >= 0 && blank < C, op, ": argument 'blank' must be in [0, ", C,
                  "), got ", blank);
  return {{{N}, logits.dtype()}, {logits.shape(), logits.dtype()}};
}

}  // namespace oar::infer_meta
