// Fused optimizer updates: optimizer_sgd, optimizer_momentum, optimizer_adam (AdamW is adam with
// its decoupled decay). One kernel call updates one parameter tensor in place: one launch of a
// grid-stride elementwise kernel (Adam adds a one-thread launch that advances the beta powers
// after the update has read them), instead of the ~15-25 op launches of the update written with
// ops. oar.optimizer launches them through oar._C._launch_kernel when the device has them.
//
// Contract (the same as plugins/custom_cpu/optimizer.cc, the reference):
// - an in-place kernel: outputs are the SAME tensors as the inputs they correspond to (oar
//   passes them aliased and contiguous). Every element is read from the input and written to
//   the output at the same index (by the same thread), so the kernel is also correct when they
//   do not alias;
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
// - arithmetic, the host kernels' (oar/kernels/cpu/optimizer.cc) order of operations, in MT
//   (scalars converted from double to MT once): w is the master weight when present, else
//   MT(param); the gradient the rule sees is MT(grad) when l1 == l2 == 0 and grad_scale ==
//   rescale == 1, else (g * grad_scale + l1 * sign(w)) * rescale + l2 * w (rescale: momentum's
//   rescale_grad, else 1). Then
//     sgd:      w -= lr * g
//     momentum: v = mu * v + g; w -= use_nesterov ? (g + mu * v) * lr : lr * v
//     adam:     lr_t = lr * sqrt(1 - b2p) / (1 - b1p), eps_t = epsilon * sqrt(1 - b2p) from the
//               beta powers read before the update; [w -= lr * decay * w;]
//               m1 = b1 m1 + (1 - b1) g; m2 = b2 m2 + (1 - b2) g g; [m2max = max(m2max, m2);]
//               w -= lr_t * (m1 / (sqrt(m2 or m2max) + eps_t)); then b1p *= b1, b2p *= b2.
//   The master (when present) receives w, the parameter T(w) rounded to nearest even. nvcc
//   contracts multiply-adds into FMAs as the host compiler may, so results agree with the host
//   to rounding, not bit for bit.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "plugins/cuda/common.h"
#include "plugins/cuda/dtype.cuh"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

constexpr int kThreads = 256;

// The K state tensors of one update (read from `in`, written to `out`).
template <int K, class MT>
struct States {
  const MT* in[K > 0 ? K : 1];
  MT* out[K > 0 ? K : 1];
};

template <class MT>
struct SgdRule {
  MT lr;
  __device__ SgdRule ready() const { return *this; }
  __device__ __forceinline__ void operator()(MT& w, MT g, const States<0, MT>&, int64_t) const {
    w -= lr * g;
  }
};

template <class MT>
struct MomentumRule {
  MT lr, mu;
  bool nesterov;
  __device__ MomentumRule ready() const { return *this; }
  __device__ __forceinline__ void operator()(MT& w, MT g, const States<1, MT>& s, int64_t j) const {
    const MT v = mu * s.in[0][j] + g;
    s.out[0][j] = v;
    const MT plain_step = lr * v, nesterov_step = (g + mu * v) * lr;
    w -= nesterov ? nesterov_step : plain_step;
  }
};

template <class MT, int K>
struct AdamRule {
  MT b1, b2, lr, coeff, eps;
  const MT* b1p;
  const MT* b2p;
  MT lr_t = 0, eps_t = 0;
  // The bias corrections folded into the step size and epsilon, from the beta powers as they
  // are before this update (every thread reads them; they advance in a later launch).
  __device__ AdamRule ready() const {
    AdamRule r = *this;
    const MT p1 = *b1p, p2 = *b2p;
    r.lr_t = lr * sqrt(MT(1) - p2) / (MT(1) - p1);
    r.eps_t = eps * sqrt(MT(1) - p2);
    return r;
  }
  __device__ __forceinline__ void operator()(MT& w, MT g, const States<K, MT>& s, int64_t j) const {
    if (coeff != MT(0)) w -= lr * coeff * w;
    const MT m1 = b1 * s.in[0][j] + (MT(1) - b1) * g;
    const MT m2 = b2 * s.in[1][j] + (MT(1) - b2) * g * g;
    s.out[0][j] = m1;
    s.out[1][j] = m2;
    MT denom = m2;
    if constexpr (K == 3) {
      const MT prev = s.in[2][j];
      denom = prev < m2 ? m2 : prev;  // std::max(prev, m2), as the host
      s.out[2][j] = denom;
    }
    w -= lr_t * (m1 / (sqrt(denom) + eps_t));
  }
};

