#include "oar/kernels/cpu/conv_onednn.h"
#include "oar/kernels/cpu/frozen_weights.h"
#include "oar/kernels/cpu/onednn_common.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "oar/core/parallel.h"

namespace oar::kernels {

namespace {
thread_local bool t_weights_frozen = false;
}  // namespace

bool weights_frozen() { return t_weights_frozen; }
FrozenWeightsScope::FrozenWeightsScope() : previous_(t_weights_frozen) { t_weights_frozen = true; }
FrozenWeightsScope::~FrozenWeightsScope() { t_weights_frozen = previous_; }

}  // namespace oar::kernels

namespace oar::kernels::onednn {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

enum class Kind { Forward, BackwardData, BackwardWeights, ForwardFused };

// One tensor argument of a primitive: its layout in oar (user) and the one the primitive wants
// (inner); when they differ, a cached reorder converts between them.
struct Arg {
  memory::desc user, inner;
  bool reorder = false;
  dnnl::primitive convert;  // user -> inner for inputs, inner -> user for the output
  size_t scratch = 0;       // bytes of scratchpad the reorder needs
};

struct Plan {
  bool ok = false;
  dnnl::primitive prim;
  size_t scratch = 0;  // scratchpad bytes of the largest of the plan's primitives
  Arg in0, in1, out;  // forward: src, weights, dst; backward data: diff_dst, weights, diff_src;
                      // backward weights: src, diff_dst, diff_weights
  Arg residual;       // fused forward with a sum post-op: the residual into the dst's inner layout
  memory::desc bias;
};

// What a fused forward adds to a plain one (part of the plan's key).
struct Fusion {
  bool blocked_in = false, blocked_out = false, residual = false, relu = false;
};

// The fused forward's epilogue: dst = act(conv + bias + residual), the residual already in dst.
dnnl::primitive_attr fused_attr(const Fusion& f) {
  dnnl::primitive_attr attr = user_scratchpad();
  dnnl::post_ops ops;
  if (f.residual) ops.append_sum(1.0f);
  // relu as clip to [0, inf]: it maps NaN to 0 as the relu op does (eltwise_relu keeps NaN).
  if (f.relu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, 0.0f, std::numeric_limits<float>::infinity());
  attr.set_post_ops(ops);
  return attr;
}

void make_arg(Arg& a, const memory::desc& user, const memory::desc& inner, bool is_output) {
  a.user = user;
  a.inner = inner;
  a.reorder = user != inner;
  if (a.reorder) {
    auto& eng = engine();
    const auto pd = is_output ? dnnl::reorder::primitive_desc(eng, inner, eng, user, user_scratchpad())
                              : dnnl::reorder::primitive_desc(eng, user, eng, inner, user_scratchpad());
    a.convert = dnnl::reorder(pd);
    a.scratch = pd.scratchpad_desc().get_size();
  }
}

struct Descs {
  memory::desc src, wei, dst, src_any, wei_any, dst_any;
  memory::dims strides, dilates, pad_l, pad_r;
};

Descs describe(const ConvShape& s, memory::data_type dt) {
  Descs d;
  const int nd = s.nd, first = 3 - nd;
  memory::dims src{s.N, s.C}, dst{s.N, s.M}, wei;
  if (s.G > 1) wei = {s.G, s.M / s.G, s.C / s.G};
  else wei = {s.M, s.C};
  for (int i = first; i < 3; ++i) {
    src.push_back(s.in[i]);
    dst.push_back(s.out[i]);
    wei.push_back(s.k[i]);
    d.strides.push_back(s.stride[i]);
    d.dilates.push_back(s.dil[i] - 1);  // oneDNN counts the gaps
    d.pad_l.push_back(s.pad[i]);
    d.pad_r.push_back(s.pad_after[i]);
  }
  static const tag first_tags[] = {tag::ncw, tag::nchw, tag::ncdhw};
  static const tag last_tags[] = {tag::nwc, tag::nhwc, tag::ndhwc};
  static const tag w_tags[] = {tag::oiw, tag::oihw, tag::oidhw};
  static const tag gw_tags[] = {tag::goiw, tag::goihw, tag::goidhw};
  const tag data_tag = s.channel_last ? last_tags[nd - 1] : first_tags[nd - 1];
  d.src = memory::desc(src, dt, data_tag);
  d.dst = memory::desc(dst, dt, data_tag);
  d.wei = memory::desc(wei, dt, s.G > 1 ? gw_tags[nd - 1] : w_tags[nd - 1]);
  d.src_any = memory::desc(src, dt, tag::any);
  d.dst_any = memory::desc(dst, dt, tag::any);
  d.wei_any = memory::desc(wei, dt, tag::any);
  return d;
}

dnnl::convolution_forward::primitive_desc forward_pd(const Descs& d, bool with_bias,
                                                     const ConvShape& s) {
  using fwd = dnnl::convolution_forward;
  const auto alg = dnnl::algorithm::convolution_direct;
  const auto prop = dnnl::prop_kind::forward_training;
  if (with_bias) {
    const memory::desc b({s.M}, memory::data_type::f32, tag::x);
    return fwd::primitive_desc(fwd::desc(prop, alg, d.src_any, d.wei_any, b, d.dst_any,
                                         d.strides, d.dilates, d.pad_l, d.pad_r),
                               user_scratchpad(), engine());
  }
  return fwd::primitive_desc(fwd::desc(prop, alg, d.src_any, d.wei_any, d.dst_any, d.strides,
                                       d.dilates, d.pad_l, d.pad_r),
                             user_scratchpad(), engine());
}

// nChw16c (nCdhw16c, nCw16c): the channel-blocked layout of oar's predictor activations.
memory::desc blocked_desc(const memory::desc& plain, int nd) {
  static const tag tags[] = {tag::nCw16c, tag::nChw16c, tag::nCdhw16c};
  return memory::desc(plain.dims(), memory::data_type::f32, tags[nd - 1]);
}

std::shared_ptr<Plan> build(Kind kind, const ConvShape& s, bool with_bias, const Fusion& f,
                            memory::data_type dt) {
  auto plan = std::make_shared<Plan>();
  try {
    const Descs d = describe(s, dt);
    const auto alg = dnnl::algorithm::convolution_direct;
    if (kind == Kind::ForwardFused) {
      using fwd = dnnl::convolution_forward;
      // forward_training, as the plain forward: for forward_inference oneDNN 2.6 picks its brgconv
      // kernels in NHWC, which cost reorders on both sides here (LeNet b1 +20%, ResNet-18 b32 +40%).
      const auto prop = dnnl::prop_kind::forward_training;
      const memory::desc b({s.M}, memory::data_type::f32, tag::x);
      const auto desc = with_bias ? fwd::desc(prop, alg, d.src_any, d.wei_any, b, d.dst_any, d.strides,
                                              d.dilates, d.pad_l, d.pad_r)
                                  : fwd::desc(prop, alg, d.src_any, d.wei_any, d.dst_any, d.strides,
                                              d.dilates, d.pad_l, d.pad_r);
      const fwd::primitive_desc pd(desc, fused_attr(f), engine());
      plan->prim = fwd(pd);
      plan->scratch = pd.scratchpad_desc().get_size();
      const memory::desc src = f.blocked_in ? blocked_desc(d.src, s.nd) : d.src;
      const memory::desc dst = f.blocked_out ? blocked_desc(d.dst, s.nd) : d.dst;
      make_arg(plan->in0, src, pd.src_desc(), false);
      make_arg(plan->in1, d.wei, pd.weights_desc(), false);
      make_arg(plan->out, dst, pd.dst_desc(), true);
      if (f.residual) make_arg(plan->residual, dst, pd.dst_desc(), false);
      if (with_bias) plan->bias = pd.bias_desc();
    } else if (kind == Kind::Forward) {
      const auto pd = forward_pd(d, with_bias, s);
      plan->prim = dnnl::convolution_forward(pd);
      plan->scratch = pd.scratchpad_desc().get_size();
      make_arg(plan->in0, d.src, pd.src_desc(), false);
      make_arg(plan->in1, d.wei, pd.weights_desc(), false);
      make_arg(plan->out, d.dst, pd.dst_desc(), true);
      if (with_bias) plan->bias = pd.bias_desc();
    } else if (kind == Kind::BackwardData) {
      const auto hint = forward_pd(d, false, s);
      using bwd = dnnl::convolution_backward_data;
      const bwd::primitive_desc pd(bwd::desc(alg, d.src_any, d.wei_any, d.dst_any, d.strides,
                                             d.dilates, d.pad_l, d.pad_r),
                                   user_scratchpad(), engine(), hint);
      plan->prim = bwd(pd);
      plan->scratch = pd.scratchpad_desc().get_size();
      make_arg(plan->in0, d.dst, pd.diff_dst_desc(), false);
      make_arg(plan->in1, d.wei, pd.weights_desc(), false);
      make_arg(plan->out, d.src, pd.diff_src_desc(), true);
    } else {
      const auto hint = forward_pd(d, false, s);
      using bwd = dnnl::convolution_backward_weights;
      const bwd::primitive_desc pd(bwd::desc(alg, d.src_any, d.wei_any, d.dst_any, d.strides,
                                             d.dilates, d.pad_l, d.pad_r),
                                   user_scratchpad(), engine(), hint);
      plan->prim = bwd(pd);
      plan->scratch = pd.scratchpad_desc().get_size();
      make_arg(plan->in0, d.src, pd.src_desc(), false);
      make_arg(plan->in1, d.dst, pd.diff_dst_desc(), false);
      make_arg(plan->out, d.wei, pd.diff_weights_desc(), true);
    }
    for (const Arg* a : {&plan->in0, &plan->in1, &plan->out, &plan->residual})
      plan->scratch = std::max(plan->scratch, a->scratch);
    plan->ok = true;
  } catch (const dnnl::error&) {
    plan->ok = false;  // no implementation: the caller falls back (and the miss is cached too)
  }
  return plan;
}

// Plans cached by problem (kind, geometry, bias); a full cache is emptied and refilled.
using Key = std::array<int64_t, 32>;
constexpr size_t kCacheCapacity = 256;

Key make_key(Kind kind, const ConvShape& s, bool with_bias, const Fusion& f, int threads,
             memory::data_type dt) {
  Key k{};
  size_t i = 0;
  k[i++] = static_cast<int64_t>(kind);
  k[i++] = s.nd;
  k[i++] = s.N;
  k[i++] = s.C;
  k[i++] = s.M;
  k[i++] = s.G;
  for (int d = 0; d < 3; ++d) {
    k[i++] = s.in[d];
    k[i++] = s.out[d];
    k[i++] = s.k[d];
    k[i++] = s.stride[d];
    k[i++] = s.dil[d];
    k[i++] = s.pad[d];
    k[i++] = s.pad_after[d];
  }
  k[i++] = s.channel_last;
  k[i++] = with_bias;
  k[i++] = f.blocked_in | f.blocked_out << 1 | f.residual << 2 | f.relu << 3;
  k[i++] = threads;
  k[i++] = static_cast<int64_t>(dt);
  return k;
}

// Primitives split their work for the thread count they were created under, so a plan is made
// (and keyed) for the count it will run with.
std::shared_ptr<Plan> plan_for(Kind kind, const ConvShape& s, bool with_bias, int threads,
                               const Fusion& f = {}, memory::data_type dt = memory::data_type::f32) {
  static std::mutex mu;
  static std::map<Key, std::shared_ptr<Plan>> cache;
  const Key key = make_key(kind, s, with_bias, f, threads, dt);
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  std::shared_ptr<Plan> plan;
  {
    ThreadGuard guard(threads);
    plan = build(kind, s, with_bias, f, dt);
  }
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= kCacheCapacity) cache.clear();
  cache.emplace(key, plan);
  return plan;
}

