// Shape/dtype rules and argument checks for the fused recurrent layer (rnn_layer).
#pragma once
#include <string>
#include <vector>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

enum class RnnMode { Tanh, Relu, Lstm, Gru };

// "RNN_TANH", "RNN_RELU", "LSTM" or "GRU"; anything else is an InvalidArgument naming `op`.
RnnMode rnn_mode(const std::string& mode, const char* op);
// Gates per hidden unit: 1, 1, 4, 3.
int64_t rnn_gate_count(RnnMode mode);
// Width of one [t, b] row of the reserve tensor the backward reads (hidden H, state width P).
int64_t rnn_reserve_width(RnnMode mode, int64_t H, int64_t P, bool projected);

// out [T, B, P], last_h [B, P], last_c [B, H] (LSTM; [0] otherwise), reserve [T, B, R].
std::vector<Meta> rnn_layer(const char* op, const Tensor& x, const Tensor& weight_ih,
                            const Tensor& weight_hh, const Tensor& bias_ih,
                            const Tensor& bias_hh, const Tensor& h0, const Tensor& c0,
                            const Tensor& sequence_length, const Tensor& weight_ho,
                            const std::string& mode, bool is_reverse);

}  // namespace oar::infer_meta
