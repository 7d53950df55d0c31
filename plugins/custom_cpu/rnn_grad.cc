// rnn_layer_grad: backward through time of one recurrent layer (rnn.cc's rnn_layer).
// Contract: see kernels.h. A port of the backward of oar/kernels/cpu/rnn.cc (kernels::rnn_layer_grad),
// with the same arguments: inputs x [T, B, I], weight_ih [G H, I], weight_hh [G H, P], bias_ih?,
// bias_hh? (unused: only their gradients' shapes matter), sequence_length? [B] int32/int64,
// weight_ho? [H, P] (projected LSTM), out [T, B, P] and reserve [T, B, R] (the forward's),
// grad_out? [T, B, P], grad_h? [B, P], grad_c? [B, H] (absent: zeros); attrs mode, is_reverse.
// Outputs dx, dweight_ih, dweight_hh, dbias_ih, dbias_hh, dh0, dc0, dweight_ho, each absent
// (ndim -1) when not wanted, else contiguous with the shape of its input. Inputs may be any
// strided views (read into contiguous buffers on the stream). float32 and float64.
#include <algorithm>
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

enum class GradMode { Tanh, Relu, Lstm, Gru };

// C[M, N] = op(A) @ op(B), row-major with leading dimensions (op(A) [M, K], op(B) [K, N]):
// plain loops, summing over k in order as the host's reference GEMM would.
template <typename T>
void gemm_ref(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb,
              T* C, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      T acc = T(0);
      for (int64_t k = 0; k < K; ++k)
        acc += (ta ? A[k * lda + i] : A[i * lda + k]) * (tb ? B[j * ldb + k] : B[k * ldb + j]);
      C[i * ldc + j] = acc;
    }
}

std::optional<TensorDesc> optional_output(const OarKernelContext* ctx, int i) {
  if (i >= ctx->num_outputs || ctx->outputs == nullptr) fail("expects 8 outputs; got %d", ctx->num_outputs);
  if (ctx->outputs[i].ndim < 0) return std::nullopt;
  return describe(ctx, ctx->outputs[i], "gradient");
}

}  // namespace

