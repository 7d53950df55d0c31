#include "oar/kernels/cpu/optimizer.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "oar/core/half.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"

namespace oar::kernels {
namespace {

// Work is split into chunks of at most kChunk elements of one parameter, so that many small
// tensors and a few large ones both spread over the threads in one parallel region.
constexpr int64_t kChunk = 16384;

struct Chunk {
  int64_t param, begin, end;
};

DType compute_dtype(DType t) { return t == DType::Float64 ? DType::Float64 : DType::Float32; }

bool is_float(DType t) {
  return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 || t == DType::Float64;
}

void check_batch(const OptimizerBatch& b, const char* op, size_t num_states) {
  const size_t n = b.params.size();
  OAR_ENFORCE_ARG(b.grads.size() == n, op, ": got ", n, " parameters but ", b.grads.size(),
                  " gradients");
  OAR_ENFORCE_ARG(b.lrs.size() == n && b.l1.size() == n && b.l2.size() == n, op,
                  ": expected one learning rate and decay coefficient per parameter (", n,
                  "), got ", b.lrs.size(), ", ", b.l1.size(), ", ", b.l2.size());
  OAR_ENFORCE_ARG(b.grad_scale.empty() || b.grad_scale.size() == n, op, ": got ",
                  b.grad_scale.size(), " gradient scales for ", n, " parameters");
  OAR_ENFORCE_ARG(b.masters.empty() || b.masters.size() == n, op, ": got ", b.masters.size(),
                  " master weights for ", n, " parameters");
  OAR_ENFORCE_ARG(b.states.size() == num_states, op, ": expected ", num_states,
                  " state lists, got ", b.states.size());
  for (size_t k = 0; k < num_states; ++k)
    OAR_ENFORCE_ARG(b.states[k].size() == n, op, ": state list ", k, " holds ",
                    b.states[k].size(), " tensors, expected one per parameter (", n, ")");
  for (size_t i = 0; i < n; ++i) {
    const Tensor& p = b.params[i];
    OAR_ENFORCE_ARG(p.defined() && is_float(p.dtype()), op, ": parameter ", i,
                    " must be a float16, bfloat16, float32 or float64 tensor");
    OAR_ENFORCE_ARG(p.is_contiguous(), op, ": parameter ", i, " must be contiguous");
    const Tensor& g = b.grads[i];
    OAR_ENFORCE_ARG(g.defined() && g.dtype() == p.dtype() && g.numel() == p.numel() &&
                        g.is_contiguous(),
                    op, ": gradient ", i, " must be a contiguous ", dtype_name(p.dtype()),
                    " tensor of ", p.numel(), " elements like its parameter");
    const DType mt = compute_dtype(p.dtype());
    for (size_t k = 0; k < num_states; ++k) {
      const Tensor& s = b.states[k][i];
      OAR_ENFORCE_ARG(s.defined() && s.dtype() == mt && s.numel() == p.numel() &&
                          s.is_contiguous(),
                      op, ": state ", k, " of parameter ", i, " must be a contiguous ",
                      dtype_name(mt), " tensor of ", p.numel(), " elements");
    }
    if (!b.masters.empty() && b.masters[i].defined()) {
      const Tensor& m = b.masters[i];
      OAR_ENFORCE_ARG(m.dtype() == DType::Float32 && m.numel() == p.numel() && m.is_contiguous(),
                      op, ": master weight ", i, " must be a contiguous float32 tensor of ",
                      p.numel(), " elements");
    }
  }
}

void check_pows(const std::vector<Tensor>& pows, const OptimizerBatch& b, const char* op,
                const char* what) {
  OAR_ENFORCE_ARG(pows.size() == b.params.size(), op, ": expected one ", what,
                  " per parameter, got ", pows.size());
  for (size_t i = 0; i < pows.size(); ++i)
    OAR_ENFORCE_ARG(pows[i].defined() && pows[i].numel() == 1 &&
                        pows[i].dtype() == compute_dtype(b.params[i].dtype()),
                    op, ": ", what, " ", i, " must be a one-element ",
                    dtype_name(compute_dtype(b.params[i].dtype())), " tensor");
}

std::vector<Chunk> chunks_of(const std::vector<Tensor>& ts) {
  std::vector<Chunk> out;
  for (size_t i = 0; i < ts.size(); ++i)
    for (int64_t lo = 0; lo < ts[i].numel(); lo += kChunk)
      out.push_back({static_cast<int64_t>(i), lo, std::min(ts[i].numel(), lo + kChunk)});
  return out;
}

double grad_scale_of(const OptimizerBatch& b, int64_t i) {
  return b.grad_scale.empty() ? 1.0 : b.grad_scale[i];
}

// Calls body(chunk) for every chunk, in parallel.
template <typename Body>
void for_each_chunk(const std::vector<Chunk>& chunks, const Body& body) {
  // A few chunks per thread at least: small groups run inline.
  parallel_for(0, static_cast<int64_t>(chunks.size()), 4, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) body(chunks[c]);
  });
}