template <class T, class MT, int K, bool kReg, bool kMaster, class Rule>
__global__ void __launch_bounds__(kThreads)
    optim_kernel(const T* __restrict__ g, const T* pin, T* pout, const float* min, float* mout,
                 States<K, MT> s, int64_t n, MT l1, MT l2, MT rescale, MT scale, Rule rule0) {
  const Rule rule = rule0.ready();
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < n; j += step) {
    MT w;
    if constexpr (kMaster) w = min[j];
    else w = static_cast<MT>(to_compute(pin[j]));
    MT gv = static_cast<MT>(to_compute(g[j]));
    if constexpr (kReg) {
      const MT sign = static_cast<MT>((w > MT(0)) - (w < MT(0)));
      gv = (gv * scale + l1 * sign) * rescale + l2 * w;
    }
    rule(w, gv, s, j);
    if constexpr (kMaster) mout[j] = w;
    pout[j] = convert<T>(w);
  }
}

// beta_pow *= beta in the compute type (float: the beta rounded to float first, as the host).
template <class MT>
__global__ void advance_pows_kernel(const MT* p1, const MT* p2, MT* q1, MT* q2, double beta1, double beta2) {
  *q1 = *p1 * static_cast<MT>(beta1);
  *q2 = *p2 * static_cast<MT>(beta2);
}

struct Scalars {
  double lr = 0, l1 = 0, l2 = 0, grad_scale = 1, rescale = 1;
};

unsigned blocks_for_n(int device, int64_t n) {
  const int64_t need = (n + kThreads - 1) / kThreads;
  const int64_t cap = static_cast<int64_t>(sm_count(device)) * 8;
  return static_cast<unsigned>(need < 1 ? 1 : (need < cap ? need : cap));
}

template <class T, class MT, int K, class Rule>
OarStatus launch_update(const OarKernelContext* ctx, cudaStream_t stream, const OarTensor& param,
                        const OarTensor& grad, const OarTensor* master, const OarTensor* master_out,
                        const States<K, MT>& s, const Scalars& c, const Rule& rule) {
  const int64_t n = param.numel;
  const T* pin = static_cast<const T*>(param.data);
  T* pout = static_cast<T*>(ctx->outputs[0].data);
  const T* g = static_cast<const T*>(grad.data);
  const MT l1 = static_cast<MT>(c.l1), l2 = static_cast<MT>(c.l2);
  const MT rescale = static_cast<MT>(c.rescale), scale = static_cast<MT>(c.grad_scale);
  const bool plain = c.l1 == 0 && c.l2 == 0 && c.rescale == 1.0 && c.grad_scale == 1.0;
  const unsigned blocks = blocks_for_n(ctx->device_id, n);
  if constexpr (std::is_same_v<MT, float>) {
    if (master != nullptr) {
      const float* min = static_cast<const float*>(master->data);
      float* mout = static_cast<float*>(master_out->data);
      if (plain)
        optim_kernel<T, MT, K, false, true><<<blocks, kThreads, 0, stream>>>(g, pin, pout, min, mout, s, n, l1, l2, rescale, scale, rule);
      else
        optim_kernel<T, MT, K, true, true><<<blocks, kThreads, 0, stream>>>(g, pin, pout, min, mout, s, n, l1, l2, rescale, scale, rule);
      return check_launch(ctx, ctx->op);
    }
  }
  if (plain)
    optim_kernel<T, MT, K, false, false><<<blocks, kThreads, 0, stream>>>(g, pin, pout, nullptr, nullptr, s, n, l1, l2, rescale, scale, rule);
  else
    optim_kernel<T, MT, K, true, false><<<blocks, kThreads, 0, stream>>>(g, pin, pout, nullptr, nullptr, s, n, l1, l2, rescale, scale, rule);
  return check_launch(ctx, ctx->op);
}

int32_t compute_dtype(int32_t dtype) { return dtype == OAR_FLOAT64 ? OAR_FLOAT64 : OAR_FLOAT32; }

// A present, contiguous tensor of `dtype` with n elements; false with a message otherwise.
bool expect_like(const OarKernelContext* ctx, const OarTensor& t, int32_t dtype, int64_t n, const char* role) {
  if (t.ndim < 0) {
    fail(ctx, "%s on gpu: '%s' is absent", ctx->op, role);
    return false;
  }
  if (t.dtype != dtype || t.numel != n || !is_contiguous(t)) {
    fail(ctx, "%s on gpu: '%s' must be a contiguous %s tensor of %lld elements (got %s, %lld)", ctx->op,
         role, dtype_name(dtype), static_cast<long long>(n), dtype_name(t.dtype),
         static_cast<long long>(t.numel));
    return false;
  }
  return true;
}

