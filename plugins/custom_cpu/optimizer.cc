// Fused optimizer updates: optimizer_sgd, optimizer_momentum, optimizer_adam (AdamW is adam
// with its decoupled decay). One kernel call updates one parameter tensor in place, as oar's
// host kernels (oar/kernels/cpu/optimizer.cc) update each parameter of a batch; oar.optimizer
// launches them through oar._C._launch_kernel when the parameter's device has them.
//
// Contract (the same in plugins/cuda/optimizer.cu):
// - an in-place kernel: outputs are the SAME tensors as the inputs they correspond to (oar
//   passes them aliased and contiguous). Every element is read from the input and written to
//   the output at the same index, so the kernel is also correct when they do not alias;
// - the parameter's dtype (the kernel's key) is float16, bfloat16, float32 or float64; the
//   gradient has the parameter's dtype and numel; the states and beta powers have the compute
//   type MT (float64 for a float64 parameter, float32 otherwise); the optional master weight is
//   float32 (a float16/bfloat16 parameter's multi-precision copy; ndim -1 when absent). Every
//   tensor is contiguous with the parameter's numel (beta powers: one element);
// - inputs (absent optionals: ndim -1), and outputs (the in-place tensors, in input order):
//     optimizer_sgd:      param, grad, master?                         -> param, master?
//     optimizer_momentum: param, grad, velocity, master?               -> param, velocity, master?
//     optimizer_adam:     param, grad, moment1, moment2, moment2_max?, master?, beta1_pow,
//                         beta2_pow -> param, moment1, moment2, moment2_max?, master?, beta1_pow,
//                         beta2_pow (AMSGrad when moment2_max is present);
// - attributes (floats): lr; l1 (0), l2 (0), grad_scale (1): coupled decay and the clip factor;
//   momentum: mu, use_nesterov (bool, false), rescale_grad (1); adam: beta1, beta2, epsilon,
//   decoupled_decay (0: none; AdamW's w -= lr * decoupled_decay * w before the step);
// - arithmetic, the host kernels' exactly (same order of operations, in MT; scalars converted
//   from double to MT once): w is the master weight when present, else MT(param); the gradient
//   the rule sees is MT(grad) when l1 == l2 == 0 and grad_scale == rescale == 1, else
//   (g * grad_scale + l1 * sign(w)) * rescale + l2 * w (rescale: momentum's rescale_grad, else
//   1). Then
//     sgd:      w -= lr * g
//     momentum: v = mu * v + g; w -= use_nesterov ? (g + mu * v) * lr : lr * v
//     adam:     lr_t = lr * sqrt(1 - b2p) / (1 - b1p), eps_t = epsilon * sqrt(1 - b2p) from the
//               beta powers read before the update; [w -= lr * decay * w;]
//               m1 = b1 m1 + (1 - b1) g; m2 = b2 m2 + (1 - b2) g g; [m2max = max(m2max, m2);]
//               w -= lr_t * (m1 / (sqrt(m2 or m2max) + eps_t)); then b1p *= b1, b2p *= b2.
//   The master (when present) receives w, the parameter T(w).
// The work runs on the kernel's stream (the beta powers are read there, after earlier work).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"