// Calls f(T{}, MT{}) with the parameter type T and its compute type MT.
template <typename F> void dispatch_param(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::Float32: f(float{}, float{}); break;
    case DType::Float64: f(double{}, double{}); break;
    case DType::Float16: f(float16{}, float{}); break;
    case DType::BFloat16: f(bfloat16{}, float{}); break;
    default: unsupported_dtype(op, t, "float16, bfloat16, float32, float64");
  }
}

// One chunk of an elementwise rule: rule(w, g, s, j) updates the weight w (compute type) with
// the regularised gradient g and the K states s[k][j]. make_rule(MT{}, i) returns the rule of
// parameter i (its scalars converted once).
template <size_t K, typename T, typename MT, typename Rule>
void run_chunk(const OptimizerBatch& b, const Chunk& c, const Rule& rule) {
  const int64_t i = c.param;
  T* p = b.params[i].template data<T>();
  const T* g = b.grads[i].template data<T>();
  std::array<MT*, K> s{};
  for (size_t k = 0; k < K; ++k) s[k] = b.states[k][i].template data<MT>();
  MT* m = nullptr;
  if constexpr (!std::is_same_v<T, double>)
    if (!b.masters.empty() && b.masters[i].defined()) m = b.masters[i].template data<float>();
  const MT l1 = static_cast<MT>(b.l1[i]), l2 = static_cast<MT>(b.l2[i]);
  const MT rescale = static_cast<MT>(b.rescale), scale = static_cast<MT>(grad_scale_of(b, i));
  const bool plain = b.l1[i] == 0 && b.l2[i] == 0 && b.rescale == 1.0 && grad_scale_of(b, i) == 1.0;
  // Branch-free inner loops (one instantiation per case), so that they vectorise.
  auto loop = [&](auto regularised, auto with_master) {
    constexpr bool kReg = decltype(regularised)::value, kMaster = decltype(with_master)::value;
    for (int64_t j = c.begin; j < c.end; ++j) {
      MT w;
      if constexpr (kMaster) w = m[j];
      else w = static_cast<MT>(p[j]);
      MT gv = static_cast<MT>(g[j]);
      if constexpr (kReg) {
        const MT sign = static_cast<MT>((w > MT(0)) - (w < MT(0)));
        gv = (gv * scale + l1 * sign) * rescale + l2 * w;
      }
      rule(w, gv, s, j);
      if constexpr (kMaster) m[j] = w;
      p[j] = static_cast<T>(w);
    }
  };
  if (m) {
    if (plain) loop(std::false_type{}, std::true_type{});
    else loop(std::true_type{}, std::true_type{});
  } else {
    if (plain) loop(std::false_type{}, std::false_type{});
    else loop(std::true_type{}, std::false_type{});
  }
}

