#include "oar/kernels/cpu/quantized_linear.h"

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/frozen_weights.h"
#include "oar/kernels/cpu/quant.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/shape.h"

namespace oar::kernels {

namespace {
// A weight as int8 plus its column sums (the correction of the unsigned-activation GEMM below).
struct Int8Weight {
  std::vector<int8_t> q;
  std::vector<int32_t> col_sums;
};

std::shared_ptr<const Int8Weight> convert_weight(const Tensor& w) {
  const int64_t K = w.shape()[0], N = w.shape()[1];
  const Tensor c = as_contiguous(w, DType::Float32);
  const float* p = c.data<float>();
  auto r = std::make_shared<Int8Weight>();
  r->q.resize(static_cast<size_t>(K * N));
  r->col_sums.assign(static_cast<size_t>(N), 0);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n) {
      const auto v = to_int8(p[k * N + n]);
      r->q[k * N + n] = v;
      r->col_sums[n] += v;
    }
  return r;
}

// In the predictor (frozen weights) a weight is converted once per storage and kept; elsewhere
// on every call.
std::shared_ptr<const Int8Weight> int8_weight(const Tensor& w) {
  if (!weights_frozen() || !w.storage()) return convert_weight(w);
  static std::mutex mutex;
  static std::map<const void*, std::pair<std::weak_ptr<Storage>, std::shared_ptr<const Int8Weight>>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& entry = cache[w.raw_data()];
  if (entry.second && entry.first.lock() == w.storage()) return entry.second;
  if (cache.size() > 4096) cache.clear();
  auto q = convert_weight(w);
  cache[w.raw_data()] = {w.storage(), q};
  return q;
}
}  // namespace

void quantized_linear(const Tensor& x, const Tensor& x_scale, const Tensor& x_dequant_scale, const Tensor& weight,
                      const Tensor& weight_scale, const Tensor& bias, const Tensor& out) {
  const int64_t K = weight.shape()[0], N = weight.shape()[1];
  if (out.numel() == 0) return;
  const int64_t M = out.numel() / N;
  if (K == 0) {  // an empty sum: the bias alone (broadcast over the rows), or zeros
    if (!bias.defined()) return fill(out, Scalar(0));
    Strides st(out.ndim(), 0);
    st.back() = bias.strides()[0];
    return copy(Tensor::make_view(bias, out.shape(), st, bias.offset()), out);
  }
  const float sa = x_scale.item<float>();
  // x / sa * 127 as quantize_linear computes it (a zero scale quantizes to 0).
  const float div = sa > 0 ? sa : std::numeric_limits<float>::infinity();
  // Activations to unsigned int8: round(x / s * 127) clipped to [-128, 127] (as quantize_linear),
  // plus 128. The u8 x s8 GEMM is the one VNNI runs natively; the +128 comes back out through the
  // weight's column sums.
  const Tensor xc = as_contiguous(x, DType::Float32);
  const float* xp = xc.data<float>();
  const Tensor xq_buf = Tensor::make({M * K}, DType::UInt8);
  uint8_t* xq = xq_buf.data<uint8_t>();
  parallel_for(0, M * K, 1 << 15, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) xq[i] = static_cast<uint8_t>(to_int8(xp[i] / div * 127.0f) + 128);
  });
  const auto w8 = int8_weight(weight);
  const Tensor acc_buf = Tensor::make({M * N}, DType::Int32);
  int32_t* acc = acc_buf.data<int32_t>();
  const int32_t zero_offset = 0;
  const dnnl_status_t st = dnnl_gemm_u8s8s32('N', 'N', 'F', M, N, K, 1.0f, xq, K, 0, w8->q.data(), N, 0, 0.0f, acc,
                                             N, &zero_offset);
  OAR_ENFORCE(st == dnnl_success, External, "quantized_linear: oneDNN's int8 GEMM failed with status ",
              static_cast<int>(st));
  // Back to floats: (sum - 128 * column sum) times each side's integer step (scale / 127).
  const std::vector<float> ws = weight_scale.to_vector<float>();
  const bool per_column = static_cast<int64_t>(ws.size()) == N && N > 1;
  const float xstep = x_dequant_scale.item<float>() / 127.0f;
  std::vector<float> col(static_cast<size_t>(N));
  const std::vector<float> b = bias.defined() ? bias.to_vector<float>() : std::vector<float>(static_cast<size_t>(N), 0.0f);
  std::vector<int32_t> shift(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n) {
    col[n] = xstep * ws[per_column ? n : 0] / 127.0f;
    shift[n] = 128 * w8->col_sums[n];
  }
  const bool direct = out.is_contiguous();
  const Tensor o = direct ? out : Tensor::make(out.shape(), DType::Float32);
  float* op = o.data<float>();
  parallel_for(0, M, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(N, 1)), [&](int64_t m0, int64_t m1) {
    for (int64_t m = m0; m < m1; ++m)
      for (int64_t n = 0; n < N; ++n)
        op[m * N + n] = static_cast<float>(acc[m * N + n] - shift[n]) * col[n] + b[n];
  });
  if (!direct) copy(o, out);
}

}  // namespace oar::kernels
