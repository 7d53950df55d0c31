// Normalisation kernels: layer_norm and batch_norm, forward and backward, float32/float64
// (sums accumulate in float64).
#pragma once
#include <cstdint>

#include "oar/core/tensor.h"

namespace oar::kernels {

// x viewed as [rows, cols] with cols = prod(shape[begin_norm_axis:]). weight/bias (optional,
// numel cols) scale and shift. mean/rstd: [rows] (1 / sqrt(var + epsilon), biased var).
// With rms, the rows are not centred: rstd = 1 / sqrt(mean(x^2) + epsilon) and mean is 0
// (RMSNorm).
void layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double epsilon,
                int64_t begin_norm_axis, const Tensor& out, const Tensor& mean, const Tensor& rstd,
                bool rms = false);
// dx, dweight, dbias (each may be undefined when not wanted).
void layer_norm_grad(const Tensor& x, const Tensor& weight, const Tensor& mean,
                     const Tensor& rstd, const Tensor& grad, int64_t begin_norm_axis,
                     const Tensor& dx, const Tensor& dweight, const Tensor& dbias, bool rms = false);

// The fused residual norm of Paddle's incubate (fused_rms_norm, fused_layer_norm), one pass
// over the rows: h = x + bias + residual_alpha * residual (bias and residual optional), written
// to residual_out, then out = layer_norm(h) (or RMSNorm with rms) with norm_weight/norm_bias.
void fused_norm(const Tensor& x, const Tensor& bias, const Tensor& residual, const Tensor& norm_weight,
                const Tensor& norm_bias, double epsilon, int64_t begin_norm_axis, double residual_alpha,
                bool rms, const Tensor& out, const Tensor& residual_out, const Tensor& mean,
                const Tensor& rstd);

// x viewed as [outer, C, inner] with C = shape[channel_axis]. With use_batch_stats the statistics
// come from x (and running_mean/var are updated in place when `update_running`:
// running = momentum * running + (1 - momentum) * batch, biased variance); otherwise the running
// statistics are used. saved_mean/saved_rstd: [C], the statistics used.
void batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                const Tensor& weight, const Tensor& bias, bool use_batch_stats,
                bool update_running, double momentum, double epsilon, int64_t channel_axis,
                const Tensor& out, const Tensor& saved_mean, const Tensor& saved_rstd);
void batch_norm_grad(const Tensor& x, const Tensor& weight, const Tensor& saved_mean,
                     const Tensor& saved_rstd, const Tensor& grad, bool use_batch_stats,
                     int64_t channel_axis, const Tensor& dx, const Tensor& dweight,
                     const Tensor& dbias);

}  // namespace oar::kernels
