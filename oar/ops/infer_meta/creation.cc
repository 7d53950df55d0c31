#include "oar/ops/infer_meta/creation.h"

#include <cmath>

namespace oar::infer_meta {

Meta from_shape(const char* op, const IntArray& shape, std::optional<DType> dtype,
                DType fallback) {
  for (size_t i = 0; i < shape.size(); ++i)
    OAR_ENFORCE_ARG(shape[i] >= 0, op, ": argument 'shape' must hold non-negative sizes, got ",
                    shape_str(shape), " (dimension ", i, " is ", shape[i], ")");
  return {Shape(shape.begin(), shape.end()), dtype.value_or(fallback)};
}

Meta full(const char* op, const IntArray& shape, const Scalar& fill_value,
          std::optional<DType> dtype) {
  const DType fallback = fill_value.kind() == Scalar::Kind::Bool ? DType::Bool
                         : fill_value.is_complex()              ? DType::Complex64
                                                                : default_float_dtype();
  return from_shape(op, shape, dtype, fallback);
}

Meta arange(const char* op, const Scalar& start, const Scalar& end, const Scalar& step,
            std::optional<DType> dtype) {
  const double s = start.to<double>(), e = end.to<double>(), d = step.to<double>();
  OAR_ENFORCE_ARG(d != 0, op, ": argument 'step' must not be 0");
  OAR_ENFORCE_ARG(std::isfinite(s) && std::isfinite(e), op,
                  ": arguments 'start' and 'end' must be finite, got ", s, " and ", e);
  const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((e - s) / d)));
  const bool all_int = start.is_integral() && end.is_integral() && step.is_integral();
  return {{n}, dtype.value_or(all_int ? DType::Int64 : default_float_dtype())};
}

Meta arange_tensor(const char* op, const Tensor& start, const Tensor& end, const Tensor& step,
                   std::optional<DType> dtype) {
  bool all_int = true;
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"start", &start}, {"end", &end}, {"step", &step}}) {
    OAR_ENFORCE_ARG(t->numel() == 1, op, ": argument '", name, "' must hold one value, got shape ",
                    shape_str(t->shape()));
    all_int = all_int && is_integral(t->dtype(), true);
  }
  return {Shape{-1}, dtype.value_or(all_int ? DType::Int64 : default_float_dtype())};
}

Meta linspace_tensor(const char*, const Tensor& start, const Tensor& stop, int64_t num,
                     std::optional<DType> dtype) {
  const char* op = "linspace";  // what the user called
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"start", &start}, {"stop", &stop}})
    OAR_ENFORCE_ARG(t->numel() == 1 || t->numel() < 0, op, ": argument '", name, "' must hold one value, got shape ",
                    shape_str(t->shape()));
  return linspace(op, Scalar(0), Scalar(0), num, dtype);
}

Meta linspace(const char* op, const Scalar&, const Scalar&, int64_t num,
              std::optional<DType> dtype) {
  OAR_ENFORCE_ARG(num >= 0, op, ": argument 'num' must be >= 0, got ", num);
  return {{num}, dtype.value_or(default_float_dtype())};
}

Meta eye(const char* op, int64_t num_rows, std::optional<int64_t> num_columns,
         std::optional<DType> dtype) {
  const int64_t cols = num_columns.value_or(num_rows);
  OAR_ENFORCE_ARG(num_rows >= 0 && cols >= 0, op,
                  ": arguments 'num_rows' and 'num_columns' must be >= 0, got ", num_rows,
                  " and ", cols);
  return {{num_rows, cols}, dtype.value_or(default_float_dtype())};
}

Meta randint(const char* op, int64_t low, int64_t high, const IntArray& shape,
             std::optional<DType> dtype) {
  OAR_ENFORCE_ARG(low < high, op, ": expected low < high, got low=", low, ", high=", high);
  return from_shape(op, shape, dtype, DType::Int64);
}

}  // namespace oar::infer_meta