// The whole elementwise update: check, then every chunk in parallel.
template <size_t K, typename MakeRule>
void elementwise_update(const OptimizerBatch& b, const char* op, const MakeRule& make_rule) {
  check_batch(b, op, K);
  for_each_chunk(chunks_of(b.params), [&](const Chunk& c) {
    dispatch_param(b.params[c.param].dtype(), op, [&](auto ttag, auto mtag) {
      using T = decltype(ttag);
      using MT = decltype(mtag);
      run_chunk<K, T, MT>(b, c, make_rule(MT{}, c.param));
    });
  });
  for (const Tensor& p : b.params) p.bump_version();
}

template <typename MT> MT pow_value(const std::vector<Tensor>& pows, int64_t i) {
  return *pows[i].template data<MT>();
}

// beta_pow[i] *= beta in the compute type, after the update has read it.
void advance_pows(const std::vector<Tensor>& pows, double beta) {
  for (const Tensor& t : pows) {
    if (t.dtype() == DType::Float64) *t.data<double>() *= beta;
    else *t.data<float>() *= static_cast<float>(beta);
    t.bump_version();
  }
}

}  // namespace

std::vector<double> squared_l2_norms(const std::vector<Tensor>& xs) {
  for (size_t i = 0; i < xs.size(); ++i)
    OAR_ENFORCE_ARG(xs[i].defined() && is_float(xs[i].dtype()) && xs[i].is_contiguous(),
                    "squared_l2_norms: tensor ", i, " must be a contiguous float tensor");
  const std::vector<Chunk> chunks = chunks_of(xs);
  std::vector<double> partial(chunks.size());
  for_each_chunk(chunks, [&](const Chunk& c) {
    dispatch_param(xs[c.param].dtype(), "squared_l2_norms", [&](auto ttag, auto) {
      using T = decltype(ttag);
      const T* x = xs[c.param].template data<T>();
      // Four running sums: shorter dependency chains, same result for any thread count.
      double acc[4] = {0, 0, 0, 0};
      int64_t j = c.begin;
      for (; j + 4 <= c.end; j += 4)
        for (int k = 0; k < 4; ++k) {
          const double v = static_cast<double>(x[j + k]);
          acc[k] += v * v;
        }
      for (; j < c.end; ++j) {
        const double v = static_cast<double>(x[j]);
        acc[0] += v * v;
      }
      partial[&c - chunks.data()] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    });
  });
  std::vector<double> out(xs.size(), 0.0);
  for (size_t k = 0; k < chunks.size(); ++k) out[chunks[k].param] += partial[k];
  return out;
}

void sgd_update(const OptimizerBatch& b) {
  elementwise_update<0>(b, "sgd", [&](auto mt, int64_t i) {
    using MT = decltype(mt);
    const MT lr = static_cast<MT>(b.lrs[i]);
    return [=](MT& w, MT g, const std::array<MT*, 0>&, int64_t) { w -= lr * g; };
  });
}

void momentum_update(const OptimizerBatch& b, double mu_, bool use_nesterov) {
  elementwise_update<1>(b, "momentum", [&](auto mt, int64_t i) {
    using MT = decltype(mt);
    const MT lr = static_cast<MT>(b.lrs[i]), mu = static_cast<MT>(mu_);
    // Both steps computed, one selected: a select vectorises where a branch may not.
    const bool nesterov = use_nesterov;
    return [=](MT& w, MT g, const std::array<MT*, 1>& s, int64_t j) {
      const MT v = mu * s[0][j] + g;
      s[0][j] = v;
      const MT plain_step = lr * v, nesterov_step = (g + mu * v) * lr;
      w -= nesterov ? nesterov_step : plain_step;
    };
  });
}