double attr_float(const OarKernelContext* ctx, const char* name, double fallback) {
  double v = fallback;
  attr_scalar(ctx, name, &v);
  return v;
}

// The checked common part: inputs param, grad, `num_states` states from input 2 (the last one
// optional when last_optional), master at input `master_at`; outputs param, the states, master.
struct Checked {
  bool ok = false;
  bool has_last = true;  // the optional last state is present
  const OarTensor* master = nullptr;
  const OarTensor* master_out = nullptr;
  Scalars c;
};

Checked check_common(const OarKernelContext* ctx, int num_states, const char* const* names,
                     bool last_optional, int master_at, int num_inputs, int num_outputs) {
  Checked r;
  if (ctx->num_inputs != num_inputs || ctx->num_outputs != num_outputs) {
    fail(ctx, "%s on gpu expects %d inputs and %d outputs, got %d and %d", ctx->op, num_inputs,
         num_outputs, ctx->num_inputs, ctx->num_outputs);
    return r;
  }
  const OarTensor& p = ctx->inputs[0];
  if (p.ndim < 0) {
    fail(ctx, "%s on gpu: 'param' is absent", ctx->op);
    return r;
  }
  const int32_t T = p.dtype, MT = compute_dtype(T);
  const int64_t n = p.numel;
  if (!expect_like(ctx, p, T, n, "param") || !expect_like(ctx, ctx->outputs[0], T, n, "param (out)") ||
      !expect_like(ctx, ctx->inputs[1], T, n, "grad"))
    return r;
  for (int k = 0; k < num_states; ++k) {
    const OarTensor& in = ctx->inputs[2 + k];
    const OarTensor& out = ctx->outputs[1 + k];
    if (in.ndim < 0 && last_optional && k == num_states - 1 && out.ndim < 0) {
      r.has_last = false;
      continue;
    }
    if (!expect_like(ctx, in, MT, n, names[k]) || !expect_like(ctx, out, MT, n, names[k])) return r;
  }
  const OarTensor& m = ctx->inputs[master_at];
  const OarTensor& mo = ctx->outputs[1 + num_states];
  if (m.ndim >= 0 || mo.ndim >= 0) {
    if (T == OAR_FLOAT64) {
      fail(ctx, "%s on gpu: a float64 parameter has no master weight", ctx->op);
      return r;
    }
    if (!expect_like(ctx, m, OAR_FLOAT32, n, "master") || !expect_like(ctx, mo, OAR_FLOAT32, n, "master (out)"))
      return r;
    r.master = &m;
    r.master_out = &mo;
  }
  if (!attr_scalar(ctx, "lr", &r.c.lr)) {
    fail(ctx, "%s on gpu: attribute 'lr' is missing", ctx->op);
    return r;
  }
  r.c.l1 = attr_float(ctx, "l1", 0.0);
  r.c.l2 = attr_float(ctx, "l2", 0.0);
  r.c.grad_scale = attr_float(ctx, "grad_scale", 1.0);
  r.ok = true;
  return r;
}

bool required(const OarKernelContext* ctx, const char* name, double* v) {
  if (attr_scalar(ctx, name, v)) return true;
  fail(ctx, "%s on gpu: attribute '%s' is missing", ctx->op, name);
  return false;
}

template <int K, class MT>
States<K, MT> states_of(const OarKernelContext* ctx) {
  States<K, MT> s{};
  for (int k = 0; k < K; ++k) {
    s.in[k] = static_cast<const MT*>(ctx->inputs[2 + k].data);
    s.out[k] = static_cast<MT*>(ctx->outputs[1 + k].data);
  }
  return s;
}

}  // namespace

OarStatus k_optimizer_sgd(const OarKernelContext* ctx) {
  static const char* const kNone[] = {nullptr};
  const Checked ch = check_common(ctx, 0, kNone, false, 2, 3, 2);
  if (!ch.ok) return OAR_STATUS_ERROR;
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (ctx->inputs[0].numel == 0) return OAR_STATUS_OK;
  OarStatus status = OAR_STATUS_OK;
  if (!dispatch(FloatTypes{}, ctx->inputs[0].dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using MT = compute_t<T>;
        const SgdRule<MT> rule{static_cast<MT>(ch.c.lr)};
        status = launch_update<T, MT, 0>(ctx, stream, ctx->inputs[0], ctx->inputs[1], ch.master,
                                         ch.master_out, states_of<0, MT>(ctx), ch.c, rule);
      }))
    return unsupported(ctx, ctx->inputs[0].dtype);
  return status;
}