// Scratch memory for a reordered argument, from oar's caching allocator.
struct Buffer {
  Tensor t;
  void* get(size_t bytes) {
    t = Tensor::make({static_cast<int64_t>(bytes)}, DType::UInt8);
    return t.raw_data();
  }
};

// Frozen weights already in a plan's weight layout, by (weight pointer, taps kept) and layout:
// the plans of one problem for different thread counts (the predictor tunes its count) mostly
// want the same layout and then share one copy. An entry is valid while its storage is the very
// object it was made from.
struct PackedWeights {
  memory::desc layout;
  std::weak_ptr<Storage> owner;
  Tensor packed;
};

// The kernel taps of `s` that read the input for some output position: [lo, hi] per spatial dim.
// The others only ever meet padding (ResNet-18's last 3x3 convolutions on 1x1 maps use the
// centre tap alone), so a convolution over the cropped kernel, with the padding moved along,
// computes the same sums while reading a fraction of the weights.
struct Taps {
  int64_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
};

// The cropped problem, or nullopt when every tap is used or the crop cannot keep the output.
std::optional<ConvShape> cropped(const ConvShape& s, Taps& t) {
  ConvShape c = s;
  bool crop = false;
  for (int d = 0; d < 3; ++d) {
    t.lo[d] = s.k[d];
    t.hi[d] = -1;
    for (int64_t kk = 0; kk < s.k[d]; ++kk) {
      // Input positions of tap kk: o * stride - pad + kk * dil for o in [0, out).
      const int64_t first = -s.pad[d] + kk * s.dil[d], last = first + (s.out[d] - 1) * s.stride[d];
      bool used = false;
      for (int64_t pos = first; pos <= last && !used; pos += s.stride[d]) used = pos >= 0 && pos < s.in[d];
      if (used) {
        t.lo[d] = std::min(t.lo[d], kk);
        t.hi[d] = kk;
      }
    }
    if (t.hi[d] < 0) return std::nullopt;  // an all-padding output: leave it to the plain path
    if (t.lo[d] == 0 && t.hi[d] == s.k[d] - 1) {
      t.lo[d] = 0;
      continue;
    }
    crop = true;
    c.k[d] = t.hi[d] - t.lo[d] + 1;
    c.pad[d] = s.pad[d] - t.lo[d] * s.dil[d];
    c.pad_after[d] = (s.out[d] - 1) * s.stride[d] + (c.k[d] - 1) * s.dil[d] + 1 - s.in[d] - c.pad[d];
    if (c.pad[d] < 0 || c.pad_after[d] < 0) return std::nullopt;
  }
  if (!crop) return std::nullopt;
  return c;
}