void adam_update(const OptimizerBatch& b, const BetaPows& pows, double beta1_, double beta2_,
                 double epsilon, bool amsgrad, const std::vector<double>& decay) {
  const char* op = amsgrad ? "adam(amsgrad)" : "adam";
  check_pows(pows.beta1_pow, b, op, "beta1_pow");
  check_pows(pows.beta2_pow, b, op, "beta2_pow");
  OAR_ENFORCE_ARG(decay.empty() || decay.size() == b.params.size(), op,
                  ": expected one decoupled decay coefficient per parameter, got ", decay.size());
  auto make_rule = [&](auto mt, int64_t i) {
    using MT = decltype(mt);
    const MT b1 = static_cast<MT>(beta1_), b2 = static_cast<MT>(beta2_);
    const MT b1p = pow_value<MT>(pows.beta1_pow, i), b2p = pow_value<MT>(pows.beta2_pow, i);
    const MT lr = static_cast<MT>(b.lrs[i]);
    const MT coeff = decay.empty() ? MT(0) : static_cast<MT>(decay[i]);
    // Bias corrections folded into the step size and epsilon, as Paddle's kernel does.
    const MT lr_t = lr * std::sqrt(MT(1) - b2p) / (MT(1) - b1p);
    const MT eps_t = static_cast<MT>(epsilon) * std::sqrt(MT(1) - b2p);
    return [=](MT& w, MT g, const auto& s, int64_t j) {
      if (coeff != MT(0)) w -= lr * coeff * w;
      const MT m1 = b1 * s[0][j] + (MT(1) - b1) * g;
      const MT m2 = b2 * s[1][j] + (MT(1) - b2) * g * g;
      s[0][j] = m1;
      s[1][j] = m2;
      MT denom = m2;
      if constexpr (std::tuple_size_v<std::decay_t<decltype(s)>> == 3) {
        denom = std::max(s[2][j], m2);
        s[2][j] = denom;
      }
      w -= lr_t * (m1 / (std::sqrt(denom) + eps_t));
    };
  };
  if (amsgrad) elementwise_update<3>(b, op, make_rule);
  else elementwise_update<2>(b, op, make_rule);
  advance_pows(pows.beta1_pow, beta1_);
  advance_pows(pows.beta2_pow, beta2_);
}

void adagrad_update(const OptimizerBatch& b, double epsilon) {
  elementwise_update<1>(b, "adagrad", [&](auto mt, int64_t i) {
    using MT = decltype(mt);
    const MT lr = static_cast<MT>(b.lrs[i]), eps = static_cast<MT>(epsilon);
    return [=](MT& w, MT g, const std::array<MT*, 1>& s, int64_t j) {
      const MT m = s[0][j] + g * g;
      s[0][j] = m;
      w -= lr * g / (std::sqrt(m) + eps);
    };
  });
}

void rmsprop_update(const OptimizerBatch& b, double rho_, double epsilon, double momentum,
                    bool centered) {
  elementwise_update<3>(b, "rmsprop", [&](auto mt, int64_t i) {
    using MT = decltype(mt);
    const MT lr = static_cast<MT>(b.lrs[i]), eps = static_cast<MT>(epsilon);
    const MT rho = static_cast<MT>(rho_), mu = static_cast<MT>(momentum);
    return [=](MT& w, MT g, const std::array<MT*, 3>& s, int64_t j) {
      const MT ms = rho * s[1][j] + (MT(1) - rho) * g * g;
      s[1][j] = ms;
      MT denom = ms + eps;
      if (centered) {
        const MT mg = rho * s[2][j] + (MT(1) - rho) * g;
        s[2][j] = mg;
        denom = ms - mg * mg + eps;
      }
      const MT mom = mu * s[0][j] + lr * g / std::sqrt(denom);
      s[0][j] = mom;
      w -= mom;
    };
  });
}

void adadelta_update(const OptimizerBatch& b, double rho_, double epsilon) {
  elementwise_update<2>(b, "adadelta", [&](auto mt, int64_t i) {
    using MT = decltype(mt);
    const MT lr = static_cast<MT>(b.lrs[i]), eps = static_cast<MT>(epsilon);
    const MT rho = static_cast<MT>(rho_);
    return [=](MT& w, MT g, const std::array<MT*, 2>& s, int64_t j) {
      const MT asg = rho * s[0][j] + (MT(1) - rho) * g * g;
      s[0][j] = asg;
      const MT update = -std::sqrt((s[1][j] + eps) / (asg + eps)) * g;
      s[1][j] = rho * s[1][j] + (MT(1) - rho) * update * update;
      w += lr * update;
    };
  });
}

