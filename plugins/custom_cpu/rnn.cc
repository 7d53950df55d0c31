// rnn_layer: one recurrent layer in one direction (Elman RNN tanh/relu, LSTM optionally
// projected, GRU), forward.
// Contract: see kernels.h. A port of oar/kernels/cpu/rnn.cc with Paddle's gate order and
// formulas: x [T, B, I] time-major; weight_ih [G H, I], weight_hh [G H, P], bias_ih/bias_hh
// [G H] (optional), h0 [B, P], c0 [B, H] (LSTM), sequence_length [B] (optional: step t of row b
// is valid when t < length[b]; an invalid step keeps the state and writes zeros to out),
// weight_ho [H, P] (projected LSTM); mode "RNN_TANH", "RNN_RELU", "LSTM" or "GRU"; is_reverse
// walks t from T - 1 down. Outputs out [T, B, P], last_h [B, P], last_c [B, H] (LSTM, else
// [0]) and reserve [T, B, R] laid out as the host's (oar/ops/infer_meta/rnn.cc), all
// contiguous. Inputs may be any strided views (read into contiguous buffers on the stream).
// The gradient is rnn_grad.cc's rnn_layer_grad kernel (called by the rnn_layer_grad composite).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {
namespace {

enum class Mode { Tanh, Relu, Lstm, Gru };

template <typename T> T sigmoid(T v) { return T(1) / (T(1) + std::exp(-v)); }

// C[M, N] = A[M, K] @ B^T (B [N, K]) (+ bias[N] per row when given).
template <typename T>
void matmul_bt(int64_t M, int64_t N, int64_t K, const T* A, const T* B, const T* bias, T* C) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      T acc = T(0);
      for (int64_t k = 0; k < K; ++k) acc += A[i * K + k] * B[j * K + k];
      C[i * N + j] = bias ? acc + bias[j] : acc;
    }
}

}  // namespace