// w ([M][C/G][k0][k1][k2] of `s`) restricted to the taps t (the weights of the cropped problem).
Tensor crop_weights(const ConvShape& s, const ConvShape& c, const Taps& t, const float* w) {
  const int64_t planes = s.M * (s.C / s.G);
  Tensor out = Tensor::make({planes * c.k_size()}, DType::Float32);
  float* o = out.data<float>();
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t a = 0; a < c.k[0]; ++a)
      for (int64_t b = 0; b < c.k[1]; ++b)
        for (int64_t e = 0; e < c.k[2]; ++e)
          *o++ = w[((p * s.k[0] + a + t.lo[0]) * s.k[1] + b + t.lo[1]) * s.k[2] + e + t.lo[2]];
  return out;
}

// A plan for a cropped problem and the full problem its weights come from.
struct Crop {
  const ConvShape& full;
  const ConvShape& cropped;
  const Taps& taps;
};

// w in the plan's weight layout: reordered once per (weight storage, taps, layout), then reused.
// crop: the plan is for crop->cropped, and w holds the weights of crop->full.
const void* packed_weights(const std::shared_ptr<Plan>& p, const void* w, const std::shared_ptr<Storage>& owner,
                           int threads, const Crop* crop = nullptr) {
  static std::mutex mu;
  static std::map<std::pair<const void*, std::array<int64_t, 6>>, std::vector<PackedWeights>> cache;
  std::array<int64_t, 6> taps{-1, -1, -1, -1, -1, -1};  // all of them
  if (crop)
    for (int d = 0; d < 3; ++d) taps[2 * d] = crop->taps.lo[d], taps[2 * d + 1] = crop->taps.hi[d];
  const auto key = std::make_pair(w, taps);
  const memory::desc& layout = p->in1.reorder ? p->in1.inner : p->in1.user;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end())
      for (const PackedWeights& e : it->second)
        if (e.layout == layout && e.owner.lock() == owner) return e.packed.raw_data();
  }
  auto keep = [&](Tensor packed) {
    std::lock_guard<std::mutex> lock(mu);
    if (cache.size() >= 4096) cache.clear();
    auto& entries = cache[key];
    std::erase_if(entries, [&](const PackedWeights& e) { return e.owner.lock() != owner; });  // older storage
    entries.push_back(PackedWeights{layout, owner, packed});
    return packed.raw_data();
  };
  Tensor kept;  // the cropped weights, in the user layout
  if (crop) {
    kept = crop_weights(crop->full, crop->cropped, crop->taps, static_cast<const float*>(w));
    if (!p->in1.reorder) return keep(kept);
    w = kept.raw_data();
  }
  ThreadGuard guard(threads);
  auto& eng = engine();
  dnnl::stream strm(eng);
  Tensor scratch_buf = Tensor::make({static_cast<int64_t>(std::max<size_t>(p->in1.scratch, 1))}, DType::UInt8);
  const memory scratch(memory::desc({static_cast<memory::dim>(std::max<size_t>(p->in1.scratch, 1))},
                                    memory::data_type::u8, tag::x), eng, scratch_buf.raw_data());
  Tensor packed = Tensor::make({static_cast<int64_t>(p->in1.inner.get_size())}, DType::UInt8);
  memory user(p->in1.user, eng, const_cast<void*>(w));
  memory inner(p->in1.inner, eng, packed.raw_data());
  p->in1.convert.execute(strm, {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, inner}, {DNNL_ARG_SCRATCHPAD, scratch}});
  strm.wait();
  return keep(packed);
}

