// What every oar/ops/composite/<family>.cc includes first: the two worlds its bodies compile in.
//
// A composite op is an op written with other ops (`composite: true` in its spec). Its body is an
// ordinary C++ function named after the op, in oar/ops/composite/<family>.cc, and that file is
// compiled twice, each time through a generated file (gen/oar/ops/generated/) that first includes
// the API headers of the op families the bodies call (found by tools/gen_ops.py):
//
//  - eager (composite_<family>.cc): the bodies live in namespace oar::composite and compute
//    with oar::Tensor. The generated oar::<op> traces it, picks its device, then calls
//    oar::composite::<op>. A call inside a body to another op reaches the public op, so it traces
//    and places itself too.
//  - shape-only (OAR_SHAPE_ONLY, shape_only_<family>.cc): the same bodies live in namespace
//    oar::ir::shape_only and `Tensor` means ir::shape_only::MetaTensor. Each body then *is* the
//    op's shape-only twin declared in shape_only/<family>.h: the IR infers a composite's result
//    types by running its body on placeholders (oar/ir/meta_tensor.h).
//
// Rules for bodies, which the two compiles enforce:
//  - Write `Tensor` and, for a Tensor[] argument, `const TensorList&`.
//  - Code that reads or writes values, draws random numbers or calls kernels:: directly goes
//    under `#ifndef OAR_SHAPE_ONLY` (the random fills after their Tensor::make; whole bodies of
//    ops whose spec says `shape_only: false`, whose programs are told their result types).
//  - A body that another body of the same file calls is defined after its callers: defined
//    before, oar::composite::<op> and the public oar::<op> are both candidates for the call and
//    the compiler reports it as ambiguous.
#pragma once
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "oar/core/error.h"
#include "oar/core/int_array.h"
#include "oar/ops/op_helpers.h"

#ifdef OAR_SHAPE_ONLY

#include "oar/ir/meta_tensor.h"
#define OAR_COMPOSITE_NAMESPACE oar::ir::shape_only
namespace oar::ir::shape_only {
using Tensor = MetaTensor;
using TensorList = MetaTensorList;
}  // namespace oar::ir::shape_only

#else

#define OAR_COMPOSITE_NAMESPACE oar::composite
namespace oar::composite {
using TensorList = std::vector<Tensor>;
}  // namespace oar::composite

#endif