// rnn_layer_grad: x, weight_ih, weight_hh, bias_ih?, bias_hh?, sequence_length?, weight_ho?, out, reserve,
// grad_out?, grad_h?, grad_c?; mode, is_reverse. Outputs dx?, dweight_ih?, dweight_hh?, dbias_ih?, dbias_hh?,
// dh0?, dc0?, dweight_ho?.
OarStatus rnn_layer_grad_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x"), wih = input(ctx, 1, "weight_ih"), whh = input(ctx, 2, "weight_hh");
    const std::optional<TensorDesc> lens = optional_input(ctx, 5, "sequence_length"),
                                    who = optional_input(ctx, 6, "weight_ho");
    const TensorDesc out = input(ctx, 7, "out"), reserve = input(ctx, 8, "reserve");
    const std::optional<TensorDesc> gout = optional_input(ctx, 9, "grad_out"), gh = optional_input(ctx, 10, "grad_h"),
                                    gc = optional_input(ctx, 11, "grad_c");
    std::optional<TensorDesc> grads[8];
    for (int i = 0; i < 8; ++i) grads[i] = optional_output(ctx, i);
    const OarAttr* ma = find_attr(ctx, "mode");
    const std::string ms = ma != nullptr && ma->kind == OAR_ATTR_STRING && ma->s != nullptr ? ma->s : "";
    GradMode mode;
    if (ms == "RNN_TANH") mode = GradMode::Tanh;
    else if (ms == "RNN_RELU") mode = GradMode::Relu;
    else if (ms == "LSTM") mode = GradMode::Lstm;
    else if (ms == "GRU") mode = GradMode::Gru;
    else fail("mode must be RNN_TANH, RNN_RELU, LSTM or GRU, got '%s'", ms.c_str());
    const bool reverse = bool_attr(ctx, "is_reverse", false);
    if (x.ndim() != 3 || wih.ndim() != 2 || whh.ndim() != 2) fail("x must be [T, B, I], the weights 2-d");
    const int64_t T_ = x.shape[0], B = x.shape[1], I = x.shape[2];
    const int64_t G = mode == GradMode::Lstm ? 4 : mode == GradMode::Gru ? 3 : 1;
    const int64_t GH = wih.shape[0], H = GH / G, P = whh.shape[1];
    const bool projected = who.has_value();
    const int64_t R = mode == GradMode::Lstm ? P + 6 * H + (projected ? H : 0) : mode == GradMode::Gru ? 5 * H : P;
    if (GH % G != 0 || wih.shape[1] != I || whh.shape[0] != GH || (!projected && P != H) ||
        (projected && (mode != GradMode::Lstm || who->shape != std::vector<int64_t>{H, P})))
      fail("the weights do not fit x %s in mode %s", shape_str(x.shape).c_str(), ms.c_str());
    for (const TensorDesc* t : {&wih, &whh, &out, &reserve}) expect_dtype(*t, x.dtype, "tensor");
    for (const auto* t : {&who, &gout, &gh, &gc})
      if (*t) expect_dtype(**t, x.dtype, "tensor");
    for (const auto& g : grads)
      if (g) expect_dtype(*g, x.dtype, "gradient");
    if (lens && lens->dtype != OAR_INT32 && lens->dtype != OAR_INT64) fail("sequence_length must be int32 or int64");
    if (lens) expect_shape(*lens, {B}, "sequence_length");
    expect_shape(out, {T_, B, P}, "out");
    expect_shape(reserve, {T_, B, R}, "reserve");
    if (gout) expect_shape(*gout, {T_, B, P}, "grad_out");
    if (gh) expect_shape(*gh, {B, P}, "grad_h");
    if (gc && mode == GradMode::Lstm) expect_shape(*gc, {B, H}, "grad_c");
    const std::vector<int64_t> want[8] = {x.shape, wih.shape, whh.shape, {GH}, {GH}, {B, P}, {B, H}, {H, P}};
    const char* const names[8] = {"dx", "dweight_ih", "dweight_hh", "dbias_ih", "dbias_hh", "dh0", "dc0", "dweight_ho"};
    for (int i = 0; i < 8; ++i)
      if (grads[i]) {
        expect_shape(*grads[i], want[i], names[i]);
        expect_contiguous(*grads[i], names[i]);
      }
    const bool l64 = lens && lens->dtype == OAR_INT64;
    const std::optional<TensorDesc> lens_i64 = l64 ? lens : std::nullopt, lens_i32 = l64 ? std::nullopt : lens;
    const Reader<int64_t> len64(lens_i64);
    const Reader<int32_t> len32(lens_i32);
    auto run = [&](auto tag) {
      using T = decltype(tag);
      const Reader<T> rx(x), rwih(wih), rwhh(whh), rwho(who), rout(out), rres(reserve), rgo(gout), rgh(gh),
          rgc(mode == GradMode::Lstm ? gc : std::nullopt);
      T* dst[8];
      for (int i = 0; i < 8; ++i) dst[i] = grads[i] ? grads[i]->as<T>() : nullptr;
      if (mode != GradMode::Lstm) dst[6] = nullptr;
      if (!projected) dst[7] = nullptr;
      launch(ctx, [=] {
        const std::vector<T> xp = rx.read(), wi = rwih.read(), wh = rwhh.read(), wo = rwho.read(), outp = rout.read(),
                             res = rres.read(), go = rgo.read(), ghv = rgh.read(), gcv = rgc.read();
        std::vector<int64_t> len(static_cast<size_t>(B), T_);
        if (len64.data) len = len64.read();
        if (len32.data) {
          const std::vector<int32_t> l = len32.read();
          len.assign(l.begin(), l.end());
        }
        const bool gru = mode == GradMode::Gru, lstm = mode == GradMode::Lstm;
        // Pre-activation gate gradients of every step, input side and hidden side (they differ
        // only for GRU, where the reset gate scales the hidden part of the candidate).
        std::vector<T> dgx(static_cast<size_t>(T_ * B * GH), T(0));
        std::vector<T> dgh_store(gru ? static_cast<size_t>(T_ * B * GH) : 0, T(0));
        T* dgh_all = gru ? dgh_store.data() : dgx.data();
        std::vector<T> dh(static_cast<size_t>(B * P), T(0)), dc(lstm ? static_cast<size_t>(B * H) : 0, T(0));
        if (!ghv.empty()) dh = ghv;
        if (!gcv.empty()) dc = gcv;
        // The gradient reaching each step's (projected) output h, for weight_ho's gradient.
        std::vector<T> dht(static_cast<size_t>(T_ * B * P), T(0));
        std::vector<T> dhraw(projected ? static_cast<size_t>(B * H) : 0), dhprev(static_cast<size_t>(B * P));
        std::vector<T> direct(gru ? static_cast<size_t>(B * H) : 0);
        for (int64_t s = T_ - 1; s >= 0; --s) {
          const int64_t t = reverse ? T_ - 1 - s : s;
          T* dht_t = dht.data() + t * B * P;
          for (int64_t b = 0; b < B; ++b) {
            if (t >= len[b]) continue;
            for (int64_t j = 0; j < P; ++j)
              dht_t[b * P + j] = dh[b * P + j] + (go.empty() ? T(0) : go[(t * B + b) * P + j]);
          }
          if (projected) gemm_ref<T>(false, true, B, H, P, dht_t, P, wo.data(), P, dhraw.data(), H);
          for (int64_t b = 0; b < B; ++b) {
            if (t >= len[b]) continue;
            const T* row = res.data() + (t * B + b) * R;
            T* gx = dgx.data() + (t * B + b) * GH;
            const T* dhb = dht_t + b * P;
            switch (mode) {
              case GradMode::Tanh: {
                const T* v = outp.data() + (t * B + b) * P;
                for (int64_t j = 0; j < H; ++j) gx[j] = dhb[j] * (T(1) - v[j] * v[j]);
                break;
              }
              case GradMode::Relu: {
                const T* v = outp.data() + (t * B + b) * P;
                for (int64_t j = 0; j < H; ++j) gx[j] = v[j] > T(0) ? dhb[j] : T(0);
                break;
              }
              case GradMode::Lstm: {
                const T* cprev = row + P;
                const T* gates = row + P + H;
                const T* cnew = row + P + 5 * H;
                const T* dhr = projected ? dhraw.data() + b * H : dhb;
                T* dcb = dc.data() + b * H;
                for (int64_t j = 0; j < H; ++j) {
                  const T i = gates[j], f = gates[H + j], g = gates[2 * H + j], og = gates[3 * H + j];
                  const T tc = std::tanh(cnew[j]);
                  const T dcell = dcb[j] + dhr[j] * og * (T(1) - tc * tc);
                  gx[j] = dcell * g * i * (T(1) - i);
                  gx[H + j] = dcell * cprev[j] * f * (T(1) - f);
                  gx[2 * H + j] = dcell * i * (T(1) - g * g);
                  gx[3 * H + j] = dhr[j] * tc * og * (T(1) - og);
                  dcb[j] = dcell * f;
                }
                break;
              }
              case GradMode::Gru: {
                const T* hprev = row;
                const T* gates = row + H;
                T* ghr = dgh_all + (t * B + b) * GH;
                for (int64_t j = 0; j < H; ++j) {
                  const T r = gates[j], z = gates[H + j], n = gates[2 * H + j], hc = gates[3 * H + j];
                  const T dn = dhb[j] * (T(1) - z) * (T(1) - n * n);
                  const T dz = dhb[j] * (hprev[j] - n) * z * (T(1) - z);
                  const T dr = dn * hc * r * (T(1) - r);
                  gx[j] = ghr[j] = dr;
                  gx[H + j] = ghr[H + j] = dz;
                  gx[2 * H + j] = dn;
                  ghr[2 * H + j] = dn * r;
                  direct[b * H + j] = dhb[j] * z;
                }
                break;
              }
            }
          }
          // To the previous state: through the recurrent weights for valid rows; an invalid row
          // carried its state unchanged, so its gradient passes through.
          gemm_ref<T>(false, false, B, P, GH, dgh_all + t * B * GH, GH, wh.data(), P, dhprev.data(), P);
          for (int64_t b = 0; b < B; ++b) {
            if (t >= len[b]) continue;
            for (int64_t j = 0; j < P; ++j) dh[b * P + j] = dhprev[b * P + j] + (gru ? direct[b * H + j] : T(0));
          }
        }
        const int64_t TB = T_ * B;
        if (dst[0]) gemm_ref<T>(false, false, TB, I, GH, dgx.data(), GH, wi.data(), I, dst[0], I);
        if (dst[1]) gemm_ref<T>(true, false, GH, I, TB, dgx.data(), GH, xp.data(), I, dst[1], I);
        if (dst[2]) gemm_ref<T>(true, false, GH, P, TB, dgh_all, GH, res.data(), R, dst[2], P);
        for (int k = 3; k < 5; ++k) {
          if (!dst[k]) continue;
          const T* m = k == 3 ? dgx.data() : dgh_all;
          std::fill(dst[k], dst[k] + GH, T(0));
          for (int64_t r = 0; r < TB; ++r)
            for (int64_t j = 0; j < GH; ++j) dst[k][j] += m[r * GH + j];
        }
        if (dst[5]) std::memcpy(dst[5], dh.data(), sizeof(T) * B * P);
        if (dst[6]) std::memcpy(dst[6], dc.data(), sizeof(T) * B * H);
        if (dst[7] && TB == 0) std::fill(dst[7], dst[7] + H * P, T(0));
        else if (dst[7]) gemm_ref<T>(true, false, H, P, TB, res.data() + P + 6 * H, R, dht.data(), P, dst[7], P);
      });
    };
    if (x.dtype == OAR_FLOAT32) run(float{});
    else if (x.dtype == OAR_FLOAT64) run(double{});
    else unsupported("no rnn_layer_grad kernel for %s (float32 and float64 have one)", dtype_name(x.dtype));
  });
}

}  // namespace oar_custom_cpu