OarStatus k_optimizer_momentum(const OarKernelContext* ctx) {
  static const char* const kStates[] = {"velocity"};
  Checked ch = check_common(ctx, 1, kStates, false, 3, 4, 3);
  if (!ch.ok) return OAR_STATUS_ERROR;
  double mu = 0;
  if (!required(ctx, "mu", &mu)) return OAR_STATUS_ERROR;
  ch.c.rescale = attr_float(ctx, "rescale_grad", 1.0);
  const bool nesterov = attr_bool(ctx, "use_nesterov", false);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  if (ctx->inputs[0].numel == 0) return OAR_STATUS_OK;
  OarStatus status = OAR_STATUS_OK;
  if (!dispatch(FloatTypes{}, ctx->inputs[0].dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using MT = compute_t<T>;
        const MomentumRule<MT> rule{static_cast<MT>(ch.c.lr), static_cast<MT>(mu), nesterov};
        status = launch_update<T, MT, 1>(ctx, stream, ctx->inputs[0], ctx->inputs[1], ch.master,
                                         ch.master_out, states_of<1, MT>(ctx), ch.c, rule);
      }))
    return unsupported(ctx, ctx->inputs[0].dtype);
  return status;
}

OarStatus k_optimizer_adam(const OarKernelContext* ctx) {
  static const char* const kStates[] = {"moment1", "moment2", "moment2_max"};
  const Checked ch = check_common(ctx, 3, kStates, true, 5, 8, 7);
  if (!ch.ok) return OAR_STATUS_ERROR;
  const int32_t mt = compute_dtype(ctx->inputs[0].dtype);
  if (!expect_like(ctx, ctx->inputs[6], mt, 1, "beta1_pow") ||
      !expect_like(ctx, ctx->inputs[7], mt, 1, "beta2_pow") ||
      !expect_like(ctx, ctx->outputs[5], mt, 1, "beta1_pow (out)") ||
      !expect_like(ctx, ctx->outputs[6], mt, 1, "beta2_pow (out)"))
    return OAR_STATUS_ERROR;
  double beta1 = 0, beta2 = 0, epsilon = 0;
  if (!required(ctx, "beta1", &beta1) || !required(ctx, "beta2", &beta2) ||
      !required(ctx, "epsilon", &epsilon))
    return OAR_STATUS_ERROR;
  const double decay = attr_float(ctx, "decoupled_decay", 0.0);
  cudaStream_t stream;
  if (OarStatus st = begin_kernel(ctx, &stream)) return st;
  OarStatus status = OAR_STATUS_OK;
  if (!dispatch(FloatTypes{}, ctx->inputs[0].dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using MT = compute_t<T>;
        const MT* p1 = static_cast<const MT*>(ctx->inputs[6].data);
        const MT* p2 = static_cast<const MT*>(ctx->inputs[7].data);
        if (ctx->inputs[0].numel > 0) {
          auto run = [&](auto k) {
            constexpr int K = decltype(k)::value;
            const AdamRule<MT, K> rule{static_cast<MT>(beta1), static_cast<MT>(beta2),
                                       static_cast<MT>(ch.c.lr), static_cast<MT>(decay),
                                       static_cast<MT>(epsilon), p1, p2};
            status = launch_update<T, MT, K>(ctx, stream, ctx->inputs[0], ctx->inputs[1], ch.master,
                                             ch.master_out, states_of<K, MT>(ctx), ch.c, rule);
          };
          if (ch.has_last) run(std::integral_constant<int, 3>{});
          else run(std::integral_constant<int, 2>{});
          if (status != OAR_STATUS_OK) return;
        }
        // After the update has read them (stream order).
        advance_pows_kernel<MT><<<1, 1, 0, stream>>>(p1, p2, static_cast<MT*>(ctx->outputs[5].data),
                                                     static_cast<MT*>(ctx->outputs[6].data), beta1, beta2);
        status = check_launch(ctx, "optimizer_adam (beta powers)");
      }))
    return unsupported(ctx, ctx->inputs[0].dtype);
  return status;
}

}  // namespace oar_cuda
