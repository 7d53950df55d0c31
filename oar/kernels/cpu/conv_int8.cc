#include "oar/kernels/cpu/conv_int8.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/conv_onednn.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/frozen_weights.h"
#include "oar/kernels/cpu/shape.h"
#include "oar/kernels/cpu/onednn_common.h"
#include "oar/kernels/cpu/quant.h"

namespace oar::kernels::onednn {

namespace {
using dnnl::memory;
using tag = memory::format_tag;

// A primitive for one problem and its output scales, with the reorders between oar's plain
// layouts (NCHW int8 in, NCHW float32 out, OIHW/GOIHW int8 weights) and the ones it wants.
struct Plan {
  bool ok = false;
  dnnl::convolution_forward prim;
  memory::desc src_user, src_inner, wei_user, wei_inner, dst_user, dst_inner;
  dnnl::reorder src_reorder, wei_reorder, dst_reorder;
  size_t scratch = 0;
};

std::shared_ptr<const Plan> build(const ConvShape& s, const std::vector<float>& scales) {
  auto plan = std::make_shared<Plan>();
  try {
    memory::dims src{s.N, s.C, s.in[1], s.in[2]}, dst{s.N, s.M, s.out[1], s.out[2]};
    memory::dims wei = s.G > 1 ? memory::dims{s.G, s.M / s.G, s.C / s.G, s.k[1], s.k[2]}
                               : memory::dims{s.M, s.C, s.k[1], s.k[2]};
    const memory::dims strides{s.stride[1], s.stride[2]}, dil{s.dil[1] - 1, s.dil[2] - 1},
        pad_l{s.pad[1], s.pad[2]}, pad_r{s.pad_after[1], s.pad_after[2]};
    const auto s8 = memory::data_type::s8, f32 = memory::data_type::f32;
    plan->src_user = memory::desc(src, s8, tag::nchw);
    plan->dst_user = memory::desc(dst, f32, tag::nchw);
    plan->wei_user = memory::desc(wei, s8, s.G > 1 ? tag::goihw : tag::oihw);
    dnnl::primitive_attr attr = user_scratchpad();
    attr.set_output_scales(scales.size() > 1 ? 1 << 1 : 0, scales);
    using fwd = dnnl::convolution_forward;
    const fwd::primitive_desc pd(
        fwd::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                  memory::desc(src, s8, tag::any), memory::desc(wei, s8, tag::any), memory::desc(dst, f32, tag::any),
                  strides, dil, pad_l, pad_r),
        attr, engine());
    plan->prim = fwd(pd);
    plan->src_inner = pd.src_desc();
    plan->wei_inner = pd.weights_desc();
    plan->dst_inner = pd.dst_desc();
    plan->scratch = pd.scratchpad_desc().get_size();
    auto& eng = engine();
    if (plan->src_inner != plan->src_user) plan->src_reorder = dnnl::reorder(memory(plan->src_user, eng), memory(plan->src_inner, eng));
    if (plan->wei_inner != plan->wei_user) plan->wei_reorder = dnnl::reorder(memory(plan->wei_user, eng), memory(plan->wei_inner, eng));
    if (plan->dst_inner != plan->dst_user) plan->dst_reorder = dnnl::reorder(memory(plan->dst_inner, eng), memory(plan->dst_user, eng));
    plan->ok = true;
  } catch (const dnnl::error&) {
    plan->ok = false;  // no int8 implementation here: the caller computes in float
  }
  return plan;
}

using Key = std::tuple<std::vector<int64_t>, std::vector<float>>;

std::shared_ptr<const Plan> plan_for(const ConvShape& s, const std::vector<float>& scales) {
  std::vector<int64_t> geometry{s.N, s.C, s.M, s.G};
  for (int d = 1; d < 3; ++d)
    for (int64_t v : {s.in[d], s.out[d], s.k[d], s.stride[d], s.dil[d], s.pad[d], s.pad_after[d]}) geometry.push_back(v);
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const Plan>> cache;
  Key key{std::move(geometry), scales};
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  if (cache.size() >= 512) cache.clear();
  return cache.emplace(key, build(s, scales)).first->second;
}

// The weights (integers held as floats) in the plan's int8 layout. In the predictor (frozen
// weights) made once per weight storage and plan layout; elsewhere on every call.
std::shared_ptr<const std::vector<int8_t>> packed_weights(const Plan& p, const float* w, int64_t n,
                                                          const std::shared_ptr<Storage>& owner) {
  auto pack = [&] {
    std::vector<int8_t> plain(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) plain[i] = to_int8(w[i]);
    if (!p.wei_reorder) return std::make_shared<const std::vector<int8_t>>(std::move(plain));
    auto packed = std::make_shared<std::vector<int8_t>>(p.wei_inner.get_size());
    auto& eng = engine();
    dnnl::stream strm(eng);
    memory from(p.wei_user, eng, plain.data()), to(p.wei_inner, eng, packed->data());
    p.wei_reorder.execute(strm, from, to);
    strm.wait();
    return std::shared_ptr<const std::vector<int8_t>>(std::move(packed));
  };
  if (!weights_frozen() || !owner) return pack();
  static std::mutex mutex;
  static std::map<std::pair<const void*, const Plan*>, std::pair<std::weak_ptr<Storage>, std::shared_ptr<const std::vector<int8_t>>>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& entry = cache[{w, &p}];
  if (entry.second && entry.first.lock() == owner) return entry.second;
  if (cache.size() > 4096) cache.clear();
  auto packed = pack();
  cache[{w, &p}] = {owner, packed};
  return packed;
}
}  // namespace