// Runs a plan: inputs reordered into the primitive's layouts as needed, the output written in
// place or reordered back into the user's buffer.
// in1_packed: in1 is already in the primitive's layout (frozen weights).
// Convolutions below this many multiply-adds run on one thread: waking the OpenMP team costs
// more than it saves (LeNet's convolutions at batch 1 spent a third of their time in libgomp).
constexpr double kParallelMacs = 1 << 20;

double macs(const ConvShape& s) {
  double m = static_cast<double>(s.N) * s.M * (s.C / std::max<int64_t>(s.G, 1));
  for (int d = 0; d < 3; ++d) m *= static_cast<double>(s.out[d]) * s.k[d];
  return m;
}

// ...unless its weights are large: at batch 1 on small maps (ResNet's last layers) a conv streams
// its weights from memory, and two cores fetch them faster than one.
constexpr double kParallelWeightBytes = 256 << 10;

int threads_for(const ConvShape& s) {
  const double weight_bytes = 4.0 * s.M * (s.C / std::max<int64_t>(s.G, 1)) * s.k_size();
  return macs(s) < kParallelMacs && weight_bytes < kParallelWeightBytes ? 1 : get_num_threads();
}

// A plan's stream, memory objects and argument maps on one thread, pointed at each call's
// buffers (creating them for every call cost about a microsecond per convolution).
struct Bound {
  std::shared_ptr<const Plan> plan;  // keeps the plan, and so this entry's key, alive
  dnnl::stream strm;
  memory scratch, in0_user, in0_inner, in1_user, in1_inner, out_user, out_inner, res_user, bias;
  std::unordered_map<int, memory> args, in0_convert, in1_convert, out_convert, res_convert;

