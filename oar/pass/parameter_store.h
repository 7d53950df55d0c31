// ParameterStore: the tensors behind a program's `parameter` ops, by name (the program itself
// holds no weights; see oar/ir/program.h). Passes that fold weights (conv + batch_norm, constant
// folding of frozen parameters) read from it and add new entries for the tensors they compute.
#pragma once
#include <string>
#include <unordered_map>

#include "oar/core/tensor.h"

namespace oar::pass {

using ParameterStore = std::unordered_map<std::string, Tensor>;

// `base`, or `base_1`, `base_2`, ... : the first name the store does not hold yet.
std::string unique_parameter_name(const ParameterStore& store, const std::string& base);

}  // namespace oar::pass
