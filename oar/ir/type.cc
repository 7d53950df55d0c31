#include "oar/ir/type.h"

namespace oar::ir {

bool TensorType::has_unknown_dims() const {
  for (int64_t d : shape)
    if (d == kUnknownDim) return true;
  return false;
}

std::string TensorType::str() const {
  std::string s = dtype_name(dtype);
  s += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  s += ']';
  return s;
}

}  // namespace oar::ir