void adamax_update(const OptimizerBatch& b, const BetaPows& pows, double beta1_, double beta2_,
                   double epsilon) {
  check_pows(pows.beta1_pow, b, "adamax", "beta1_pow");
  elementwise_update<2>(b, "adamax", [&](auto mt, int64_t i) {
    using MT = decltype(mt);
    const MT b1 = static_cast<MT>(beta1_), b2 = static_cast<MT>(beta2_);
    const MT eps = static_cast<MT>(epsilon);
    const MT lr_t = static_cast<MT>(b.lrs[i]) / (MT(1) - pow_value<MT>(pows.beta1_pow, i));
    return [=](MT& w, MT g, const std::array<MT*, 2>& s, int64_t j) {
      const MT m = b1 * s[0][j] + (MT(1) - b1) * g;
      const MT inf = std::max(b2 * s[1][j] + eps, std::abs(g));
      s[0][j] = m;
      s[1][j] = inf;
      w -= lr_t * m / inf;
    };
  });
  advance_pows(pows.beta1_pow, beta1_);
}

void nadam_update(const OptimizerBatch& b, double beta1_, double beta2_, double epsilon,
                  double momentum_decay) {
  elementwise_update<5>(b, "nadam", [&](auto mt, int64_t i) {
    using MT = decltype(mt);
    const MT b1 = static_cast<MT>(beta1_), b2 = static_cast<MT>(beta2_);
    const MT eps = static_cast<MT>(epsilon), psi = static_cast<MT>(momentum_decay);
    const MT lr = static_cast<MT>(b.lrs[i]), base = static_cast<MT>(0.96);
    return [=](MT& w, MT g, const std::array<MT*, 5>& s, int64_t j) {
      const MT decay_pow = s[0][j] * base;  // 0.96^t
      const MT mu = b1 * (MT(1) - MT(0.5) * std::pow(decay_pow, psi));
      const MT mu_next = b1 * (MT(1) - MT(0.5) * std::pow(decay_pow * base, psi));
      const MT mu_product = s[2][j] * mu;
      const MT b2_pow = s[1][j] * b2;
      const MT m1 = b1 * s[3][j] + (MT(1) - b1) * g;
      const MT m2 = b2 * s[4][j] + (MT(1) - b2) * g * g;
      s[0][j] = decay_pow;
      s[1][j] = b2_pow;
      s[2][j] = mu_product;
      s[3][j] = m1;
      s[4][j] = m2;
      const MT m_hat = mu_next * m1 / (MT(1) - mu_product * mu_next) +
                       (MT(1) - mu) * g / (MT(1) - mu_product);
      const MT v_hat = m2 / (MT(1) - b2_pow);
      w -= lr * m_hat / (std::sqrt(v_hat) + eps);
    };
  });
}

void radam_update(const OptimizerBatch& b, double beta1_, double beta2_, double epsilon) {
  elementwise_update<5>(b, "radam", [&](auto mt, int64_t i) {
    using MT = decltype(mt);
    const MT b1 = static_cast<MT>(beta1_), b2 = static_cast<MT>(beta2_);
    const MT eps = static_cast<MT>(epsilon), lr = static_cast<MT>(b.lrs[i]);
    const MT rho_inf = MT(2) / (MT(1) - b2) - MT(1);
    return [=](MT& w, MT g, const std::array<MT*, 5>& s, int64_t j) {
      const MT b1_pow = s[0][j] * b1, prev_b2_pow = s[1][j], b2_pow = prev_b2_pow * b2;
      // t b2^t / (1 - b2^t) from its previous value, without storing t.
      const MT rho = (s[2][j] * (MT(1) - prev_b2_pow) * b2 + b2_pow) / (MT(1) - b2_pow);
      const MT m1 = b1 * s[3][j] + (MT(1) - b1) * g;
      const MT m2 = b2 * s[4][j] + (MT(1) - b2) * g * g;
      s[0][j] = b1_pow;
      s[1][j] = b2_pow;
      s[2][j] = rho;
      s[3][j] = m1;
      s[4][j] = m2;
      const MT m_hat = m1 / (MT(1) - b1_pow);
      const MT rho_t = rho_inf - MT(2) * rho;
      MT step = lr * m_hat;
      if (rho_t > MT(5)) {
        const MT l = std::sqrt(MT(1) - b2_pow) / (std::sqrt(m2) + eps);
        const MT r = std::sqrt((rho_t - MT(4)) * (rho_t - MT(2)) * rho_inf /
                               ((rho_inf - MT(4)) * (rho_inf - MT(2)) * rho_t));
        step = step * r * l;
      }
      w -= step;
    };
  });
}

