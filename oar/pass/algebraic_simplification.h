// Algebraic simplification: rewrites that are identities, applied only when the types prove it
// (the replacement has exactly the type of what it replaces, so no broadcast or cast is lost):
//   multiply(x, 1), multiply(1, x), divide(x, 1)      -> x   (1: a full/ones constant)
//   add(x, 0), add(0, x), subtract(x, 0)              -> x   (0: a full/zeros constant)
//   scale(x, scale=1, bias=0), pow(x, 1)              -> x
//   cast(x, dtype) with x already of that dtype       -> x
//   transpose(x, identity perm)                       -> x
//   transpose(transpose(x, p), q)                     -> transpose(x, p∘q), or x when identity
//   reshape(x, s) with the type of x (no unknown dims) -> x
//   reshape(reshape(x, s1), s2), s2 without 0 dims    -> reshape(x, s2)
// (x + 0 turns -0.0 into +0.0 in IEEE arithmetic; the rewrite keeps -0.0: a difference only in
// the sign of zero.) The ops that fed the removed ones stay until dead-code elimination.
#pragma once
#include "oar/pass/pass.h"

namespace oar::pass {

class AlgebraicSimplification : public Pass {
 public:
  std::string name() const override { return "algebraic_simplification"; }
  bool run(ir::Program& program) override;
};

}  // namespace oar::pass