namespace oar_custom_cpu {
namespace {

// The tensors and scalars of one update, checked.
struct OptimArgs {
  TensorDesc param, grad;
  std::vector<TensorDesc> states;          // K state tensors (inputs)
  std::vector<TensorDesc> state_outs;      // their outputs
  std::optional<TensorDesc> master, master_out;
  TensorDesc out;                          // the parameter's output
  double lr = 0, l1 = 0, l2 = 0, grad_scale = 1, rescale = 1;
};

double required_float(const OarKernelContext* ctx, const char* name) {
  if (find_attr(ctx, name) == nullptr) fail("attribute '%s' is missing", name);
  return float_attr(ctx, name, 0.0);
}

int32_t compute_dtype(int32_t dtype) { return dtype == OAR_FLOAT64 ? OAR_FLOAT64 : OAR_FLOAT32; }

// A contiguous tensor of `dtype` with n elements.
void expect_like(const TensorDesc& t, int32_t dtype, int64_t n, const char* role) {
  expect_dtype(t, dtype, role);
  if (t.numel != n)
    fail("'%s' has %lld elements; expected %lld", role, static_cast<long long>(t.numel), static_cast<long long>(n));
  expect_contiguous(t, role);
}

// An output and the input it writes: same dtype and numel, contiguous.
TensorDesc output_like(const OarKernelContext* ctx, int i, const TensorDesc& in, const char* role) {
  if (i >= ctx->num_outputs || ctx->outputs == nullptr)
    fail("expects output #%d (%s); got %d outputs", i, role, ctx->num_outputs);
  TensorDesc t = describe(ctx, ctx->outputs[i], role);
  expect_like(t, in.dtype, in.numel, role);
  return t;
}

// Reads and checks the common part. Inputs: param, grad, the K states from input 2 (the last
// one may be absent when last_optional), the master at input `master_at`; outputs: param, the K
// states, the master.
OptimArgs read_args(const OarKernelContext* ctx, int num_states, const char* const* state_names,
                    bool last_optional, int master_at, int num_inputs, int num_outputs) {
  if (ctx->num_inputs != num_inputs || ctx->num_outputs != num_outputs)
    fail("expects %d inputs and %d outputs, got %d and %d", num_inputs, num_outputs, ctx->num_inputs,
         ctx->num_outputs);
  OptimArgs a;
  a.param = input(ctx, 0, "param");
  const int32_t T = a.param.dtype, MT = compute_dtype(T);
  if (T != OAR_FLOAT16 && T != OAR_BFLOAT16 && T != OAR_FLOAT32 && T != OAR_FLOAT64)
    unsupported("no %s kernel for %s (float16, bfloat16, float32, float64 have one)", op_name(ctx), dtype_name(T));
  const int64_t n = a.param.numel;
  expect_contiguous(a.param, "param");
  a.grad = input(ctx, 1, "grad");
  expect_like(a.grad, T, n, "grad");
  for (int k = 0; k < num_states; ++k) {
    if (ctx->inputs[2 + k].ndim < 0) {  // moment2_max: optional, the last state
      if (!last_optional || k != num_states - 1 || ctx->outputs[1 + k].ndim >= 0)
        fail("'%s' is absent", state_names[k]);
      continue;
    }
    a.states.push_back(input(ctx, 2 + k, state_names[k]));
    expect_like(a.states.back(), MT, n, state_names[k]);
    a.state_outs.push_back(output_like(ctx, 1 + k, a.states.back(), state_names[k]));
  }
  a.master = optional_input(ctx, master_at, "master");
  if (a.master) {
    if (T == OAR_FLOAT64) fail("a float64 parameter has no master weight");
    expect_like(*a.master, OAR_FLOAT32, n, "master");
    a.master_out = output_like(ctx, 1 + num_states, *a.master, "master");
  } else if (ctx->outputs[1 + num_states].ndim >= 0) {
    fail("the master output is given without a master input");
  }
  a.out = output_like(ctx, 0, a.param, "param");
  a.lr = required_float(ctx, "lr");
  a.l1 = float_attr(ctx, "l1", 0.0);
  a.l2 = float_attr(ctx, "l2", 0.0);
  a.grad_scale = float_attr(ctx, "grad_scale", 1.0);
  return a;
}

// The host kernel's loop (run_chunk) over all n elements: rule(w, g, s, j) updates the weight w
// (compute type MT) with the regularised gradient g and the K states, read from `in` and
// written to `out`.
template <size_t K, typename MT>
struct StatePtrs {
  std::array<const MT*, K> in{};
  std::array<MT*, K> out{};
};

template <size_t K, typename T, typename MT, typename Rule>
void run_update(const T* pin, T* pout, const T* g, const float* min, float* mout, const StatePtrs<K, MT>& s,
                int64_t n, double l1_, double l2_, double rescale_, double scale_, const Rule& rule) {
  const MT l1 = static_cast<MT>(l1_), l2 = static_cast<MT>(l2_);
  const MT rescale = static_cast<MT>(rescale_), scale = static_cast<MT>(scale_);
  const bool plain = l1_ == 0 && l2_ == 0 && rescale_ == 1.0 && scale_ == 1.0;
  // Branch-free inner loops (one instantiation per case), as the host's.
  auto loop = [&](auto regularised, auto with_master) {
    constexpr bool kReg = decltype(regularised)::value, kMaster = decltype(with_master)::value;
    for (int64_t j = 0; j < n; ++j) {
      MT w;
      if constexpr (kMaster) w = min[j];
      else w = static_cast<MT>(pin[j]);
      MT gv = static_cast<MT>(g[j]);
      if constexpr (kReg) {
        const MT sign = static_cast<MT>((w > MT(0)) - (w < MT(0)));
        gv = (gv * scale + l1 * sign) * rescale + l2 * w;
      }
      rule(w, gv, s, j);
      if constexpr (kMaster) mout[j] = w;
      pout[j] = static_cast<T>(w);
    }
  };
  if constexpr (std::is_same_v<MT, float>) {
    if (min != nullptr) {
      if (plain) loop(std::false_type{}, std::true_type{});
      else loop(std::true_type{}, std::true_type{});
      return;
    }
  }
  if (plain) loop(std::false_type{}, std::false_type{});
  else loop(std::true_type{}, std::false_type{});
}

// Enqueues the update: make_rule(MT{}) (called on the stream) returns the rule, as the host's
// make_rule(MT{}, i); after(MT{}) runs on the stream once the loop is done.
template <size_t K, typename MakeRule, typename After>
void enqueue_update(const OarKernelContext* ctx, const OptimArgs& a, const MakeRule& make_rule, const After& after) {
  if (a.states.size() != K) fail("expects %zu state tensors, got %zu", K, a.states.size());
  auto go = [&](auto ttag, auto mtag) {
    using T = decltype(ttag);
    using MT = decltype(mtag);
    StatePtrs<K, MT> s;
    for (size_t k = 0; k < K; ++k) {
      s.in[k] = a.states[k].template as<const MT>();
      s.out[k] = a.state_outs[k].template as<MT>();
    }
    const T* pin = a.param.as<const T>();
    T* pout = a.out.as<T>();
    const T* g = a.grad.as<const T>();
    const float* min = a.master ? a.master->as<const float>() : nullptr;
    float* mout = a.master ? a.master_out->as<float>() : nullptr;
    const int64_t n = a.param.numel;
    const double l1 = a.l1, l2 = a.l2, rescale = a.rescale, scale = a.grad_scale;
    launch(ctx, [=] {
      run_update<K, T, MT>(pin, pout, g, min, mout, s, n, l1, l2, rescale, scale, make_rule(MT{}));
      after(MT{});
    });
  };
  switch (a.param.dtype) {
    case OAR_FLOAT32: go(float{}, float{}); break;
    case OAR_FLOAT64: go(double{}, double{}); break;
    case OAR_FLOAT16: go(float16_t{}, float{}); break;
    case OAR_BFLOAT16: go(bfloat16_t{}, float{}); break;
    default: unsupported("no %s kernel for %s", op_name(ctx), dtype_name(a.param.dtype));
  }
}

struct NoAfter {
  template <typename MT> void operator()(MT) const {}
};

}  // namespace

// optimizer_sgd: param, grad, master? -> param, master?; lr, l1, l2, grad_scale.
OarStatus optimizer_sgd_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    static const char* const kNoStates[] = {nullptr};
    const OptimArgs a = read_args(ctx, 0, kNoStates, false, 2, 3, 2);
    const double lr_ = a.lr;
    enqueue_update<0>(ctx, a, [=](auto mt) {
      using MT = decltype(mt);
      const MT lr = static_cast<MT>(lr_);
      return [=](MT& w, MT g, const StatePtrs<0, MT>&, int64_t) { w -= lr * g; };
    }, NoAfter{});
  });
}

