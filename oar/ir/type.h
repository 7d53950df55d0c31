// TensorType: what the IR knows about a value before it runs: dtype and shape, where a dim of -1
// is unknown at compile time (a batch size, a sequence length).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "oar/core/dtype.h"

namespace oar::ir {

inline constexpr int64_t kUnknownDim = -1;

struct TensorType {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;  // -1: unknown; [] is a 0-D tensor

  TensorType() = default;
  TensorType(DType d, std::vector<int64_t> s) : dtype(d), shape(std::move(s)) {}

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  bool has_unknown_dims() const;
  bool operator==(const TensorType& o) const { return dtype == o.dtype && shape == o.shape; }
  bool operator!=(const TensorType& o) const { return !(*this == o); }
  // The text form: "float32[2, -1, 3]" ("float32[]" for 0-D).
  std::string str() const;
};

}  // namespace oar::ir