  Bound(const std::shared_ptr<const Plan>& p, int in0_arg, int in1_arg, int out_arg) : plan(p), strm(engine()) {
    auto& eng = engine();
    auto mem = [&](const memory::desc& d) { return memory(d, eng, nullptr); };
    scratch = mem(memory::desc({static_cast<memory::dim>(std::max<size_t>(p->scratch, 1))}, memory::data_type::u8, tag::x));
    in0_user = mem(p->in0.user);
    in0_inner = p->in0.reorder ? mem(p->in0.inner) : in0_user;
    in1_user = mem(p->in1.user);
    in1_inner = p->in1.reorder ? mem(p->in1.inner) : in1_user;
    out_user = mem(p->out.user);
    out_inner = p->out.reorder ? mem(p->out.inner) : out_user;
    if (p->residual.reorder) res_user = mem(p->residual.user);
    args = {{in0_arg, in0_inner}, {in1_arg, in1_inner}, {out_arg, out_inner}, {DNNL_ARG_SCRATCHPAD, scratch}};
    if (p->bias.get_size() > 0) {
      bias = mem(p->bias);
      args.emplace(DNNL_ARG_BIAS, bias);
    }
    auto convert = [&](const memory& from, const memory& to) {
      return std::unordered_map<int, memory>{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}, {DNNL_ARG_SCRATCHPAD, scratch}};
    };
    in0_convert = convert(in0_user, in0_inner);
    in1_convert = convert(in1_user, in1_inner);
    out_convert = convert(out_inner, out_user);
    if (p->residual.reorder) res_convert = convert(res_user, out_inner);
  }
};

