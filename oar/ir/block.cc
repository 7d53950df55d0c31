#include "oar/ir/block.h"

#include "oar/core/error.h"
#include "oar/ir/op_registry.h"
#include "oar/ir/region.h"

namespace oar::ir {

Block::~Block() {
  // Operands may point at values defined later in this block or in nested blocks: forget
  // them all before anything is destroyed.
  for (auto& op : ops_) op->drop_all_references();
  ops_.clear();
}

Value* Block::add_argument(TensorType type) {
  args_.push_back(std::make_unique<Value>(std::move(type), nullptr, this, static_cast<uint32_t>(args_.size())));
  return args_.back().get();
}

std::vector<Value*> Block::arguments() const {
  std::vector<Value*> out;
  for (auto& a : args_) out.push_back(a.get());
  return out;
}

Operation* Block::insert(iterator pos, std::unique_ptr<Operation> op) {
  OAR_ENFORCE(op != nullptr, InvalidArgument, "Block::insert: the operation is null");
  OAR_ENFORCE(op->parent_ == nullptr, PreconditionNotMet, "Block::insert: operation '", op->name(),
              "' already belongs to a block");
  op->parent_ = this;
  return ops_.insert(pos, std::move(op))->get();
}

void Block::erase(Operation* op) {
  for (auto it = ops_.begin(); it != ops_.end(); ++it) {
    if (it->get() != op) continue;
    for (size_t i = 0; i < op->num_results(); ++i)
      OAR_ENFORCE(!op->result(i)->has_uses(), PreconditionNotMet, "Block::erase: result ", i, " of '",
                  op->name(), "' still has ", op->result(i)->uses().size(), " use(s)");
    op->drop_all_references();
    ops_.erase(it);
    return;
  }
  OAR_THROW(NotFound, "Block::erase: operation '", op ? op->name() : std::string("null"),
            "' is not in this block");
}

Operation* Block::terminator() const {
  if (ops_.empty()) return nullptr;
  Operation* last = ops_.back().get();
  return last->def() && last->def()->is_terminator ? last : nullptr;
}

Operation* Block::parent_op() const { return parent_ ? parent_->parent_op() : nullptr; }

}  // namespace oar::ir
