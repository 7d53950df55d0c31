// Shape/dtype rules for creation ops.
#pragma once
#include <optional>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// Checks that every dim is >= 0; dtype falls back to `fallback`.
Meta from_shape(const char* op, const IntArray& shape, std::optional<DType> dtype,
                DType fallback);
Meta full(const char* op, const IntArray& shape, const Scalar& fill_value,
          std::optional<DType> dtype);
Meta arange(const char* op, const Scalar& start, const Scalar& end, const Scalar& step,
            std::optional<DType> dtype);
// Program type of arange_tensor: [-1] (the length depends on the values); each bound must hold
// [num] of dtype (default: the default float dtype); start and stop must hold one value each.
Meta linspace_tensor(const char* op, const Tensor& start, const Tensor& stop, int64_t num,
                     std::optional<DType> dtype);
// one element; int64 when all three are integer tensors, else the default float dtype.
Meta arange_tensor(const char* op, const Tensor& start, const Tensor& end, const Tensor& step,
                   std::optional<DType> dtype);
Meta linspace(const char* op, const Scalar& start, const Scalar& stop, int64_t num,
              std::optional<DType> dtype);
Meta eye(const char* op, int64_t num_rows, std::optional<int64_t> num_columns,
         std::optional<DType> dtype);
Meta randint(const char* op, int64_t low, int64_t high, const IntArray& shape,
             std::optional<DType> dtype);

}  // namespace oar::infer_meta