Bound& bound(const std::shared_ptr<Plan>& p, int in0_arg, int in1_arg, int out_arg) {
  thread_local std::unordered_map<const Plan*, std::unique_ptr<Bound>> cache;
  auto it = cache.find(p.get());
  if (it != cache.end()) return *it->second;
  if (cache.size() >= kCacheCapacity) cache.clear();
  return *cache.emplace(p.get(), std::make_unique<Bound>(p, in0_arg, in1_arg, out_arg)).first->second;
}

void run(const std::shared_ptr<Plan>& plan, int in0_arg, const void* in0, int in1_arg, const void* in1, int out_arg,
         void* out, const float* bias, bool in1_packed, int threads, const float* residual = nullptr) {
  ThreadGuard guard(threads);
  const Plan& p = *plan;
  Bound& m = bound(plan, in0_arg, in1_arg, out_arg);
  Buffer b0, b1, b2, bs;
  // One scratchpad serves every primitive of the plan (they run one after another).
  m.scratch.set_data_handle(bs.get(std::max<size_t>(p.scratch, 1)));
  m.in0_user.set_data_handle(const_cast<void*>(in0));
  if (p.in0.reorder) {
    m.in0_inner.set_data_handle(b0.get(p.in0.inner.get_size()));
    p.in0.convert.execute(m.strm, m.in0_convert);
  }
  if (in1_packed) {
    m.in1_inner.set_data_handle(const_cast<void*>(in1));
  } else {
    m.in1_user.set_data_handle(const_cast<void*>(in1));
    if (p.in1.reorder) {
      m.in1_inner.set_data_handle(b1.get(p.in1.inner.get_size()));
      p.in1.convert.execute(m.strm, m.in1_convert);
    }
  }
  m.out_user.set_data_handle(out);
  if (p.out.reorder) m.out_inner.set_data_handle(b2.get(p.out.inner.get_size()));
  if (residual) {  // the sum post-op adds what dst holds
    if (p.residual.reorder) {
      m.res_user.set_data_handle(const_cast<float*>(residual));
      p.residual.convert.execute(m.strm, m.res_convert);
    } else if (residual != out) {
      std::memcpy(out, residual, p.out.user.get_size());
    }
  }
  if (bias) m.bias.set_data_handle(const_cast<float*>(bias));
  p.prim.execute(m.strm, m.args);
  if (p.out.reorder) p.out.convert.execute(m.strm, m.out_convert);
  m.strm.wait();
}

}  // namespace

bool conv_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("OAR_CONV_ONEDNN");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return enabled;
}

