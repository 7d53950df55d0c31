// Shape/dtype rules and argument checks for layer_norm, batch_norm, group_norm, instance_norm
// and normalize.
#pragma once
#include <string>
#include <vector>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// Checks normalized_shape against x's trailing dims and weight/bias; returns the first
// normalised axis.
int64_t layer_norm_begin(const Tensor& x, const IntArray& normalized_shape, const Tensor& weight,
                         const Tensor& bias, double epsilon);
// out like x; mean and rstd [rows] in x's dtype.
std::vector<Meta> layer_norm_base(const char* op, const Tensor& x, const Tensor& weight,
                                  const Tensor& bias, double epsilon, int64_t begin_norm_axis);
// fused_norm: out and residual_out like x, mean and rstd [rows]; bias, norm_weight and norm_bias
// hold prod(shape[begin_norm_axis:]) elements, residual has x's shape.
std::vector<Meta> fused_norm(const char* op, const Tensor& x, const Tensor& bias, const Tensor& residual,
                             const Tensor& norm_weight, const Tensor& norm_bias, double epsilon,
                             int64_t begin_norm_axis, double residual_alpha, bool rms);
// out like x; saved_mean and saved_rstd [C].
std::vector<Meta> batch_norm_base(const char* op, const Tensor& x, const Tensor& running_mean,
                                  const Tensor& running_var, const Tensor& weight,
                                  const Tensor& bias, bool use_batch_stats, bool update_running,
                                  double momentum, double epsilon, int64_t channel_axis);
// Checks; returns whether data_format is channel-last.
bool group_norm(const Tensor& x, int64_t num_groups, double epsilon, const Tensor& weight,
                const Tensor& bias, const std::string& data_format);
void instance_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                   const Tensor& weight, const Tensor& bias, bool use_input_stats,
                   const std::string& data_format);
void normalize(const Tensor& x, double p, int64_t axis, double epsilon);

}  // namespace oar::infer_meta
