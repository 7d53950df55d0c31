// Constant folding: ops whose operands are all compile-time constants are evaluated while
// compiling (through the op's registry ExecFn, i.e. the eager C++ API) and replaced:
//   - a result whose elements are all equal becomes `full(shape, value, dtype)`;
//   - any other result becomes a new `parameter` ("folded_constant", "folded_constant_1", ...)
//     whose tensor is added to the ParameterStore (without a store, such results stay).
// Constants: the results of pure ops without operands (full, zeros, arange, eye, ...) and of
// pure ops over constants; with `frozen_parameters` (inference), `parameter` ops whose tensor
// the store holds are constants too, so weight-only subgraphs (a transposed or reshaped weight,
// a scaled bias) are computed once. Random ops and ops with effects never fold (op_effects.h).
// Only the values that non-folded ops read are materialised; the folded ops then go.
#pragma once
#include "oar/pass/parameter_store.h"
#include "oar/pass/pass.h"

namespace oar::pass {

class ConstantFolding : public Pass {
 public:
  // `params` may be null: then only splat results fold, and parameters are not constants.
  explicit ConstantFolding(ParameterStore* params = nullptr, bool frozen_parameters = false)
      : params_(params), frozen_(frozen_parameters && params != nullptr) {}
  std::string name() const override { return "constant_folding"; }
  bool run(ir::Program& program) override;

 private:
  ParameterStore* params_;
  bool frozen_;
};

}  // namespace oar::pass
