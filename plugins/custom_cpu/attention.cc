// sdpa_core: fused scaled dot-product attention, forward (its gradient is a host composite).
// Contract: see kernels.h. A port of oar/kernels/cpu/attention.cc: query [B, Sq, H, D], key
// [B, Sk, Hk, D], value [B, Sk, Hk, Dv], query head h reading key/value head h / (H / Hk). Per
// (batch, head): S = scale Q K^T, then the mask (bool: false -> -inf; float: added;
// [B, H, Sq, Sk]), is_causal (key j > query i -> -inf), P = softmax(S) row by row (a row of
// -inf only is NaN), out = (P * dmask) V (dmask: the dropout mask, optional). probs receives P.
// Inputs are {query, key, value[, mask]} (inputs_count of them) then dmask (maybe absent); any
// strided views, read into contiguous buffers on the stream. out and probs are contiguous.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {

OarStatus sdpa_core_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const int64_t n_in = int_attr(ctx, "inputs_count", 3);
    if (n_in != 3 && n_in != 4) fail("expected {query, key, value} and maybe a mask, got %lld tensors", static_cast<long long>(n_in));
    const TensorDesc q = input(ctx, 0, "query"), k = input(ctx, 1, "key"), v = input(ctx, 2, "value");
    std::optional<TensorDesc> mask;
    if (n_in == 4) mask = input(ctx, 3, "mask");
    const std::optional<TensorDesc> dmask = optional_input(ctx, static_cast<int>(n_in), "dmask");
    const TensorDesc out = output(ctx, 0), probs = output(ctx, 1);
    if (q.ndim() != 4 || k.ndim() != 4 || v.ndim() != 4) fail("query, key and value must be 4-d");
    const int64_t B = q.shape[0], Sq = q.shape[1], H = q.shape[2], D = q.shape[3];
    const int64_t Sk = k.shape[1], Hk = k.shape[2], Dv = v.shape[3];
    if (k.shape[0] != B || k.shape[3] != D || v.shape[0] != B || v.shape[1] != Sk || v.shape[2] != Hk || Hk == 0 ||
        H % Hk != 0)
      fail("query %s, key %s and value %s do not fit", shape_str(q.shape).c_str(), shape_str(k.shape).c_str(),
           shape_str(v.shape).c_str());
    const std::vector<int64_t> full{B, H, Sq, Sk};
    for (const TensorDesc* t : {&k, &v, &out, &probs}) expect_dtype(*t, q.dtype, "tensor");
    expect_shape(out, {B, Sq, H, Dv}, "out");
    expect_shape(probs, full, "probs");
    expect_contiguous(out, "out");
    expect_contiguous(probs, "probs");
    const bool bool_mask = mask && mask->dtype == OAR_BOOL;
    if (mask) {
      if (!bool_mask) expect_dtype(*mask, q.dtype, "mask");
      expect_shape(*mask, full, "mask");
    }
    if (dmask) {
      expect_dtype(*dmask, q.dtype, "dmask");
      expect_shape(*dmask, full, "dmask");
    }
    const double scale = float_attr(ctx, "scale", 1.0);
    const bool causal = bool_attr(ctx, "is_causal", false);
    auto run = [&](auto tag) {
      using T = decltype(tag);
      const Reader<T> rq(q), rk(k), rv(v), rmf(bool_mask ? std::nullopt : mask), rdm(dmask);
      const Reader<bool> rmb(bool_mask ? mask : std::nullopt);
      T* op = out.as<T>();
      T* pp = probs.as<T>();
      launch(ctx, [=] {
        const std::vector<T> qv = rq.read(), kv = rk.read(), vv = rv.read(), mf = rmf.read(), dm = rdm.read();
        const std::vector<bool> mb = rmb.read();
        const T ninf = -std::numeric_limits<T>::infinity(), sc = T(scale);
        const int64_t group = H / Hk, SS = Sq * Sk;
        if (Sk == 0) {  // no keys: every softmax is empty
          std::fill(op, op + B * Sq * H * Dv, std::numeric_limits<T>::quiet_NaN());
          return;
        }
        for (int64_t bh = 0; bh < B * H; ++bh) {
          const int64_t b = bh / H, h = bh % H, hk = h / group;
          T* P = pp + bh * SS;
          for (int64_t i = 0; i < Sq; ++i) {
            T* row = P + i * Sk;
            const int64_t lim = causal ? std::min(i + 1, Sk) : Sk;
            T m = ninf;
            for (int64_t j = 0; j < Sk; ++j) {
              T dot = T(0);
              for (int64_t e = 0; e < D; ++e)
                dot += qv[((b * Sq + i) * H + h) * D + e] * kv[((b * Sk + j) * Hk + hk) * D + e];
              T s = dot * sc;
              if (j >= lim) s = ninf;
              if (!mb.empty() && !mb[bh * SS + i * Sk + j]) s = ninf;
              if (!mf.empty()) s += mf[bh * SS + i * Sk + j];
              row[j] = s;
              m = std::max(m, s);
            }
            // A row with every score -inf has no defined softmax: NaN, as the formula gives.
            const T shift = m == ninf ? std::numeric_limits<T>::quiet_NaN() : m;
            T sum = T(0);
            for (int64_t j = 0; j < Sk; ++j) sum += (row[j] = std::exp(row[j] - shift));
            const T inv = T(1) / sum;
            for (int64_t j = 0; j < Sk; ++j) row[j] *= inv;
          }
          for (int64_t i = 0; i < Sq; ++i)
            for (int64_t e = 0; e < Dv; ++e) {
              T acc = T(0);
              for (int64_t j = 0; j < Sk; ++j) {
                const T w = dm.empty() ? P[i * Sk + j] : P[i * Sk + j] * dm[bh * SS + i * Sk + j];
                acc += w * vv[((b * Sk + j) * Hk + hk) * Dv + e];
              }
              op[((b * Sq + i) * H + h) * Dv + e] = acc;
            }
        }
      });
    };
    if (q.dtype == OAR_FLOAT32) run(float{});
    else if (q.dtype == OAR_FLOAT64) run(double{});
    else unsupported("no sdpa_core kernel for %s (float32 and float64 have one)", dtype_name(q.dtype));
  });
}

}  // namespace oar_custom_cpu