// optimizer_momentum: param, grad, velocity, master? -> param, velocity, master?; lr, mu,
// use_nesterov, rescale_grad, l1, l2, grad_scale.
OarStatus optimizer_momentum_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    static const char* const kStates[] = {"velocity"};
    OptimArgs a = read_args(ctx, 1, kStates, false, 3, 4, 3);
    a.rescale = float_attr(ctx, "rescale_grad", 1.0);
    const double lr_ = a.lr, mu_ = required_float(ctx, "mu");
    const bool nesterov = bool_attr(ctx, "use_nesterov", false);
    enqueue_update<1>(ctx, a, [=](auto mt) {
      using MT = decltype(mt);
      const MT lr = static_cast<MT>(lr_), mu = static_cast<MT>(mu_);
      // Both steps computed, one selected, as the host's rule.
      return [=](MT& w, MT g, const StatePtrs<1, MT>& s, int64_t j) {
        const MT v = mu * s.in[0][j] + g;
        s.out[0][j] = v;
        const MT plain_step = lr * v, nesterov_step = (g + mu * v) * lr;
        w -= nesterov ? nesterov_step : plain_step;
      };
    }, NoAfter{});
  });
}

// optimizer_adam: param, grad, moment1, moment2, moment2_max?, master?, beta1_pow, beta2_pow ->
// param, moment1, moment2, moment2_max?, master?, beta1_pow, beta2_pow; lr, beta1, beta2,
// epsilon, decoupled_decay, l1, l2, grad_scale.
OarStatus optimizer_adam_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    static const char* const kStates[] = {"moment1", "moment2", "moment2_max"};
    const OptimArgs a = read_args(ctx, 3, kStates, true, 5, 8, 7);
    const int32_t MT = compute_dtype(a.param.dtype);
    const TensorDesc b1p_in = input(ctx, 6, "beta1_pow"), b2p_in = input(ctx, 7, "beta2_pow");
    expect_like(b1p_in, MT, 1, "beta1_pow");
    expect_like(b2p_in, MT, 1, "beta2_pow");
    const TensorDesc b1p_out = output_like(ctx, 5, b1p_in, "beta1_pow");
    const TensorDesc b2p_out = output_like(ctx, 6, b2p_in, "beta2_pow");
    const double lr_ = a.lr, beta1_ = required_float(ctx, "beta1"), beta2_ = required_float(ctx, "beta2");
    const double epsilon = required_float(ctx, "epsilon"), decay = float_attr(ctx, "decoupled_decay", 0.0);
    const char *p1 = b1p_in.data, *p2 = b2p_in.data;
    char *q1 = b1p_out.data, *q2 = b2p_out.data;
    auto make_rule3 = [=](auto mt) {
      using MT = decltype(mt);
      const MT b1 = static_cast<MT>(beta1_), b2 = static_cast<MT>(beta2_);
      const MT b1p = *reinterpret_cast<const MT*>(p1), b2p = *reinterpret_cast<const MT*>(p2);
      const MT lr = static_cast<MT>(lr_);
      const MT coeff = static_cast<MT>(decay);
      // Bias corrections folded into the step size and epsilon, as the host's kernel does.
      const MT lr_t = lr * std::sqrt(MT(1) - b2p) / (MT(1) - b1p);
      const MT eps_t = static_cast<MT>(epsilon) * std::sqrt(MT(1) - b2p);
      return [=](MT& w, MT g, const auto& s, int64_t j) {
        if (coeff != MT(0)) w -= lr * coeff * w;
        const MT m1 = b1 * s.in[0][j] + (MT(1) - b1) * g;
        const MT m2 = b2 * s.in[1][j] + (MT(1) - b2) * g * g;
        s.out[0][j] = m1;
        s.out[1][j] = m2;
        MT denom = m2;
        if constexpr (std::tuple_size_v<std::decay_t<decltype(s.in)>> == 3) {
          denom = std::max(s.in[2][j], m2);
          s.out[2][j] = denom;
        }
        w -= lr_t * (m1 / (std::sqrt(denom) + eps_t));
      };
    };
    // The beta powers advance after the update has read them, in the compute type.
    auto advance = [=](auto mt) {
      using MT = decltype(mt);
      if constexpr (std::is_same_v<MT, double>) {
        *reinterpret_cast<double*>(q1) = *reinterpret_cast<const double*>(p1) * beta1_;
        *reinterpret_cast<double*>(q2) = *reinterpret_cast<const double*>(p2) * beta2_;
      } else {
        *reinterpret_cast<float*>(q1) = *reinterpret_cast<const float*>(p1) * static_cast<float>(beta1_);
        *reinterpret_cast<float*>(q2) = *reinterpret_cast<const float*>(p2) * static_cast<float>(beta2_);
      }
    };
    if (a.states.size() == 3) enqueue_update<3>(ctx, a, make_rule3, advance);
    else enqueue_update<2>(ctx, a, make_rule3, advance);
  });
}

}  // namespace oar_custom_cpu
