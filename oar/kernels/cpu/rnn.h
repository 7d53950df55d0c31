// Fused recurrent layers (one layer, one direction): Elman RNN (tanh/relu), LSTM (optionally
// projected) and GRU with Paddle's gate order and formulas, forward and backward through time.
// The input projection of all time steps is one GEMM; the time loop, the recurrent GEMM and the
// fused gate arithmetic run here, float32/float64.
#pragma once
#include <cstdint>
#include <string>

#include "oar/core/tensor.h"
#include "oar/ops/infer_meta/rnn.h"

namespace oar::kernels {

using infer_meta::RnnMode;
using infer_meta::rnn_gate_count;
using infer_meta::rnn_mode;
using infer_meta::rnn_reserve_width;

// x: [T, B, I] time-major. weight_ih [G*H, I], weight_hh [G*H, P], bias_ih/bias_hh [G*H] (may
// be undefined), h0 [B, P], c0 [B, H] (LSTM only), sequence_length [B] int32/int64 (may be
// undefined: every step valid), weight_ho [H, P] (projected LSTM, else undefined, P == H).
// Step t of batch row b is valid when t < sequence_length[b]: an invalid step leaves the state
// unchanged and writes zeros to out. is_reverse walks t from T-1 down to 0.
// Outputs: out [T, B, P], last_h [B, P], last_c [B, H] (LSTM; [0] otherwise), reserve
// [T, B, rnn_reserve_width] (activated gates and previous states, for the backward).
void rnn_layer(const Tensor& x, const Tensor& weight_ih, const Tensor& weight_hh,
               const Tensor& bias_ih, const Tensor& bias_hh, const Tensor& h0, const Tensor& c0,
               const Tensor& sequence_length, const Tensor& weight_ho, RnnMode mode,
               bool is_reverse, const Tensor& out, const Tensor& last_h, const Tensor& last_c,
               const Tensor& reserve);

// Backward through time. grad_out [T, B, P], grad_h [B, P], grad_c [B, H] (LSTM; may be
// undefined = zeros). Writes every defined gradient output (shapes of the matching inputs).
void rnn_layer_grad(const Tensor& x, const Tensor& weight_ih, const Tensor& weight_hh,
                    const Tensor& bias_ih, const Tensor& bias_hh, const Tensor& sequence_length,
                    const Tensor& weight_ho, RnnMode mode, bool is_reverse, const Tensor& out,
                    const Tensor& reserve, const Tensor& grad_out, const Tensor& grad_h,
                    const Tensor& grad_c, const Tensor& dx, const Tensor& dweight_ih,
                    const Tensor& dweight_hh, const Tensor& dbias_ih, const Tensor& dbias_hh,
                    const Tensor& dh0, const Tensor& dc0, const Tensor& dweight_ho);

}  // namespace oar::kernels