void asgd_update(const OptimizerBatch& b, const std::vector<double>& count) {
  OAR_ENFORCE_ARG(count.size() == b.params.size(), "asgd: expected one count per parameter, got ",
                  count.size());
  for (double c : count) OAR_ENFORCE_ARG(c >= 1, "asgd: counts must be >= 1, got ", c);
  elementwise_update<2>(b, "asgd", [&](auto mt, int64_t i) {
    using MT = decltype(mt);
    const MT lr = static_cast<MT>(b.lrs[i]), n = static_cast<MT>(count[i]);
    return [=](MT& w, MT g, const std::array<MT*, 2>& s, int64_t j) {
      const MT d = s[0][j] - s[1][j] + g;
      s[0][j] = d;
      s[1][j] = g;
      w -= lr * d / n;
    };
  });
}

void rprop_update(const OptimizerBatch& b, double lr_min_, double lr_max_, double eta_negative,
                  double eta_positive) {
  elementwise_update<2>(b, "rprop", [&](auto mt, int64_t) {
    using MT = decltype(mt);
    const MT lr_min = static_cast<MT>(lr_min_), lr_max = static_cast<MT>(lr_max_);
    const MT eta_neg = static_cast<MT>(eta_negative), eta_pos = static_cast<MT>(eta_positive);
    return [=](MT& w, MT g, const std::array<MT*, 2>& s, int64_t j) {
      const MT trend = g * s[0][j];
      MT rate = s[1][j];
      if (trend > MT(0)) {
        rate = std::min(rate * eta_pos, lr_max);
      } else if (trend < MT(0)) {
        rate = std::max(rate * eta_neg, lr_min);
        g = MT(0);  // the sign flipped: skip this step and forget the gradient
      }
      s[0][j] = g;
      s[1][j] = rate;
      w -= static_cast<MT>((g > MT(0)) - (g < MT(0))) * rate;
    };
  });
}

