// Fused optimizer updates: one call updates every parameter of a group in place (parameters,
// their states and float32 master weights), parallel over chunks of all tensors at once.
// The rules follow Paddle 3.3's update kernels; oar.optimizer (Python) prepares the lists.
#pragma once
#include <string>
#include <vector>

#include "oar/core/tensor.h"

namespace oar::kernels {

// The tensors and per-parameter numbers of one update call. For parameter i:
//  - params[i] (float16/bfloat16/float32/float64, contiguous) is written in place;
//  - grads[i] has the parameter's shape and dtype;
//  - states[k][i] is the optimizer's k-th state (moment, velocity, ...) in the compute type
//    (float64 for float64 parameters, float32 otherwise), with the parameter's numel;
//  - masters is empty or masters[i] is undefined or a float32 copy of a half parameter: the
//    update then reads and writes the master and stores its rounding in params[i];
//  - lrs[i] is the learning rate (global lr times the parameter's multiplier);
//  - the gradient seen by the rule is (g * grad_scale[i] + l1[i] * sign(w)) * rescale + l2[i] * w:
//    grad_scale is gradient clipping by norm (empty: 1), then coupled weight decay (Paddle
//    applies L1 before Momentum's rescale_grad and L2 after).
struct OptimizerBatch {
  std::vector<Tensor> params, grads, masters;
  std::vector<std::vector<Tensor>> states;
  std::vector<double> lrs, l1, l2, grad_scale;
  double rescale = 1.0;
};

// sum(x * x) of each tensor (any float dtype), accumulated in double; for clipping by norm.
std::vector<double> squared_l2_norms(const std::vector<Tensor>& xs);

// Adam-family bias-correction accumulators: beta1_pow[i], beta2_pow[i] are one-element tensors
// of the compute type, read before the update and multiplied by beta1/beta2 after it.
struct BetaPows {
  std::vector<Tensor> beta1_pow, beta2_pow;
};

// w -= lr * g
void sgd_update(const OptimizerBatch& b);
// states: velocity. v = mu v + g; w -= lr v (nesterov: w -= lr (g + mu v)).
void momentum_update(const OptimizerBatch& b, double mu, bool use_nesterov);
// states: moment1, moment2[, moment2_max when amsgrad]. decay[i] > 0 applies AdamW's decoupled
// decay w -= lr * decay[i] * w before the update (empty: none).
void adam_update(const OptimizerBatch& b, const BetaPows& pows, double beta1, double beta2,
                 double epsilon, bool amsgrad, const std::vector<double>& decay);
// states: moment. m += g^2; w -= lr g / (sqrt(m) + eps).
void adagrad_update(const OptimizerBatch& b, double epsilon);
// states: momentum, mean_square, mean_grad (the last used only when centered).
void rmsprop_update(const OptimizerBatch& b, double rho, double epsilon, double momentum,
                    bool centered);
// states: avg_squared_grad, avg_squared_update.
void adadelta_update(const OptimizerBatch& b, double rho, double epsilon);
// states: moment, inf_norm; pows.beta1_pow only.
void adamax_update(const OptimizerBatch& b, const BetaPows& pows, double beta1, double beta2,
                   double epsilon);
// states: moment1, moment2; decay[i] is the parameter's lamb weight decay.
void lamb_update(const OptimizerBatch& b, const BetaPows& pows, double beta1, double beta2,
                 double epsilon, const std::vector<double>& decay, bool always_adapt);

// states: momentum_decay_pow, beta2_pow, mu_product (per element, as Paddle keeps them),
// moment1, moment2. NAdam: Adam with Nesterov momentum and the momentum schedule
// mu_t = beta1 (1 - 0.5 * (0.96^t)^momentum_decay).
void nadam_update(const OptimizerBatch& b, double beta1, double beta2, double epsilon,
                  double momentum_decay);
// states: beta1_pow, beta2_pow, rho (per element, as Paddle keeps them; rho holds
// t b2^t / (1 - b2^t)), moment1, moment2. RAdam: Adam whose adaptive step is rectified by the
// variance of its second moment, and plain momentum SGD while that is undefined (rho_t <= 5).
void radam_update(const OptimizerBatch& b, double beta1, double beta2, double epsilon);
// states: d (running sum of the stored gradients), y (the slot of this step's stored gradient).
// ASGD: d += g - y; y = g; w -= lr * d / count[i].
void asgd_update(const OptimizerBatch& b, const std::vector<double>& count);
// states: prevs, learning_rates (per element). Rprop: each element's rate grows by eta_positive
// while its gradient keeps its sign and shrinks by eta_negative when it flips (that step is
// skipped); w -= sign(g) * rate. The global learning rate only seeds the rates.
void rprop_update(const OptimizerBatch& b, double lr_min, double lr_max, double eta_negative,
                  double eta_positive);

}  // namespace oar::kernels
