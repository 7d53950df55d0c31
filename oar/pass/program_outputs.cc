#include "oar/pass/program_outputs.h"

#include <mutex>

#include "oar/ir/block.h"
#include "oar/ir/op_registry.h"

namespace oar::pass {

namespace {

std::vector<ir::TensorType> no_results(const ir::TypeArgs&) { return {}; }

void outputs_verify(const ir::Operation& op) {
  OAR_ENFORCE(op.parent_op() == nullptr, InvalidArgument, kOutputsOp, ": may only appear in the top-level block");
}

// At load time, so that programs that mention pass_outputs parse.
const bool registered_at_load = (register_pass_ops(), true);

}  // namespace

void register_pass_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    ir::OpRegistry& r = ir::OpRegistry::global();
    if (r.find(kOutputsOp)) return;
    ir::OpDef d;
    d.name = kOutputsOp;
    d.family = "pass";
    d.operands = {{"values", ir::OperandKind::List}};
    d.rule = ir::TypeRule::Direct;
    d.types = &no_results;
    d.verify = &outputs_verify;
    r.add(std::move(d));
  });
}

OutputPin::OutputPin(ir::Program& program, const std::vector<ir::Value*>& outputs) {
  register_pass_ops();
  (void)registered_at_load;
  op_ = program.block().push_back(ir::Operation::create(kOutputsOp, outputs, {static_cast<uint32_t>(outputs.size())},
                                                        {}, {}));
}

std::vector<ir::Value*> OutputPin::outputs() const { return op_ ? op_->operands() : std::vector<ir::Value*>{}; }

void OutputPin::release() {
  if (op_ == nullptr) return;
  op_->parent_block()->erase(op_);
  op_ = nullptr;
}

}  // namespace oar::pass