void lamb_update(const OptimizerBatch& b, const BetaPows& pows, double beta1_, double beta2_,
                 double epsilon, const std::vector<double>& decay, bool always_adapt) {
  const char* op = "lamb";
  check_batch(b, op, 2);
  check_pows(pows.beta1_pow, b, op, "beta1_pow");
  check_pows(pows.beta2_pow, b, op, "beta2_pow");
  OAR_ENFORCE_ARG(decay.size() == b.params.size(), op,
                  ": expected one weight decay per parameter, got ", decay.size());
  const std::vector<Chunk> chunks = chunks_of(b.params);
  // Phase 1 updates the moments and sums ||w||^2 and ||r||^2 per chunk, where
  // r = m_hat / (sqrt(v_hat) + eps) + decay * w; phase 2 recomputes r from the stored moments
  // (bit-identical) and steps by lr * trust_ratio * r. Partial sums are reduced in chunk order,
  // so the result does not depend on the thread count.
  std::vector<double> w_sq(chunks.size()), r_sq(chunks.size());
  auto with_chunk = [&](const Chunk& c, auto&& body) {
    dispatch_param(b.params[c.param].dtype(), op, [&](auto ttag, auto mtag) {
      using T = decltype(ttag);
      using MT = decltype(mtag);
      const int64_t i = c.param;
      T* p = b.params[i].template data<T>();
      const T* g = b.grads[i].template data<T>();
      MT* m1 = b.states[0][i].template data<MT>();
      MT* m2 = b.states[1][i].template data<MT>();
      MT* master = nullptr;
      if constexpr (!std::is_same_v<T, double>)
        if (!b.masters.empty() && b.masters[i].defined()) master = b.masters[i].template data<float>();
      const MT b1p = pow_value<MT>(pows.beta1_pow, i), b2p = pow_value<MT>(pows.beta2_pow, i);
      const MT wd = static_cast<MT>(decay[i]), eps = static_cast<MT>(epsilon);
      auto weight = [=](int64_t j) { return master ? master[j] : static_cast<MT>(p[j]); };
      auto ratio_div = [=](MT w, int64_t j) {
        const MT m_hat = m1[j] / (MT(1) - b1p), v_hat = m2[j] / (MT(1) - b2p);
        return m_hat / (std::sqrt(v_hat) + eps) + wd * w;
      };
      body(MT{}, p, g, m1, m2, master, weight, ratio_div);
    });
  };
  for_each_chunk(chunks, [&](const Chunk& c) {
    with_chunk(c, [&](auto mt, auto*, const auto* g, auto* m1, auto* m2, auto*, auto weight,
                      auto ratio_div) {
      using MT = decltype(mt);
      const int64_t i = c.param;
      const MT b1 = static_cast<MT>(beta1_), b2 = static_cast<MT>(beta2_);
      const MT l1 = static_cast<MT>(b.l1[i]), l2 = static_cast<MT>(b.l2[i]);
      const MT scale = static_cast<MT>(grad_scale_of(b, i));
      double ws = 0, rs = 0;
      for (int64_t j = c.begin; j < c.end; ++j) {
        const MT w = weight(j);
        MT gv = static_cast<MT>(g[j]);
        gv = gv * scale + l1 * static_cast<MT>((w > MT(0)) - (w < MT(0))) + l2 * w;
        m1[j] = b1 * m1[j] + (MT(1) - b1) * gv;
        m2[j] = b2 * m2[j] + (MT(1) - b2) * gv * gv;
        const MT r = ratio_div(w, j);
        ws += static_cast<double>(w) * w;
        rs += static_cast<double>(r) * r;
      }
      const size_t k = &c - chunks.data();
      w_sq[k] = ws;
      r_sq[k] = rs;
    });
  });
  std::vector<double> w_norm(b.params.size()), r_norm(b.params.size());
  for (size_t k = 0; k < chunks.size(); ++k) {
    w_norm[chunks[k].param] += w_sq[k];
    r_norm[chunks[k].param] += r_sq[k];
  }
  for_each_chunk(chunks, [&](const Chunk& c) {
    with_chunk(c, [&](auto mt, auto* p, const auto*, auto*, auto*, auto* master, auto weight,
                      auto ratio_div) {
      using MT = decltype(mt);
      using T = std::remove_pointer_t<decltype(p)>;
      const int64_t i = c.param;
      const double wn = std::sqrt(w_norm[i]), rn = std::sqrt(r_norm[i]);
      // Paddle: the trust ratio is 1 when a norm is zero, or without decay unless always_adapt.
      MT ratio = MT(1);
      if ((always_adapt || decay[i] != 0) && wn > 0 && rn > 0) ratio = static_cast<MT>(wn / rn);
      const MT step = static_cast<MT>(b.lrs[i]) * ratio;
      for (int64_t j = c.begin; j < c.end; ++j) {
        MT w = weight(j);
        w -= step * ratio_div(w, j);
        if (master) master[j] = w;
        p[j] = static_cast<T>(w);
      }
    });
  });
  for (const Tensor& p : b.params) p.bump_version();
  advance_pows(pows.beta1_pow, beta1_);
  advance_pows(pows.beta2_pow, beta2_);
}

}  // namespace oar::kernels