bool conv_forward_int8(const ConvShape& s, const float* x, float x_scale, const float* w, int64_t w_numel,
                       const std::shared_ptr<Storage>& w_owner, const std::vector<float>& out_scales, float* y) {
  if (!conv_enabled() || s.nd != 2 || s.channel_last) return false;
  const auto plan = plan_for(s, out_scales);
  if (!plan->ok) return false;
  ThreadGuard threads;
  auto& eng = engine();
  dnnl::stream strm(eng);
  // The input's integers (as quantize_linear: round(x / scale * 127) clipped to [-128, 127]).
  const int64_t n_in = s.N * s.C * s.in[1] * s.in[2];
  std::vector<int8_t> xq(static_cast<size_t>(n_in));
  const float div = x_scale > 0 ? x_scale : std::numeric_limits<float>::infinity();  // zero scale: all 0
  parallel_for(0, n_in, 1 << 15, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) xq[i] = to_int8(x[i] / div * 127.0f);
  });
  std::vector<int8_t> x_inner;
  memory src(plan->src_user, eng, xq.data());
  if (plan->src_reorder) {
    x_inner.resize(plan->src_inner.get_size());
    memory to(plan->src_inner, eng, x_inner.data());
    plan->src_reorder.execute(strm, src, to);
    src = to;
  }
  const auto wq = packed_weights(*plan, w, w_numel, w_owner);
  memory wei(plan->wei_inner, eng, const_cast<int8_t*>(wq->data()));
  std::vector<char> y_inner(plan->dst_reorder ? plan->dst_inner.get_size() : 0);
  memory dst(plan->dst_inner, eng, plan->dst_reorder ? static_cast<void*>(y_inner.data()) : static_cast<void*>(y));
  std::vector<char> scratch(std::max<size_t>(plan->scratch, 1));
  memory pad(memory::desc({static_cast<memory::dim>(scratch.size())}, memory::data_type::u8, tag::x), eng, scratch.data());
  plan->prim.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}, {DNNL_ARG_SCRATCHPAD, pad}});
  if (plan->dst_reorder) {
    memory out(plan->dst_user, eng, y);
    plan->dst_reorder.execute(strm, dst, out);
  }
  strm.wait();
  return true;
}

}  // namespace oar::kernels::onednn

namespace oar::kernels {

void quantized_conv_forward(const Tensor& x, const Tensor& x_scale, const Tensor& x_dequant_scale,
                            const Tensor& weight, const Tensor& weight_scale, const Tensor& bias,
                            const IntArray& stride, const IntArray& padding, const IntArray& dilation, int64_t groups,
                            bool channel_last, const Tensor& out) {
  if (out.numel() == 0) return;
  const float sx = x_scale.item<float>(), dx = x_dequant_scale.item<float>();
  const int64_t M = weight.shape()[0];
  const std::vector<float> ws = weight_scale.to_vector<float>();
  std::vector<float> out_scales;  // each int32 sum's value: (dx / 127) * (weight scale / 127)
  for (float w : ws) out_scales.push_back(dx / 127.0f * w / 127.0f);
  const Tensor xc = as_contiguous(x, DType::Float32), wc = as_contiguous(weight, DType::Float32);
  const ConvShape s = conv_shape(x.shape(), weight.shape(), out.shape(), stride, padding, dilation, groups, channel_last);
  const bool direct = out.is_contiguous() && out.dtype() == DType::Float32;
  const Tensor o = direct ? out : Tensor::make(out.shape(), DType::Float32);
  if (x.numel() > 0 && onednn::conv_forward_int8(s, xc.data<float>(), sx, wc.data<float>(), wc.numel(), weight.storage(),
                                                 out_scales, o.data<float>())) {
    if (bias.defined()) {  // per output channel, after the scales (the bias is float32)
      const std::vector<float> bv = bias.to_vector<float>();
      const int64_t plane = s.out_size();
      float* op = o.data<float>();
      parallel_for(0, s.N * M, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          const float v = bv[i % M];
          for (int64_t j = 0; j < plane; ++j) op[i * plane + j] += v;
        }
      });
    }
  } else {
    // The same numbers in float: the input's integers times its step, the weights times theirs.
    const Tensor xq = Tensor::make(x.shape(), DType::Float32);
    const float div = sx > 0 ? sx : std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < x.numel(); ++i) {
      xq.data<float>()[i] = static_cast<float>(to_int8(xc.data<float>()[i] / div * 127.0f)) * dx / 127.0f;
    }
    const Tensor wd = Tensor::make(weight.shape(), DType::Float32);
    const int64_t per = M > 0 ? weight.numel() / M : 0;
    for (int64_t i = 0; i < weight.numel(); ++i)
      wd.data<float>()[i] = wc.data<float>()[i] * ws[ws.size() > 1 ? i / per : 0] / 127.0f;
    conv_forward(xq, wd, bias.defined() ? as_contiguous(bias, DType::Float32) : Tensor(), stride, padding, dilation,
                 groups, channel_last, o);
  }
  if (!direct) copy(o, out);
}

}  // namespace oar::kernels