// rnn_layer: x, weight_ih, weight_hh, bias_ih?, bias_hh?, h0, c0?, sequence_length?, weight_ho?;
// mode, is_reverse. Outputs out, last_h, last_c, reserve.
OarStatus rnn_layer_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x"), wih = input(ctx, 1, "weight_ih"), whh = input(ctx, 2, "weight_hh");
    const std::optional<TensorDesc> bih = optional_input(ctx, 3, "bias_ih"), bhh = optional_input(ctx, 4, "bias_hh");
    const TensorDesc h0 = input(ctx, 5, "h0");
    const std::optional<TensorDesc> c0 = optional_input(ctx, 6, "c0"), lens = optional_input(ctx, 7, "sequence_length"),
                                    who = optional_input(ctx, 8, "weight_ho");
    const TensorDesc out = output(ctx, 0), last_h = output(ctx, 1), last_c = output(ctx, 2), reserve = output(ctx, 3);
    const OarAttr* ma = find_attr(ctx, "mode");
    const std::string ms = ma != nullptr && ma->kind == OAR_ATTR_STRING && ma->s != nullptr ? ma->s : "";
    Mode mode;
    if (ms == "RNN_TANH") mode = Mode::Tanh;
    else if (ms == "RNN_RELU") mode = Mode::Relu;
    else if (ms == "LSTM") mode = Mode::Lstm;
    else if (ms == "GRU") mode = Mode::Gru;
    else fail("mode must be RNN_TANH, RNN_RELU, LSTM or GRU, got '%s'", ms.c_str());
    const bool reverse = bool_attr(ctx, "is_reverse", false);
    if (x.ndim() != 3 || wih.ndim() != 2 || whh.ndim() != 2) fail("x must be [T, B, I], the weights 2-d");
    const int64_t T_ = x.shape[0], B = x.shape[1], I = x.shape[2];
    const int64_t G = mode == Mode::Lstm ? 4 : mode == Mode::Gru ? 3 : 1;
    const int64_t GH = wih.shape[0], H = GH / G, P = whh.shape[1];
    const bool projected = who.has_value();
    const int64_t R = mode == Mode::Lstm ? P + 6 * H + (projected ? H : 0) : mode == Mode::Gru ? 5 * H : P;
    if (GH % G != 0 || wih.shape[1] != I || whh.shape[0] != GH || (!projected && P != H) ||
        (mode == Mode::Lstm && !c0) || (projected && (mode != Mode::Lstm || who->shape != std::vector<int64_t>{H, P})))
      fail("the weights do not fit x %s in mode %s", shape_str(x.shape).c_str(), ms.c_str());
    for (const TensorDesc* t : {&wih, &whh, &h0, &out, &last_h, &last_c, &reserve}) expect_dtype(*t, x.dtype, "tensor");
    for (const auto* t : {&bih, &bhh, &c0, &who})
      if (*t) expect_dtype(**t, x.dtype, "tensor");
    if (lens && lens->dtype != OAR_INT32 && lens->dtype != OAR_INT64) fail("sequence_length must be int32 or int64");
    expect_shape(h0, {B, P}, "h0");
    expect_shape(out, {T_, B, P}, "out");
    expect_shape(last_h, {B, P}, "last_h");
    expect_shape(reserve, {T_, B, R}, "reserve");
    if (mode == Mode::Lstm) expect_shape(last_c, {B, H}, "last_c");
    for (const TensorDesc* t : {&out, &last_h, &last_c, &reserve}) expect_contiguous(*t, "out");
    const bool l64 = lens && lens->dtype == OAR_INT64;
    const std::optional<TensorDesc> lens_i64 = l64 ? lens : std::nullopt, lens_i32 = l64 ? std::nullopt : lens;
    const Reader<int64_t> len64(lens_i64);
    const Reader<int32_t> len32(lens_i32);
    auto run = [&](auto tag) {
      using T = decltype(tag);
      const Reader<T> rx(x), rwih(wih), rwhh(whh), rbih(bih), rbhh(bhh), rh0(h0), rc0(c0), rwho(who);
      T* outp = out.as<T>();
      T* lh = last_h.as<T>();
      T* lc = last_c.as<T>();
      T* res = reserve.as<T>();
      launch(ctx, [=] {
        const std::vector<T> xv = rx.read(), wi = rwih.read(), wh = rwhh.read(), bi = rbih.read(), bh = rbhh.read(),
                             wo = rwho.read();
        std::vector<int64_t> len(static_cast<size_t>(B), T_);
        if (len64.data) len = len64.read();
        if (len32.data) {
          const std::vector<int32_t> l = len32.read();
          len.assign(l.begin(), l.end());
        }
        std::fill(res, res + T_ * B * R, T(0));  // invalid steps keep zero gates
        // The input projection of every time step at once.
        std::vector<T> xw(static_cast<size_t>(T_ * B * GH));
        matmul_bt<T>(T_ * B, GH, I, xv.data(), wi.data(), bi.empty() ? nullptr : bi.data(), xw.data());
        std::vector<T> h = rh0.read(), c = mode == Mode::Lstm ? rc0.read() : std::vector<T>();
        std::vector<T> hw(static_cast<size_t>(B * GH)), hproj(projected ? static_cast<size_t>(B * P) : 0);
        for (int64_t s = 0; s < T_; ++s) {
          const int64_t t = reverse ? T_ - 1 - s : s;
          matmul_bt<T>(B, GH, P, h.data(), wh.data(), bh.empty() ? nullptr : bh.data(), hw.data());
          for (int64_t b = 0; b < B; ++b) {
            T* row = res + (t * B + b) * R;
            T* o = outp + (t * B + b) * P;
            T* hb = h.data() + b * P;
            std::memcpy(row, hb, sizeof(T) * P);
            const T* gx = xw.data() + (t * B + b) * GH;
            const T* gh = hw.data() + b * GH;
            if (t >= len[b]) {
              std::fill(o, o + P, T(0));
              if (mode == Mode::Lstm) std::memcpy(row + P, c.data() + b * H, sizeof(T) * H);
              continue;
            }
            switch (mode) {
              case Mode::Tanh:
                for (int64_t j = 0; j < H; ++j) o[j] = hb[j] = std::tanh(gx[j] + gh[j]);
                break;
              case Mode::Relu:
                for (int64_t j = 0; j < H; ++j) o[j] = hb[j] = std::max(gx[j] + gh[j], T(0));
                break;
              case Mode::Lstm: {
                T* cb = c.data() + b * H;
                T* cprev = row + P;
                T* gates = row + P + H;
                T* cnew = row + P + 5 * H;
                std::memcpy(cprev, cb, sizeof(T) * H);
                for (int64_t j = 0; j < H; ++j) {
                  const T i = sigmoid(gx[j] + gh[j]);
                  const T f = sigmoid(gx[H + j] + gh[H + j]);
                  const T g = std::tanh(gx[2 * H + j] + gh[2 * H + j]);
                  const T og = sigmoid(gx[3 * H + j] + gh[3 * H + j]);
                  gates[j] = i;
                  gates[H + j] = f;
                  gates[2 * H + j] = g;
                  gates[3 * H + j] = og;
                  cb[j] = cnew[j] = f * cb[j] + i * g;
                  const T hr = og * std::tanh(cnew[j]);
                  if (projected) row[P + 6 * H + j] = hr;
                  else o[j] = hb[j] = hr;
                }
                break;
              }
              case Mode::Gru: {
                T* gates = row + H;
                for (int64_t j = 0; j < H; ++j) {
                  const T r = sigmoid(gx[j] + gh[j]);
                  const T z = sigmoid(gx[H + j] + gh[H + j]);
                  const T hc = gh[2 * H + j];
                  const T n = std::tanh(gx[2 * H + j] + r * hc);
                  gates[j] = r;
                  gates[H + j] = z;
                  gates[2 * H + j] = n;
                  gates[3 * H + j] = hc;
                  o[j] = hb[j] = (hb[j] - n) * z + n;
                }
                break;
              }
            }
          }
          if (projected) {  // h = h_raw @ weight_ho, for the valid rows
            for (int64_t b = 0; b < B; ++b) {
              const T* hr = res + (t * B + b) * R + P + 6 * H;
              for (int64_t p = 0; p < P; ++p) {
                T acc = T(0);
                for (int64_t k = 0; k < H; ++k) acc += hr[k] * wo[k * P + p];
                hproj[b * P + p] = acc;
              }
            }
            for (int64_t b = 0; b < B; ++b) {
              if (t >= len[b]) continue;
              std::memcpy(h.data() + b * P, hproj.data() + b * P, sizeof(T) * P);
              std::memcpy(outp + (t * B + b) * P, hproj.data() + b * P, sizeof(T) * P);
            }
          }
        }
        std::memcpy(lh, h.data(), sizeof(T) * B * P);
        if (mode == Mode::Lstm) std::memcpy(lc, c.data(), sizeof(T) * B * H);
      });
    };
    if (x.dtype == OAR_FLOAT32) run(float{});
    else if (x.dtype == OAR_FLOAT64) run(double{});
    else unsupported("no rnn_layer kernel for %s (float32 and float64 have one)", dtype_name(x.dtype));
  });
}

}  // namespace oar_custom_cpu