namespace {
// The plain forward on data of type dt; frozen weights (w_owner, in the predictor) are packed
// once into the primitive's layout.
bool forward(memory::data_type dt, const ConvShape& s, const void* x, const void* w, const float* bias, void* y,
             const std::shared_ptr<Storage>& w_owner) {
  if (!conv_enabled()) return false;
  const int threads = threads_for(s);
  const auto plan = plan_for(Kind::Forward, s, bias != nullptr, threads, {}, dt);
  if (!plan->ok) return false;
  if (w_owner && plan->in1.reorder && weights_frozen()) {
    run(plan, DNNL_ARG_SRC, x, DNNL_ARG_WEIGHTS, packed_weights(plan, w, w_owner, threads), DNNL_ARG_DST, y,
        bias, true, threads);
    return true;
  }
  run(plan, DNNL_ARG_SRC, x, DNNL_ARG_WEIGHTS, w, DNNL_ARG_DST, y, bias, false, threads);
  return true;
}

// The two backward passes: (dy, w) -> dx, or (x, dy) -> dw, on data of type dt.
bool backward(Kind kind, memory::data_type dt, const ConvShape& s, const void* in0, const void* in1, void* out) {
  if (!conv_enabled()) return false;
  const int threads = get_num_threads();
  const auto plan = plan_for(kind, s, false, threads, {}, dt);
  if (!plan->ok) return false;
  if (kind == Kind::BackwardData)
    run(plan, DNNL_ARG_DIFF_DST, in0, DNNL_ARG_WEIGHTS, in1, DNNL_ARG_DIFF_SRC, out, nullptr, false, threads);
  else
    run(plan, DNNL_ARG_SRC, in0, DNNL_ARG_DIFF_DST, in1, DNNL_ARG_DIFF_WEIGHTS, out, nullptr, false, threads);
  return true;
}
}  // namespace

bool conv_forward(const ConvShape& s, const float* x, const float* w, const float* bias,
                  float* y, const std::shared_ptr<Storage>& w_owner) {
  return forward(memory::data_type::f32, s, x, w, bias, y, w_owner);
}

bool conv_forward_fused(const ConvShape& s, const FusedConv& f, const float* x, const float* w,
                        const float* bias, float* y, const std::shared_ptr<Storage>& w_owner) {
  if (!conv_enabled() || s.channel_last) return false;
  const Fusion key{f.blocked_in, f.blocked_out, f.residual != nullptr, f.relu};
  const bool frozen = w_owner && weights_frozen();
  Taps taps;
  if (const auto c = frozen ? cropped(s, taps) : std::nullopt) {
    const int threads = threads_for(*c);
    const auto plan = plan_for(Kind::ForwardFused, *c, bias != nullptr, threads, key);
    if (plan->ok) {
      const Crop crop{s, *c, taps};
      run(plan, DNNL_ARG_SRC, x, DNNL_ARG_WEIGHTS, packed_weights(plan, w, w_owner, threads, &crop),
          DNNL_ARG_DST, y, bias, true, threads, f.residual);
      return true;
    }
  }
  const int threads = threads_for(s);
  const auto plan = plan_for(Kind::ForwardFused, s, bias != nullptr, threads, key);
  if (!plan->ok) return false;
  const bool packed = frozen && plan->in1.reorder;
  run(plan, DNNL_ARG_SRC, x, DNNL_ARG_WEIGHTS, packed ? packed_weights(plan, w, w_owner, threads) : w,
      DNNL_ARG_DST, y, bias, packed, threads, f.residual);
  return true;
}

bool conv_backward_data(const ConvShape& s, const float* dy, const float* w, float* dx) {
  return backward(Kind::BackwardData, memory::data_type::f32, s, dy, w, dx);
}

bool conv_backward_weight(const ConvShape& s, const float* x, const float* dy, float* dw) {
  return backward(Kind::BackwardWeights, memory::data_type::f32, s, x, dy, dw);
}

// bfloat16: the same passes on bfloat16 data (oneDNN accumulates in float32).
bool conv_forward_bf16(const ConvShape& s, const void* x, const void* w, const float* bias, void* y) {
  return forward(memory::data_type::bf16, s, x, w, bias, y, nullptr);
}

bool conv_backward_data_bf16(const ConvShape& s, const void* dy, const void* w, void* dx) {
  return backward(Kind::BackwardData, memory::data_type::bf16, s, dy, w, dx);
}

bool conv_backward_weight_bf16(const ConvShape& s, const void* x, const void* dy, void* dw) {
  return backward(Kind::BackwardWeights, memory::data_type::bf16, s, x, dy, dw);
}

}  // namespace oar::kernels::onednn
