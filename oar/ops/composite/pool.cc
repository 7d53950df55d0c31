// Composite ops of the pool family (oar/ops/specs/pool.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include "oar/ops/composite/composite.h"

#include "oar/ops/infer_meta/pool.h"

namespace OAR_COMPOSITE_NAMESPACE {

Tensor max_pool1d(const Tensor& x, const IntArray& kernel_size, const IntArray& stride,
                  const IntArray& padding, bool ceil_mode, const std::string& data_format,
                  const std::string& padding_algorithm) {
  const auto a = infer_meta::pool_args("max_pool1d", 1, x, kernel_size, stride, padding, ceil_mode,
                                       data_format, padding_algorithm);
  return std::get<0>(pool_max(x, a.kernel, a.stride, a.padding, ceil_mode, false, a.channel_last));
}

Tensor max_pool2d(const Tensor& x, const IntArray& kernel_size, const IntArray& stride,
                  const IntArray& padding, bool ceil_mode, const std::string& data_format,
                  const std::string& padding_algorithm) {
  const auto a = infer_meta::pool_args("max_pool2d", 2, x, kernel_size, stride, padding, ceil_mode,
                                       data_format, padding_algorithm);
  return std::get<0>(pool_max(x, a.kernel, a.stride, a.padding, ceil_mode, false, a.channel_last));
}

Tensor max_pool3d(const Tensor& x, const IntArray& kernel_size, const IntArray& stride,
                  const IntArray& padding, bool ceil_mode, const std::string& data_format,
                  const std::string& padding_algorithm) {
  const auto a = infer_meta::pool_args("max_pool3d", 3, x, kernel_size, stride, padding, ceil_mode,
                                       data_format, padding_algorithm);
  return std::get<0>(pool_max(x, a.kernel, a.stride, a.padding, ceil_mode, false, a.channel_last));
}

std::tuple<Tensor, Tensor> max_pool1d_with_index(const Tensor& x, const IntArray& kernel_size,
                                                 const IntArray& stride, const IntArray& padding,
                                                 bool ceil_mode, const std::string& data_format,
                                                 const std::string& padding_algorithm) {
  const auto a = infer_meta::pool_args("max_pool1d", 1, x, kernel_size, stride, padding, ceil_mode,
                                       data_format, padding_algorithm);
  return pool_max(x, a.kernel, a.stride, a.padding, ceil_mode, false, a.channel_last);
}

std::tuple<Tensor, Tensor> max_pool2d_with_index(const Tensor& x, const IntArray& kernel_size,
                                                 const IntArray& stride, const IntArray& padding,
                                                 bool ceil_mode, const std::string& data_format,
                                                 const std::string& padding_algorithm) {
  const auto a = infer_meta::pool_args("max_pool2d", 2, x, kernel_size, stride, padding, ceil_mode,
                                       data_format, padding_algorithm);
  return pool_max(x, a.kernel, a.stride, a.padding, ceil_mode, false, a.channel_last);
}

std::tuple<Tensor, Tensor> max_pool3d_with_index(const Tensor& x, const IntArray& kernel_size,
                                                 const IntArray& stride, const IntArray& padding,
                                                 bool ceil_mode, const std::string& data_format,
                                                 const std::string& padding_algorithm) {
  const auto a = infer_meta::pool_args("max_pool3d", 3, x, kernel_size, stride, padding, ceil_mode,
                                       data_format, padding_algorithm);
  return pool_max(x, a.kernel, a.stride, a.padding, ceil_mode, false, a.channel_last);
}

Tensor avg_pool1d(const Tensor& x, const IntArray& kernel_size, const IntArray& stride,
                  const IntArray& padding, bool exclusive, bool ceil_mode, const std::string& data_format,
                  const std::string& padding_algorithm) {
  const auto a = infer_meta::pool_args("avg_pool1d", 1, x, kernel_size, stride, padding, ceil_mode,
                                       data_format, padding_algorithm);
  return pool_avg(x, a.kernel, a.stride, a.padding, ceil_mode, exclusive, false, a.channel_last);
}

Tensor avg_pool2d(const Tensor& x, const IntArray& kernel_size, const IntArray& stride,
                  const IntArray& padding, bool ceil_mode, bool exclusive,
                  const std::optional<Scalar>& divisor_override, const std::string& data_format,
                  const std::string& padding_algorithm) {
  const auto a = infer_meta::pool_args("avg_pool2d", 2, x, kernel_size, stride, padding, ceil_mode,
                                       data_format, padding_algorithm);
  const Tensor out = pool_avg(x, a.kernel, a.stride, a.padding, ceil_mode, exclusive, false, a.channel_last);
  if (!divisor_override.has_value()) return out;
  return out * Scalar(double(a.kernel[0] * a.kernel[1]) / divisor_override->to<double>());
}

Tensor avg_pool3d(const Tensor& x, const IntArray& kernel_size, const IntArray& stride,
                  const IntArray& padding, bool ceil_mode, bool exclusive,
                  const std::optional<Scalar>& divisor_override, const std::string& data_format,
                  const std::string& padding_algorithm) {
  const auto a = infer_meta::pool_args("avg_pool3d", 3, x, kernel_size, stride, padding, ceil_mode,
                                       data_format, padding_algorithm);
  const Tensor out = pool_avg(x, a.kernel, a.stride, a.padding, ceil_mode, exclusive, false, a.channel_last);
  if (!divisor_override.has_value()) return out;
  return out * Scalar(double(a.kernel[0] * a.kernel[1] * a.kernel[2]) / divisor_override->to<double>());
}

Tensor adaptive_avg_pool1d(const Tensor& x, const IntArray& output_size, const std::string& data_format) {
  const auto a = infer_meta::adaptive_pool_args("adaptive_avg_pool1d", 1, x, output_size, data_format);
  return pool_avg(x, a.kernel, a.stride, a.padding, false, true, true, a.channel_last);
}

Tensor adaptive_avg_pool2d(const Tensor& x, const IntArray& output_size, const std::string& data_format) {
  const auto a = infer_meta::adaptive_pool_args("adaptive_avg_pool2d", 2, x, output_size, data_format);
  return pool_avg(x, a.kernel, a.stride, a.padding, false, true, true, a.channel_last);
}

Tensor adaptive_avg_pool3d(const Tensor& x, const IntArray& output_size, const std::string& data_format) {
  const auto a = infer_meta::adaptive_pool_args("adaptive_avg_pool3d", 3, x, output_size, data_format);
  return pool_avg(x, a.kernel, a.stride, a.padding, false, true, true, a.channel_last);
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& x, const IntArray& output_size) {
  const auto a = infer_meta::adaptive_pool_args("adaptive_max_pool1d", 1, x, output_size, "NCL");
  return pool_max(x, a.kernel, a.stride, a.padding, false, true, a.channel_last);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& x, const IntArray& output_size) {
  const auto a = infer_meta::adaptive_pool_args("adaptive_max_pool2d", 2, x, output_size, "NCHW");
  return pool_max(x, a.kernel, a.stride, a.padding, false, true, a.channel_last);
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& x, const IntArray& output_size) {
  const auto a = infer_meta::adaptive_pool_args("adaptive_max_pool3d", 3, x, output_size, "NCDHW");
  return pool_max(x, a.kernel, a.stride, a.padding, false, true, a.channel_last);
}

}  // namespace OAR_COMPOSITE_NAMESPACE
