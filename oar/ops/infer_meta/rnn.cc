#include "oar/ops/infer_meta/rnn.h"


namespace oar::infer_meta {

RnnMode rnn_mode(const std::string& mode, const char* op) {
  if (mode == "RNN_TANH") return RnnMode::Tanh;
  if (mode == "RNN_RELU") return RnnMode::Relu;
  if (mode == "LSTM") return RnnMode::Lstm;
  if (mode == "GRU") return RnnMode::Gru;
  OAR_THROW(InvalidArgument, op, ": argument 'mode' must be one of 'RNN_TANH', 'RNN_RELU', ",
            "'LSTM', 'GRU', got '", mode, "'");
}

int64_t rnn_gate_count(RnnMode mode) {
  return mode == RnnMode::Lstm ? 4 : mode == RnnMode::Gru ? 3 : 1;
}

// Reserve row layouts ([t, b] rows, time-indexed):
//   RNN : h_prev[P]
//   LSTM: h_prev[P] c_prev[H] i f g o[4H] c_new[H] (h_raw[H] when projected: o * tanh(c_new))
//   GRU : h_prev[H] r z n[3H] hc[H] (hc: the hidden part of the candidate, before the reset gate)
int64_t rnn_reserve_width(RnnMode mode, int64_t H, int64_t P, bool projected) {
  switch (mode) {
    case RnnMode::Lstm: return P + 6 * H + (projected ? H : 0);
    case RnnMode::Gru: return 5 * H;
    default: return P;
  }
}

namespace {
// t must be defined, have x's dtype and exactly `shape`.
void check_tensor(const char* op, const char* arg, const Tensor& t, const Tensor& x,
                  const Shape& shape) {
  OAR_ENFORCE_ARG(t.defined(), op, ": argument '", arg, "' is required");
  OAR_ENFORCE(t.dtype() == x.dtype(), TypeMismatch, op, ": argument '", arg,
              "' must have x's dtype ", dtype_name(x.dtype()), ", got ", dtype_name(t.dtype()));
  OAR_ENFORCE_ARG(t.shape() == shape, op, ": argument '", arg, "' expected shape ",
                  shape_str(shape), ", got ", shape_str(t.shape()));
}
}  // namespace

std::vector<Meta> rnn_layer(const char* op, const Tensor& x, const Tensor& weight_ih,
                            const Tensor& weight_hh, const Tensor& bias_ih,
                            const Tensor& bias_hh, const Tensor& h0, const Tensor& c0,
                            const Tensor& sequence_length, const Tensor& weight_ho,
                            const std::string& mode, bool) {
  const RnnMode m = rnn_mode(mode, op);
  check_float32_or_64(op, "x", x);
  OAR_ENFORCE_ARG(x.ndim() == 3, op, ": argument 'x' must be 3-D [time, batch, input_size], got shape ",
                  shape_str(x.shape()));
  OAR_ENFORCE_ARG(weight_ih.defined() && weight_ih.ndim() == 2, op,
                  ": argument 'weight_ih' must be 2-D [gates * hidden_size, input_size]");
  const int64_t T = x.shape()[0], B = x.shape()[1], I = x.shape()[2];
  const int64_t G = rnn_gate_count(m);
  const int64_t GH = weight_ih.shape()[0];
  OAR_ENFORCE_ARG(GH > 0 && GH % G == 0, op, ": argument 'weight_ih' has ", GH,
                  " rows, expected a positive multiple of ", G, " for mode ", mode);
  const int64_t H = GH / G;
  check_tensor(op, "weight_ih", weight_ih, x, {GH, I});
  OAR_ENFORCE_ARG(weight_hh.defined() && weight_hh.ndim() == 2, op,
                  ": argument 'weight_hh' must be 2-D [gates * hidden_size, state_size]");
  const int64_t P = weight_hh.shape()[1];
  check_tensor(op, "weight_hh", weight_hh, x, {GH, P});
  if (weight_ho.defined()) {
    OAR_ENFORCE_ARG(m == RnnMode::Lstm, op, ": argument 'weight_ho' is only for LSTM");
    check_tensor(op, "weight_ho", weight_ho, x, {H, P});
  } else {
    OAR_ENFORCE_ARG(P == H, op, ": argument 'weight_hh' expected shape ", shape_str({GH, H}),
                    ", got ", shape_str(weight_hh.shape()));
  }
  if (bias_ih.defined()) check_tensor(op, "bias_ih", bias_ih, x, {GH});
  if (bias_hh.defined()) check_tensor(op, "bias_hh", bias_hh, x, {GH});
  check_tensor(op, "h0", h0, x, {B, P});
  if (m == RnnMode::Lstm) check_tensor(op, "c0", c0, x, {B, H});
  if (sequence_length.defined()) {
    OAR_ENFORCE(sequence_length.dtype() == DType::Int32 || sequence_length.dtype() == DType::Int64,
                TypeMismatch, op, ": argument 'sequence_length' must be int32 or int64, got ",
                dtype_name(sequence_length.dtype()));
    OAR_ENFORCE_ARG(sequence_length.shape() == Shape{B}, op,
                    ": argument 'sequence_length' expected shape [", B, "], got ",
                    shape_str(sequence_length.shape()));
  }
  const int64_t R = rnn_reserve_width(m, H, P, weight_ho.defined());
  const DType dt = x.dtype();
  return {{{T, B, P}, dt},
          {{B, P}, dt},
          {m == RnnMode::Lstm ? Shape{B, H} : Shape{0}, dt},
          {{T, B, R}, dt}};
}

}  // namespace oar::infer_meta
